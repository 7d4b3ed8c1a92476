// libFuzzer target: arbitrary bytes as a run directory's controller.json,
// which `check` and `report` read (a run directory may be anyone's) to
// refuse a run still going: it parses to a positive pid, a start time and a
// boot id, or is an error of one line naming the file.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "cluster/fuzz/fuzz_checks.h"
#include "cluster/run_registry.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace locksmith;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto facts = ParseRunController(text, "run/controller.json");
  if (!facts) {
    RequireErrorLine(facts.error());
    Require(facts.error().find("run/controller.json") != std::string::npos);
    return 0;
  }
  Require(facts->pid > 0);
  return 0;
}
