// Packed tables for the data blob of report.html: the rows of a table of
// integers as one ASCII string, under half the size of JSON arrays, decoded
// by the page's script in one pass over the string (no JSON numbers to
// parse, no arrays of boxed values to build, one loop to compile).
//
// Row after row, each field a number written as base-59 "continuation"
// digits, least significant first, then one base-32 "final" digit, from an
// alphabet of 91 printable characters that never needs escaping in a JSON
// string or inside <script> (no '"', '\', '<', no space): numbers under 32
// take one character, under 1,888 two, under 6.6 million four. A field is
// unsigned (never negative: times since the previous row, durations, lanes,
// ids) or signed, zigzag-coded (0, -1, 1, -2, ... as 0, 1, 2, 3, ...). The
// page's decoder (assets/report_data.js) reads the fields in the writer's order.
// Pure functions, thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace locksmith {

// The 91 characters: the first 32 are final digits, the rest continuation.
std::string_view PackedTableAlphabet();

struct PackedField {
  const std::vector<int64_t>* values;  // one per row; every field as long
  bool is_signed;                      // false: every value must be >= 0
};

// Appends the rows of `fields` (all of the same length).
void AppendPackedTable(std::string* out, const std::vector<PackedField>& fields);

// The columns of a packed table whose fields are signed as `is_signed`
// says; nullopt on a character outside the alphabet, a truncated number or
// a partial row.
std::optional<std::vector<std::vector<int64_t>>> UnpackTable(std::string_view packed,
                                                            const std::vector<bool>& is_signed);

}  // namespace locksmith
