// libFuzzer target: a scenario file (`locksmith run --scenario NAME`,
// `locksmith scenarios`) on arbitrary bytes: parsed with comments (nesting
// bounded), its listing read, and its config (scripted steps included)
// merged and validated as a run's. Bad input may only be an error of one
// line.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "base/json_input.h"
#include "harness/run_config.h"
#include "harness/scenario_library.h"
#include "history/fuzz/fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace locksmith;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto j = ParseJsonInput(text, JsonComments::kAllowed);
  if (!j) return CheckErrorLine(j.error());
  auto info = ScenarioInfoFromJson(*j, "fuzz");
  if (!info) return CheckErrorLine(info.error());
  RunConfig config;
  if (Status s = MergeRunConfigJson(*j, config); !s) return CheckErrorLine(s.error());
  if (Status s = ValidateRunConfig(config); !s) return CheckErrorLine(s.error());
  return 0;
}
