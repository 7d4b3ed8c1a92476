#include "base/crc32c.h"

#include <array>
#include <cstring>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <nmmintrin.h>
#define LOCKSMITH_CRC32C_SSE42 1
#endif

namespace locksmith {
namespace {

// Reflected, table-driven.
constexpr std::array<uint32_t, 256> MakeCrcTable() {
  std::array<uint32_t, 256> table{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? (c >> 1) ^ 0x82F63B78u : c >> 1;
    table[i] = c;
  }
  return table;
}
constexpr std::array<uint32_t, 256> kCrcTable = MakeCrcTable();

#ifdef LOCKSMITH_CRC32C_SSE42
// The crc32 instruction computes CRC-32C, reflected, as the table does.
__attribute__((target("sse4.2"))) uint32_t Crc32cSse42(std::string_view bytes) {
  const char* p = bytes.data();
  size_t n = bytes.size();
  uint64_t c = 0xFFFFFFFFu;
  for (; n >= 8; p += 8, n -= 8) {
    uint64_t word = 0;
    std::memcpy(&word, p, 8);
    c = _mm_crc32_u64(c, word);
  }
  auto c32 = static_cast<uint32_t>(c);
  for (; n > 0; ++p, --n) c32 = _mm_crc32_u8(c32, static_cast<unsigned char>(*p));
  return c32 ^ 0xFFFFFFFFu;
}

bool HasSse42() {
  static const bool has = __builtin_cpu_supports("sse4.2");
  return has;
}
#endif

}  // namespace

uint32_t Crc32cPortable(std::string_view bytes) {
  uint32_t c = 0xFFFFFFFFu;
  for (unsigned char b : bytes) c = kCrcTable[(c ^ b) & 0xFF] ^ (c >> 8);
  return c ^ 0xFFFFFFFFu;
}

uint32_t Crc32c(std::string_view bytes) {
#ifdef LOCKSMITH_CRC32C_SSE42
  if (HasSse42()) return Crc32cSse42(bytes);
#endif
  return Crc32cPortable(bytes);
}

}  // namespace locksmith
