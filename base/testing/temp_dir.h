// TempDir: a fresh directory under /tmp for one test, removed with everything
// in it when the test ends. Test-only; not thread-safe.
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <string>

namespace locksmith::testing {

class TempDir {
 public:
  explicit TempDir(const std::string& prefix = "locksmith-test") {
    std::string pattern = "/tmp/" + prefix + "-XXXXXX";
    path_ = mkdtemp(pattern.data());
    // Searchable by others, not listable (mkdtemp makes it 0700): a server
    // that runs as a user of its own (postgres) reaches its node directory
    // below it.
    std::error_code ec;
    std::filesystem::permissions(path_, std::filesystem::perms::others_exec,
                                 std::filesystem::perm_options::add, ec);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace locksmith::testing
