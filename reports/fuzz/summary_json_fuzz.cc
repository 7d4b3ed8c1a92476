// libFuzzer target: a suite's summary.json as `locksmith report SUITE_DIR`
// and the store index read it, on arbitrary bytes: parsed (nesting bounded),
// turned into the suite's record (every field's type checked, every run
// directory a relative path below the suite's), then its tables written
// again. Bad input may only be an error of one line.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "base/input_file.h"
#include "base/json_input.h"
#include "history/fuzz/fuzz_common.h"
#include "reports/suite_record_reader.h"
#include "reports/suite_report.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace locksmith;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto summary = ParseJsonInput(text);
  if (!summary) return CheckErrorLine(summary.error());
  auto record = SuiteRecordFromJson(*summary);
  if (!record) return CheckErrorLine(record.error());
  for (const SuiteRun& run : record->runs) {
    if (!run.dir.empty() && !IsPathBelow(run.dir)) std::abort();
  }
  const std::string index = RenderSuiteIndex(*record);
  if (index.find("href=\"javascript:") != std::string::npos) std::abort();
  RenderSuiteJunit(*record);
  SuiteSummaryJson(*record).dump();
  return 0;
}
