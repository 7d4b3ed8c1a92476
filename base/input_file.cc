#include "base/input_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "base/scope_exit.h"

namespace locksmith {
namespace {

// Reads from `fd` until its end or until `limit` bytes; an error on failure.
Result<std::string> ReadUpTo(int fd, const std::string& path, uint64_t limit, size_t expected) {
  std::string text;
  text.reserve(expected);
  char chunk[1 << 16];
  while (text.size() < limit) {
    const size_t want = static_cast<size_t>(std::min<uint64_t>(sizeof chunk, limit - text.size()));
    const ssize_t n = ::read(fd, chunk, want);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Error{"cannot read " + path + ": " + std::strerror(errno)};
    if (n == 0) break;
    text.append(chunk, static_cast<size_t>(n));
  }
  return text;
}

}  // namespace

bool IsPathBelow(std::string_view path) {
  if (path.empty() || path.front() == '/' || path.find('\0') != std::string_view::npos) {
    return false;
  }
  bool names_something = false;
  for (size_t start = 0; start <= path.size();) {
    size_t end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    const std::string_view part = path.substr(start, end - start);
    if (part == "..") return false;
    names_something |= !part.empty() && part != ".";
    start = end + 1;
  }
  return names_something;
}

std::string ByteSizeText(uint64_t bytes) {
  std::string text = std::to_string(bytes) + " bytes";
  constexpr uint64_t kMiB = uint64_t{1} << 20, kGiB = uint64_t{1} << 30;
  if (bytes < kMiB) return text;
  const bool gib = bytes >= kGiB;
  const uint64_t unit = gib ? kGiB : kMiB;
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, bytes % unit == 0 ? " (%.0f %s)" : " (%.1f %s)",
                static_cast<double>(bytes) / static_cast<double>(unit), gib ? "GiB" : "MiB");
  return text + buffer;
}

Result<int> OpenRegularFile(const std::string& path) {
  // O_NONBLOCK: opening a FIFO must not wait for a writer; the file type is
  // checked on the descriptor.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) return Error{"cannot read " + path + ": " + std::strerror(errno)};
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const int err = errno;
    ::close(fd);
    return Error{"cannot read " + path + ": " + std::strerror(err)};
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return Error{path + " is not a regular file (a FIFO, device or directory cannot be read " +
                 "as one; save it to a file)"};
  }
  // Reads of a regular file never wait anyway; callers expect a plain descriptor.
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  return fd;
}

Result<std::FILE*> OpenRegularFileStream(const std::string& path) {
  auto fd = OpenRegularFile(path);
  if (!fd) return Error{fd.error()};
  std::FILE* file = ::fdopen(*fd, "rb");
  if (file == nullptr) {
    const int err = errno;
    ::close(*fd);
    return Error{"cannot read " + path + ": " + std::strerror(err)};
  }
  return file;
}

Result<std::string> ReadInputFile(const std::string& path, uint64_t max_bytes,
                                  std::string_view how_to_raise) {
  const std::string raise =
      how_to_raise.empty() ? "" : " (" + std::string(how_to_raise) + ")";
  auto opened = OpenRegularFile(path);
  if (!opened) return Error{opened.error()};
  const int fd = *opened;
  ScopeExit close_fd([fd] { ::close(fd); });
  struct stat st {};
  if (::fstat(fd, &st) != 0) return Error{"cannot read " + path + ": " + std::strerror(errno)};
  const auto size = static_cast<uint64_t>(st.st_size);
  if (size > max_bytes) {
    return Error{path + " is " + ByteSizeText(size) + "; at most " + ByteSizeText(max_bytes) +
                 " are allowed" + raise};
  }
  // One byte past the limit: the file may have grown since fstat.
  const uint64_t limit = max_bytes == UINT64_MAX ? max_bytes : max_bytes + 1;
  auto text = ReadUpTo(fd, path, limit, static_cast<size_t>(size));
  if (text && text->size() > max_bytes) {
    return Error{path + " grew past " + ByteSizeText(max_bytes) +
                 ", the most allowed, while it was read" + raise};
  }
  return text;
}

bool IsRealDirectory(const std::string& path) {
  std::error_code ec;
  return std::filesystem::is_directory(std::filesystem::symlink_status(path, ec));
}

}  // namespace locksmith
