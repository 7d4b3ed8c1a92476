#include "base/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>

namespace locksmith {

namespace {

std::string Reason() { return std::strerror(errno); }

// Writes all of `content` to `fd`, retrying short writes and EINTR.
bool WriteAll(int fd, std::string_view content) {
  while (!content.empty()) {
    const ssize_t n = ::write(fd, content.data(), content.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    content.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

}  // namespace

Status WriteFileAtomically(const std::string& path, std::string_view content,
                           bool private_file) {
  std::string pattern = path + ".tmp-XXXXXX";
  std::vector<char> name(pattern.begin(), pattern.end());
  name.push_back('\0');
  // mkstemp opens with O_CREAT | O_EXCL: an existing name, a symbolic link
  // included, is never opened.
  const int fd = ::mkstemp(name.data());
  if (fd < 0) return Error{"cannot write " + path + ": " + Reason()};
  const std::string tmp(name.data());
  auto fail = [&](const std::string& what) -> Status {
    const std::string message = what + ": " + Reason();
    ::close(fd);
    ::unlink(tmp.c_str());
    return Error{message};
  };
  if (::fchmod(fd, private_file ? 0600 : 0644) != 0) return fail("cannot set the mode of " + tmp);
  if (!WriteAll(fd, content)) return fail("cannot write " + path);
  if (::close(fd) != 0) {
    const std::string message = "cannot write " + path + ": " + Reason();
    ::unlink(tmp.c_str());
    return Error{message};
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string message = "cannot rename " + tmp + " to " + path + ": " + Reason();
    ::unlink(tmp.c_str());
    return Error{message};
  }
  return OkStatus();
}

}  // namespace locksmith
