// ScopedSourceAddress: makes the connect() calls a library makes on this
// thread come from a given local address. libpq opens its sockets itself and
// cannot bind one, yet each lock client must talk from an address of its
// own (a partition cuts one client off the server). While a
// ScopedSourceAddress lives on a thread, a connect() of an IPv4 socket made
// on that thread first binds the socket to the address (port 0: the kernel
// picks one). The hook is this binary's own `connect`, which the dynamic
// linker finds before libc's for every library the binary loads; it hands
// every call on to libc's, so without a scope on the thread nothing changes.
// Scopes nest; each is the thread's own (thread-safe by being per thread).
#pragma once

#include <netinet/in.h>

#include <string>

#include "base/result.h"

namespace locksmith {

class ScopedSourceAddress {
 public:
  // `address`: a numeric IPv4 address, or empty for none (connect as usual).
  // An address that does not parse is an error.
  static Result<sockaddr_in> Parse(const std::string& address);

  explicit ScopedSourceAddress(const sockaddr_in* source);
  ~ScopedSourceAddress();
  ScopedSourceAddress(const ScopedSourceAddress&) = delete;
  ScopedSourceAddress& operator=(const ScopedSourceAddress&) = delete;

  // The source of this thread's innermost scope, or null.
  static const sockaddr_in* Current();

 private:
  const sockaddr_in* const previous_;
};

}  // namespace locksmith
