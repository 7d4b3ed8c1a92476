#include "nemesis/clock_controller.h"

#include <vector>

#include "nemesis/preload_library.h"

namespace locksmith {
namespace {

constexpr char kClockShimFileName[] = "liblocksmith_clock_shim.so";

// The value of `name` ("NAME=") among `env`'s entries, or "".
std::string EnvValue(const std::vector<std::string>& env, const std::string& name) {
  for (const auto& entry : env) {
    if (entry.rfind(name, 0) == 0) return entry.substr(name.size());
  }
  return "";
}

std::string ControlFileVar() { return std::string(shim_time::kControlFileEnv) + "="; }

}  // namespace

Status ClockController::Install(Host& host, const std::string& shim_library) {
  if (Status s = AddPreloadLibrary(host, shim_library); !s) return s;
  return host.SetSpawnEnv(ControlFileVar() + host.PathOf(kControlFile));
}

bool ClockController::Installed(const Host& host) {
  return EnvValue(host.SpawnEnv(), ControlFileVar()) == host.PathOf(kControlFile);
}

Status ClockController::Write(const shim_time::ClockParams& params) {
  unsigned char bytes[shim_time::kControlSize] = {};
  shim_time::EncodeControl(params, generation_ + 1, bytes);
  // A failed replace may have left nothing or the new file: assume it is there.
  file_in_place_ = true;
  if (Status s = host_.WriteFile(
          kControlFile, std::string_view(reinterpret_cast<const char*>(bytes), sizeof(bytes)));
      !s) {
    return s;
  }
  ++generation_;
  params_ = params;
  return OkStatus();
}

Status ClockController::Remove() {
  if (Status s = host_.RemoveFile(kControlFile); !s) return s;
  file_in_place_ = false;
  params_ = shim_time::ClockParams{};
  return OkStatus();
}

Result<std::string> FindClockShimLibrary() {
#ifdef LOCKSMITH_CLOCK_SHIM_BUILT
  const char* built = LOCKSMITH_CLOCK_SHIM_BUILT;
#else
  const char* built = nullptr;
#endif
  return FindPreloadLibrary(kClockShimFileName, "LOCKSMITH_CLOCK_SHIM", built, "locksmith_clock_shim");
}

}  // namespace locksmith
