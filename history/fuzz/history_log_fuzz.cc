// libFuzzer target: the history log reader (history.bin) on arbitrary
// bytes, as a stream and loaded whole; the seeds are logs, whole and cut.
#include <cstddef>
#include <cstdint>
#include <string>

#include "history/fuzz/fuzz_common.h"
#include "history/history_log.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  locksmith::CheckParsed(locksmith::ParseHistoryLog(bytes, "fuzz"));
  auto strict = locksmith::HistoryLogStream::FromBytes(bytes, "fuzz", false);
  if (!strict) return locksmith::CheckErrorLine(strict.error());
  locksmith::CheckParsed(locksmith::ReadAll(**strict));
  return 0;
}
