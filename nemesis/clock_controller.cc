#include "nemesis/clock_controller.h"

#include <cstdlib>
#include <filesystem>
#include <vector>

namespace locksmith {
namespace fs = std::filesystem;
namespace {

constexpr char kPreloadVar[] = "LD_PRELOAD=";
constexpr char kShimFileName[] = "liblocksmith_clock_shim.so";

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
  // LD_PRELOAD splits on spaces and colons: such a path would load garbage.
  if (shim_library.empty() || shim_library.front() != '/' ||
      shim_library.find_first_of(": \t") != std::string::npos) {
    return Error{"clock shim library '" + shim_library +
                 "' must be an absolute path without spaces or colons"};
  }
  const std::string preload = EnvValue(host.SpawnEnv(), kPreloadVar);
  std::string value = shim_library;
  if (!preload.empty()) {
    const bool has_it = (":" + preload + ":").find(":" + shim_library + ":") != std::string::npos;
    value = has_it ? preload : preload + ":" + shim_library;
  }
  if (Status s = host.SetSpawnEnv(kPreloadVar + value); !s) return s;
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
  std::vector<std::string> tried;
  if (const char* env = getenv("LOCKSMITH_CLOCK_SHIM"); env != nullptr && *env != '\0') {
    if (fs::exists(env)) return fs::absolute(env).string();
    return Error{"LOCKSMITH_CLOCK_SHIM names " + std::string(env) + ", which does not exist"};
  }
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const fs::path beside = exe.parent_path() / kShimFileName;
    if (fs::exists(beside)) return beside.string();
    tried.push_back(beside.string());
  }
#ifdef LOCKSMITH_CLOCK_SHIM_BUILT
  if (fs::exists(LOCKSMITH_CLOCK_SHIM_BUILT)) return std::string(LOCKSMITH_CLOCK_SHIM_BUILT);
  tried.push_back(LOCKSMITH_CLOCK_SHIM_BUILT);
#endif
  std::string list;
  for (const auto& t : tried) list += (list.empty() ? "" : ", ") + t;
  return Error{"no clock shim library (looked for " + list +
               "; build target locksmith_clock_shim or set LOCKSMITH_CLOCK_SHIM)"};
}

}  // namespace locksmith
