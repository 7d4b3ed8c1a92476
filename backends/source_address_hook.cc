#include "backends/source_address_hook.h"

#include <arpa/inet.h>
#include <dlfcn.h>
#include <sys/socket.h>

namespace locksmith {
namespace {

thread_local const sockaddr_in* current_source = nullptr;

}  // namespace

Result<sockaddr_in> ScopedSourceAddress::Parse(const std::string& address) {
  sockaddr_in source{};
  source.sin_family = AF_INET;
  source.sin_port = 0;
  if (inet_pton(AF_INET, address.c_str(), &source.sin_addr) != 1) {
    return Error{"not an IPv4 address: \"" + address + "\""};
  }
  return source;
}

ScopedSourceAddress::ScopedSourceAddress(const sockaddr_in* source) : previous_(current_source) {
  current_source = source;
}

ScopedSourceAddress::~ScopedSourceAddress() { current_source = previous_; }

const sockaddr_in* ScopedSourceAddress::Current() { return current_source; }

}  // namespace locksmith

// The hook (see the header). A socket that is not IPv4, or one bound
// already, is left as it is; a bind that fails fails the connect with its
// errno, so the caller reports why.
extern "C" int connect(int fd, const sockaddr* address, socklen_t length) {
  using ConnectFunction = int (*)(int, const sockaddr*, socklen_t);
  static const auto libc_connect =
      reinterpret_cast<ConnectFunction>(dlsym(RTLD_NEXT, "connect"));
  const sockaddr_in* source = locksmith::ScopedSourceAddress::Current();
  if (source != nullptr && address != nullptr && address->sa_family == AF_INET) {
    sockaddr_in bound{};
    socklen_t bound_length = sizeof(bound);
    const bool unbound = getsockname(fd, reinterpret_cast<sockaddr*>(&bound), &bound_length) == 0 &&
                         bound.sin_family == AF_INET && bound.sin_port == 0;
    if (unbound &&
        bind(fd, reinterpret_cast<const sockaddr*>(source), sizeof(*source)) != 0) {
      return -1;
    }
  }
  return libc_connect(fd, address, length);
}
