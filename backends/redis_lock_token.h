// LockTokenGenerator: the random value a client writes into a lock key so that
// only it can release the lock. 128 bits from a PRNG seeded by the run's seed
// (so a run replays), as 32 lowercase hex characters. The seed is mixed with
// SubSeed (base/seed.h, splitmix64) before seeding, so nearby seeds
// (client 1, 2, 3, ...) give unrelated streams; clients of one run must still
// get distinct seeds.
// Thread-safety: none (one generator per client).
#pragma once

#include <cstdint>
#include <random>
#include <string>

namespace locksmith {

class LockTokenGenerator {
 public:
  explicit LockTokenGenerator(uint64_t seed);
  std::string Next();
  // Writes 32 hex chars for (hi, lo) into out[0..32).
  static void FormatHex(uint64_t hi, uint64_t lo, char* out);

 private:
  std::mt19937_64 prng_;  // exact output is fixed by the C++ standard: replays across builds
};

}  // namespace locksmith
