// libFuzzer target: a suite file (`locksmith suite FILE`) on arbitrary bytes:
// parsed with comments (nesting bounded) and expanded into its cells, each
// checked as a run config. Bad input may only be an error of one line.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "base/json_input.h"
#include "harness/suite_file.h"
#include "history/fuzz/fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace locksmith;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto j = ParseJsonInput(text, JsonComments::kAllowed);
  if (!j) return CheckErrorLine(j.error());
  auto suite = ParseSuite(*j, "fuzz", SuiteOverrides{});
  if (!suite) return CheckErrorLine(suite.error());
  for (const SuiteCell& cell : suite->cells) cell.config.ToJson().dump();
  return 0;
}
