#include "backends/redis_lock_token.h"

namespace locksmith {
namespace {

uint64_t SplitMix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

}  // namespace

LockTokenGenerator::LockTokenGenerator(uint64_t seed) : prng_(SplitMix64(seed)) {}

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
