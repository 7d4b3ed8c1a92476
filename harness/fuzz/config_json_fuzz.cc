// libFuzzer target: a config file (`locksmith run --config FILE`, and a run's
// config.json that `check RUN_DIR` reads) on arbitrary bytes: parsed with
// comments (nesting bounded), merged into a RunConfig (every key's type and
// bounds checked, the modules it names chosen) and validated, then written
// back as config.json is and read as the reports read it. Bad input may only
// be an error of one line.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "base/json_input.h"
#include "harness/run_config.h"
#include "history/fuzz/fuzz_common.h"
#include "reports/run_summary.h"
#include "reports/suite_report.h"
#include "reports/summary_printer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace locksmith;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto j = ParseJsonInput(text, JsonComments::kAllowed);
  if (!j) return CheckErrorLine(j.error());
  RunConfig config;
  if (Status s = MergeRunConfigJson(*j, config); !s) return CheckErrorLine(s.error());
  if (Status s = ValidateRunConfig(config); !s) return CheckErrorLine(s.error());
  // What reads a run's config.json once it passed: the summary's debate
  // line, the report's header, the suite's row.
  DebateOutcome(*j, Validity::kFalse);
  RunSummary::FromConfig(*j).DisplayName();
  SuiteRunFrom(nlohmann::json(), *j);
  return config.ToJson().dump().empty() ? CheckErrorLine("") : 0;
}
