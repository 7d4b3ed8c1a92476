// Seed derivation: every random choice in a run (tokens, keys, holds, the
// nemesis schedule) draws from a generator seeded by SubSeed(run seed, purpose)
// so one logged seed replays the whole run. Pure; thread-safe.
#pragma once

#include <cstdint>

namespace locksmith {

// splitmix64 of the seed mixed with the stream number: distinct streams get
// statistically independent seeds.
constexpr uint64_t SubSeed(uint64_t seed, uint64_t stream) {
  uint64_t z = seed + 0x9e3779b97f4a7c15ULL * (stream + 1);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

}  // namespace locksmith
