#include "reports/packed_table.h"

#include <array>

namespace locksmith {
namespace {

constexpr uint64_t kFinal = 32;
constexpr uint64_t kContinuation = 59;

constexpr std::array<char, kFinal + kContinuation> MakeAlphabet() {
  std::array<char, kFinal + kContinuation> a{};
  size_t n = 0;
  for (int c = 0x21; c < 0x7F; ++c) {
    if (c != '"' && c != '<' && c != '\\') a[n++] = static_cast<char>(c);
  }
  return a;
}
constexpr std::array<char, kFinal + kContinuation> kAlphabet = MakeAlphabet();
static_assert(kAlphabet.back() == '~', "91 printable characters");

constexpr std::array<int8_t, 128> MakeDigits() {
  std::array<int8_t, 128> d{};
  for (auto& x : d) x = -1;
  for (size_t i = 0; i < kAlphabet.size(); ++i) {
    d[static_cast<size_t>(kAlphabet[i])] = static_cast<int8_t>(i);
  }
  return d;
}
constexpr std::array<int8_t, 128> kDigits = MakeDigits();

void AppendNumber(std::string* out, uint64_t u) {
  while (u >= kFinal) {
    out->push_back(kAlphabet[kFinal + u % kContinuation]);
    u /= kContinuation;
  }
  out->push_back(kAlphabet[u]);
}

}  // namespace

std::string_view PackedTableAlphabet() { return {kAlphabet.data(), kAlphabet.size()}; }

void AppendPackedTable(std::string* out, const std::vector<PackedField>& fields) {
  if (fields.empty()) return;
  const size_t rows = fields.front().values->size();
  out->reserve(out->size() + rows * fields.size() * 2);
  for (size_t r = 0; r < rows; ++r) {
    for (const PackedField& f : fields) {
      const int64_t v = (*f.values)[r];
      // Zigzag: the sign in the lowest bit.
      AppendNumber(out, !f.is_signed ? static_cast<uint64_t>(v)
                        : v < 0      ? ~(static_cast<uint64_t>(v) << 1)
                                     : static_cast<uint64_t>(v) << 1);
    }
  }
}

std::optional<std::vector<std::vector<int64_t>>> UnpackTable(std::string_view packed,
                                                            const std::vector<bool>& is_signed) {
  std::vector<std::vector<int64_t>> columns(is_signed.size());
  if (is_signed.empty()) {
    if (packed.empty()) return columns;
    return std::nullopt;
  }
  size_t field = 0;
  uint64_t u = 0, scale = 1;
  for (char ch : packed) {
    const auto c = static_cast<unsigned char>(ch);
    const int d = c < kDigits.size() ? kDigits[c] : -1;
    if (d < 0) return std::nullopt;
    const auto digit = static_cast<uint64_t>(d);
    if (digit >= kFinal) {
      u += (digit - kFinal) * scale;  // exact modulo 2^64, as the writer's value
      scale *= kContinuation;
      continue;
    }
    u += digit * scale;
    columns[field].push_back(!is_signed[field] ? static_cast<int64_t>(u)
                             : (u & 1)         ? static_cast<int64_t>(~(u >> 1))
                                               : static_cast<int64_t>(u >> 1));
    field = (field + 1) % is_signed.size();
    u = 0, scale = 1;
  }
  if (scale != 1 || field != 0) return std::nullopt;
  return columns;
}

}  // namespace locksmith
