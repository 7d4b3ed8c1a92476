// Crc32c: the CRC-32C (Castagnoli) of bytes, as the history log frames its
// records with it. On x86-64 CPUs with SSE4.2 (checked once, at the first
// call) the crc32 instruction computes it eight bytes at a time; elsewhere a
// table does, a byte at a time. Both give the same value. Pure; thread-safe.
#pragma once

#include <cstdint>
#include <string_view>

namespace locksmith {

uint32_t Crc32c(std::string_view bytes);

// The table's way, whatever the CPU (for tests that compare the two).
uint32_t Crc32cPortable(std::string_view bytes);

}  // namespace locksmith
