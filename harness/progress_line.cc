#include "harness/progress_line.h"

#include <cmath>
#include <cstdio>

#include "base/terminal_text.h"

namespace locksmith {
namespace {

std::string Number(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, std::isfinite(v) && v > 0 ? v : 0.0);
  return buf;
}

// Columns `text` takes: UTF-8 continuation bytes take none.
size_t Columns(const std::string& text) {
  size_t n = 0;
  for (unsigned char c : text) n += (c & 0xC0) != 0x80;
  return n;
}

}  // namespace

std::string ProgressLine::Format(size_t width) const {
  // The label names a suite's cell and the faults come from the run: either
  // could carry a terminal's control characters, and "\r" would move the line.
  std::string line;
  if (!label.empty()) line += TerminalSafe(label) + " | ";
  line += Number(elapsed_s, 1) + "/" + Number(limit_s, limit_s == std::floor(limit_s) ? 0 : 1) +
          " s | " + Number(ops_per_s, 0) + " ops/s | ok " + std::to_string(counts.ok) +
          " fail " + std::to_string(counts.fail) + " info " + std::to_string(counts.info) +
          " | faults: ";
  if (counts.faults.empty()) line += "none";
  for (size_t i = 0; i < counts.faults.size(); ++i) {
    line += (i ? "," : "") + TerminalSafe(counts.faults[i]);
  }
  line += " | double holders: " + std::to_string(counts.double_holders);
  if (width == 0 || Columns(line) <= width) return line;
  // Cut at a character boundary, leaving a column for the ellipsis.
  std::string cut;
  size_t columns = 0;
  for (size_t i = 0; i < line.size(); ++i) {
    const unsigned char c = line[i];
    if ((c & 0xC0) != 0x80 && ++columns > width - 1) break;
    cut += line[i];
  }
  return cut + "\xE2\x80\xA6";
}

}  // namespace locksmith
