#include "backends/redis_lock_token.h"

#include "base/seed.h"

namespace locksmith {

// Stream 0 of SubSeed is plain splitmix64 of the seed, which is what tokens
// were always seeded with: stored runs replay with the same tokens.
LockTokenGenerator::LockTokenGenerator(uint64_t seed) : prng_(SubSeed(seed, 0)) {}

void LockTokenGenerator::FormatHex(uint64_t hi, uint64_t lo, char* out) {
  static constexpr char kDigits[] = "0123456789abcdef";
  for (int i = 0; i < 16; ++i) {
    out[i] = kDigits[(hi >> (60 - 4 * i)) & 0xf];
    out[16 + i] = kDigits[(lo >> (60 - 4 * i)) & 0xf];
  }
}

std::string LockTokenGenerator::Next() {
  uint64_t hi = prng_();
  uint64_t lo = prng_();
  std::string token(32, '\0');
  FormatHex(hi, lo, token.data());
  return token;
}

}  // namespace locksmith
