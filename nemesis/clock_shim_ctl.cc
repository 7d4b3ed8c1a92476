// clock_shim_ctl: writes a clock shim control file by hand, for benchmarks
// and experiments outside a run (scripts/bench-clock-shim.sh):
//   clock_shim_ctl FILE OFFSET_MS [RATE]
// The file is replaced atomically (WriteFileAtomically: a new file beside it,
// then renamed, no planted name followed), as the ClockController does
// through the Host.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "base/atomic_file.h"
#include "nemesis/shim_time.h"

int main(int argc, char** argv) {
  namespace st = locksmith::shim_time;
  if (argc != 3 && argc != 4) {
    std::fprintf(stderr, "usage: clock_shim_ctl FILE OFFSET_MS [RATE]\n");
    return 254;
  }
  char* end = nullptr;
  const long long offset_ms = std::strtoll(argv[2], &end, 10);
  if (*end != '\0') {
    std::fprintf(stderr, "clock_shim_ctl: OFFSET_MS '%s' is not a whole number\n", argv[2]);
    return 254;
  }
  const double rate = argc == 4 ? std::strtod(argv[3], &end) : 1.0;
  if (argc == 4 && (*end != '\0' || rate < 0 || rate > 1000)) {
    std::fprintf(stderr, "clock_shim_ctl: RATE '%s' must be a number from 0 to 1000\n", argv[3]);
    return 254;
  }
  st::ClockParams params = st::Bumped(st::ClockParams{}, offset_ms * 1'000'000);
  params.rate_ppm = static_cast<int64_t>(rate * st::kRealRate + 0.5);
  unsigned char bytes[st::kControlSize] = {};
  st::EncodeControl(params, 1, bytes);
  const locksmith::Status written = locksmith::WriteFileAtomically(
      argv[1], std::string_view(reinterpret_cast<const char*>(bytes), sizeof(bytes)));
  if (!written) {
    std::fprintf(stderr, "clock_shim_ctl: %s\n", written.error().c_str());
    return 1;
  }
  return 0;
}
