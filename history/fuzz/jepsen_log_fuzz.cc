// libFuzzer target: ParseJepsenLogHistory on arbitrary bytes.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "history/fuzz/fuzz_common.h"
#include "history/jepsen_import.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  locksmith::CheckParsed(locksmith::ParseJepsenLogHistory(text, "fuzz"));
  return 0;
}
