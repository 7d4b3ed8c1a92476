#include "base/atomic_file.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>

namespace locksmith {

namespace {

constexpr size_t kBufferBytes = 1 << 16;

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

Result<std::unique_ptr<AtomicFileWriter>> AtomicFileWriter::Create(const std::string& path,
                                                                   bool private_file) {
  std::string pattern = path + ".tmp-XXXXXX";
  std::vector<char> name(pattern.begin(), pattern.end());
  name.push_back('\0');
  // mkostemp opens with O_CREAT | O_EXCL under a random name: an existing
  // name, a symbolic link included, is never opened.
  const int fd = ::mkostemp(name.data(), O_CLOEXEC);
  if (fd < 0) return Error{"cannot write " + path + ": " + Reason()};
  const std::string temp(name.data());
  if (::fchmod(fd, private_file ? 0600 : 0644) != 0) {
    const std::string message = "cannot set the mode of " + temp + ": " + Reason();
    ::close(fd);
    ::unlink(temp.c_str());
    return Error{message};
  }
  return std::unique_ptr<AtomicFileWriter>(new AtomicFileWriter(path, temp, fd));
}

AtomicFileWriter::AtomicFileWriter(std::string path, std::string temp, int fd)
    : path_(std::move(path)), temp_(std::move(temp)), fd_(fd) {}

AtomicFileWriter::~AtomicFileWriter() {
  if (fd_ >= 0) ::close(fd_);
  if (!committed_) ::unlink(temp_.c_str());
}

Status AtomicFileWriter::Flush() {
  if (fd_ < 0) return Error{"cannot write " + path_ + ": already closed"};
  if (!WriteAll(fd_, buffer_)) return Error{"cannot write " + path_ + ": " + Reason()};
  buffer_.clear();
  return OkStatus();
}

Status AtomicFileWriter::Write(std::string_view data) {
  if (buffer_.size() + data.size() > kBufferBytes) {
    if (auto s = Flush(); !s.ok()) return s;
    if (data.size() >= kBufferBytes) {
      if (!WriteAll(fd_, data)) return Error{"cannot write " + path_ + ": " + Reason()};
      return OkStatus();
    }
  }
  buffer_.append(data);
  return OkStatus();
}

Status AtomicFileWriter::Commit() {
  if (auto s = Flush(); !s.ok()) return s;
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) return Error{"cannot write " + path_ + ": " + Reason()};
  if (std::rename(temp_.c_str(), path_.c_str()) != 0) {
    return Error{"cannot rename " + temp_ + " to " + path_ + ": " + Reason()};
  }
  committed_ = true;
  return OkStatus();
}

Status WriteFileAtomically(const std::string& path, std::string_view content,
                           bool private_file) {
  auto writer = AtomicFileWriter::Create(path, private_file);
  if (!writer) return Error{writer.error()};
  if (auto s = (*writer)->Write(content); !s.ok()) return s;
  return (*writer)->Commit();
}

}  // namespace locksmith
