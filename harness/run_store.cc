#include "harness/run_store.h"

#include <unistd.h>

#include <chrono>
#include <ctime>
#include <filesystem>

namespace locksmith {
namespace fs = std::filesystem;

namespace {

// 20261121T054400.123Z: sorts by time, safe in a path.
std::string Timestamp() {
  const auto now = std::chrono::system_clock::now();
  const std::time_t secs = std::chrono::system_clock::to_time_t(now);
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()) % 1000;
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y%m%dT%H%M%S", &tm);
  char out[40];
  std::snprintf(out, sizeof(out), "%s.%03dZ", buf, static_cast<int>(ms.count()));
  return out;
}

}  // namespace

Result<std::string> CreateStampedDirectory(const std::string& root, const std::string& name) {
  std::error_code ec;
  // Absolute: servers run with their node directory as working directory.
  const fs::path parent = fs::absolute(fs::path(root) / name, ec);
  if (ec) return Error{"cannot resolve store directory " + root + ": " + ec.message()};
  fs::create_directories(parent, ec);
  if (ec) return Error{"cannot create store directory " + parent.string() + ": " + ec.message()};
  const std::string stamp = Timestamp();
  fs::path dir;
  for (int attempt = 0;; ++attempt) {
    dir = parent / (attempt ? stamp + "-" + std::to_string(attempt) : stamp);
    // create_directory is atomic: false means another run took the name.
    if (fs::create_directory(dir, ec)) break;
    if (ec) return Error{"cannot create " + dir.string() + ": " + ec.message()};
    if (attempt > 100) return Error{"cannot find a free run directory under " + parent.string()};
  }

  // Point latest at the run with a rename, so readers never see it missing.
  const fs::path latest = fs::path(root) / "latest";
  const fs::path tmp = fs::path(root) / (".latest-" + std::to_string(::getpid()));
  fs::remove(tmp, ec);
  fs::create_directory_symlink(fs::relative(dir, fs::absolute(root)), tmp, ec);
  if (!ec) fs::rename(tmp, latest, ec);
  if (ec) return Error{"cannot update " + latest.string() + ": " + ec.message()};
  return dir.string();
}

Result<RunStore> CreateRunStore(const std::string& root, const std::string& test_name) {
  auto dir = CreateStampedDirectory(root, test_name);
  if (!dir) return Error{dir.error()};
  std::error_code ec;
  fs::create_directory(fs::path(*dir) / "nodes", ec);
  if (ec) return Error{"cannot create " + *dir + "/nodes: " + ec.message()};
  return RunStore{*dir};
}

}  // namespace locksmith
