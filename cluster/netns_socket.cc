#include "cluster/netns_socket.h"

#include <fcntl.h>
#include <sched.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>

namespace locksmith {

Result<int> OpenSocketIn(const std::string& netns_path, int domain, int type, int protocol) {
  int fd = -1;
  std::string error;
  std::thread opener([&] {
    if (!netns_path.empty()) {
      const int ns = open(netns_path.c_str(), O_RDONLY | O_CLOEXEC);
      if (ns < 0) {
        error = "cannot open network namespace " + netns_path + ": " + std::strerror(errno);
        return;
      }
      const int entered = setns(ns, CLONE_NEWNET);
      const int err = errno;
      close(ns);
      if (entered != 0) {
        error = "cannot enter network namespace " + netns_path + ": " + std::strerror(err);
        return;
      }
    }
    fd = socket(domain, type | SOCK_CLOEXEC, protocol);
    if (fd < 0) error = std::string("cannot open a socket: ") + std::strerror(errno);
  });
  opener.join();
  if (fd < 0) return Error{error};
  return fd;
}

}  // namespace locksmith
