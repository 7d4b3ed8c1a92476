// libFuzzer target: format detection plus whichever parser it picks, and
// our own history.jsonl parser, on arbitrary bytes.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "history/fuzz/fuzz_common.h"
#include "history/history_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  locksmith::CheckParsed(locksmith::ParseHistoryText(text, "", "fuzz"));
  locksmith::CheckParsed(locksmith::ParseHistoryText(text, "jsonl", "fuzz"));
  return 0;
}
