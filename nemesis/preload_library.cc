#include "nemesis/preload_library.h"

#include <cstdlib>
#include <filesystem>
#include <vector>

namespace locksmith {
namespace fs = std::filesystem;

Status AddPreloadLibrary(Host& host, const std::string& library) {
  static const std::string kPreloadVar = "LD_PRELOAD=";
  // LD_PRELOAD splits on spaces and colons: such a path would load garbage.
  if (library.empty() || library.front() != '/' ||
      library.find_first_of(": \t") != std::string::npos) {
    return Error{"preload library '" + library +
                 "' must be an absolute path without spaces or colons"};
  }
  std::string preload;
  for (const auto& entry : host.SpawnEnv()) {
    if (entry.rfind(kPreloadVar, 0) == 0) preload = entry.substr(kPreloadVar.size());
  }
  std::string value = library;
  if (!preload.empty()) {
    const bool has_it = (":" + preload + ":").find(":" + library + ":") != std::string::npos;
    value = has_it ? preload : preload + ":" + library;
  }
  return host.SetSpawnEnv(kPreloadVar + value);
}

Result<std::string> FindPreloadLibrary(const std::string& file_name, const char* env_var,
                                       const char* built_path, const std::string& target) {
  std::vector<std::string> tried;
  if (const char* env = getenv(env_var); env != nullptr && *env != '\0') {
    if (fs::exists(env)) return fs::absolute(env).string();
    return Error{std::string(env_var) + " names " + env + ", which does not exist"};
  }
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const fs::path beside = exe.parent_path() / file_name;
    if (fs::exists(beside)) return beside.string();
    tried.push_back(beside.string());
  }
  if (built_path != nullptr) {
    if (fs::exists(built_path)) return std::string(built_path);
    tried.push_back(built_path);
  }
  std::string list;
  for (const auto& t : tried) list += (list.empty() ? "" : ", ") + t;
  return Error{"no " + file_name + " (looked for " + list + "; build target " + target +
               " or set " + env_var + ")"};
}

}  // namespace locksmith
