#include "base/random_secret.h"

#include <fcntl.h>
#include <sys/random.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "base/run_secrets.h"

namespace locksmith {
namespace {

// Fills `out` from /dev/urandom: for kernels without getrandom(2).
bool ReadUrandom(std::vector<unsigned char>& out) {
  const int fd = ::open("/dev/urandom", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  size_t done = 0;
  while (done < out.size()) {
    const ssize_t n = ::read(fd, out.data() + done, out.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
  ::close(fd);
  return done == out.size();
}

bool FillRandom(std::vector<unsigned char>& out) {
  size_t done = 0;
  while (done < out.size()) {
    const ssize_t n = ::getrandom(out.data() + done, out.size() - done, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno == ENOSYS && ReadUrandom(out);
    done += static_cast<size_t>(n);
  }
  return true;
}

}  // namespace

Result<std::string> RandomSecret(size_t bytes) {
  std::vector<unsigned char> raw(bytes);
  if (!FillRandom(raw)) {
    return Error{std::string("cannot draw a secret from the kernel's random source: ") +
                 std::strerror(errno)};
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string text;
  text.reserve(2 * bytes);
  for (unsigned char b : raw) {
    text.push_back(kHex[b >> 4]);
    text.push_back(kHex[b & 0xf]);
  }
  AddRunSecret(text);  // never printed nor kept by this process
  return text;
}

Result<std::string> NewServerPassword() {
  auto secret = RandomSecret();
  if (!secret) return Error{"server password: " + secret.error()};
  return "ls-" + *secret;
}

}  // namespace locksmith
