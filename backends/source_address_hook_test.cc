// ScopedSourceAddress: a connect() made on the thread while a scope lives
// comes from the scope's address; without one, from the kernel's choice.
#include "backends/source_address_hook.h"

#include <arpa/inet.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <string>

namespace locksmith {
namespace {

// A listening socket on 127.0.0.1 and an ephemeral port.
struct Listener {
  Listener() {
    fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)), 0);
    EXPECT_EQ(listen(fd, 4), 0);
    socklen_t n = sizeof(address);
    EXPECT_EQ(getsockname(fd, reinterpret_cast<sockaddr*>(&address), &n), 0);
  }
  ~Listener() { close(fd); }
  int fd = -1;
  sockaddr_in address{};
};

// Connects a new socket to `to` and returns the local address it got.
std::string ConnectFrom(const sockaddr_in& to) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  EXPECT_EQ(connect(fd, reinterpret_cast<const sockaddr*>(&to), sizeof(to)), 0);
  sockaddr_in local{};
  socklen_t n = sizeof(local);
  getsockname(fd, reinterpret_cast<sockaddr*>(&local), &n);
  close(fd);
  char text[INET_ADDRSTRLEN] = {};
  inet_ntop(AF_INET, &local.sin_addr, text, sizeof(text));
  return text;
}

TEST(ScopedSourceAddressTest, AConnectInsideAScopeComesFromItsAddress) {
  Listener server;
  auto source = ScopedSourceAddress::Parse("127.0.0.2");
  ASSERT_TRUE(source.ok()) << source.error();
  {
    ScopedSourceAddress from(&*source);
    EXPECT_EQ(ConnectFrom(server.address), "127.0.0.2");
    auto inner = ScopedSourceAddress::Parse("127.0.0.3");
    ASSERT_TRUE(inner.ok());
    {
      ScopedSourceAddress nested(&*inner);
      EXPECT_EQ(ConnectFrom(server.address), "127.0.0.3");
    }
    EXPECT_EQ(ConnectFrom(server.address), "127.0.0.2");
  }
  EXPECT_EQ(ScopedSourceAddress::Current(), nullptr);
  EXPECT_EQ(ConnectFrom(server.address), "127.0.0.1");
}

TEST(ScopedSourceAddressTest, AnAddressThatDoesNotParseIsAnError) {
  auto bad = ScopedSourceAddress::Parse("198.19.0.300");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error(), "not an IPv4 address: \"198.19.0.300\"");
}

}  // namespace
}  // namespace locksmith
