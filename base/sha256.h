// Sha256Hex: the SHA-256 (FIPS 180-4) of bytes as 64 lowercase hex digits,
// what a shard records of its suite file so that a merge can tell shards of
// one suite from shards of an edited one. Pure; thread-safe.
#pragma once

#include <string>
#include <string_view>

namespace locksmith {

std::string Sha256Hex(std::string_view bytes);

}  // namespace locksmith
