#include "backends/zk_admin.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>
#include <zookeeper/zookeeper.h>

#include <cerrno>
#include <charconv>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <sstream>

#include "backends/zk_library.h"

namespace locksmith {
namespace {

using Clock = std::chrono::steady_clock;

int MsLeft(Clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
  return left.count() < 0 ? 0 : static_cast<int>(left.count());
}

// Closes the descriptor on every path.
struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) close(fd);
  }
};

}  // namespace

Result<std::string> ZkFourLetterWord(const std::string& address, int port,
                                     const std::string& word, std::chrono::milliseconds timeout) {
  const std::string where = address + ":" + std::to_string(port);
  const auto deadline = Clock::now() + timeout;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  if (inet_pton(AF_INET, address.c_str(), &addr.sin_addr) != 1) {
    return Error{"'" + address + "' is not an IPv4 address"};
  }
  Fd s{socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0)};
  if (s.fd < 0) return Error{std::string("socket: ") + std::strerror(errno)};
  if (connect(s.fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 &&
      errno != EINPROGRESS) {
    return Error{where + ": " + std::strerror(errno)};
  }
  pollfd p{s.fd, POLLOUT, 0};
  if (poll(&p, 1, MsLeft(deadline)) != 1) return Error{where + ": connect timed out"};
  int err = 0;
  socklen_t len = sizeof(err);
  getsockopt(s.fd, SOL_SOCKET, SO_ERROR, &err, &len);
  if (err != 0) return Error{where + ": " + std::strerror(err)};
  if (send(s.fd, word.data(), word.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(word.size())) {
    return Error{where + ": cannot send " + word + ": " + std::strerror(errno)};
  }
  std::string answer;
  char buf[4096];
  while (true) {
    p = {s.fd, POLLIN, 0};
    if (poll(&p, 1, MsLeft(deadline)) != 1) {
      return Error{where + ": no complete answer to " + word + " within " +
                   std::to_string(timeout.count()) + " ms"};
    }
    const ssize_t n = recv(s.fd, buf, sizeof(buf), 0);
    if (n == 0) return answer;
    if (n < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      return Error{where + ": " + std::strerror(errno)};
    }
    answer.append(buf, static_cast<size_t>(n));
  }
}

Result<std::string> ParseZkMode(const std::string& srvr) {
  std::istringstream in(srvr);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("Mode: ", 0) == 0) {
      std::string mode = line.substr(6);
      while (!mode.empty() && (mode.back() == '\r' || mode.back() == ' ')) mode.pop_back();
      return mode;
    }
  }
  std::string shown = srvr.substr(0, 120);
  while (!shown.empty() && shown.back() == '\n') shown.pop_back();
  return Error{"srvr answered without a mode: '" + shown + "'"};
}

Result<int64_t> ParseZkConnectionEstablished(const std::string& cons, int64_t session_id) {
  char hex[32];
  std::snprintf(hex, sizeof(hex), "sid=0x%llx", static_cast<unsigned long long>(session_id));
  std::istringstream in(cons);
  for (std::string line; std::getline(in, line);) {
    if (line.find(std::string(hex) + ",") == std::string::npos &&
        line.find(std::string(hex) + ")") == std::string::npos) {
      continue;
    }
    const size_t at = line.find("est=");
    if (at == std::string::npos) break;
    int64_t ms = 0;
    const char* begin = line.data() + at + 4;
    auto [end, ec] = std::from_chars(begin, line.data() + line.size(), ms);
    if (ec != std::errc() || end == begin) break;
    return ms;
  }
  return Error{std::string("cons lists no connection with ") + hex + " and est="};
}

namespace {

// The state of one short session, filled in by the library's thread.
struct ProbeSession {
  std::mutex mu;
  std::condition_variable changed;
  bool connected = false;
};

void ProbeWatcher(zhandle_t*, int type, int state, const char*, void* context) {
  auto* probe = static_cast<ProbeSession*>(context);
  if (type != ZOO_SESSION_EVENT) return;
  std::lock_guard lock(probe->mu);
  probe->connected = state == ZOO_CONNECTED_STATE;
  probe->changed.notify_all();
}

}  // namespace

Result<int64_t> ZkWallClockNs(const std::string& address, int port,
                              std::chrono::milliseconds timeout) {
  QuietZkLibrary();
  const auto deadline = Clock::now() + timeout;
  const std::string where = address + ":" + std::to_string(port);
  ProbeSession probe;
  zhandle_t* zh = zookeeper_init(where.c_str(), ProbeWatcher,
                                 static_cast<int>(std::max<int64_t>(timeout.count(), 1000)),
                                 nullptr, &probe, 0);
  if (zh == nullptr) return Error{where + ": cannot open a session: " + std::strerror(errno)};
  Result<int64_t> result = Error{where + ": no session within " +
                                 std::to_string(timeout.count()) + " ms"};
  bool connected = false;
  {
    std::unique_lock lock(probe.mu);
    connected = probe.changed.wait_until(lock, deadline, [&] { return probe.connected; });
  }
  if (connected) {
    const int64_t session = zoo_client_id(zh)->client_id;
    auto cons = ZkFourLetterWord(address, port, "cons",
                                 std::chrono::milliseconds(std::max(MsLeft(deadline), 1)));
    if (!cons) {
      result = Error{cons.error()};
    } else {
      auto ms = ParseZkConnectionEstablished(*cons, session);
      result = ms ? Result<int64_t>(*ms * 1'000'000) : Result<int64_t>(Error{where + ": " +
                                                                              ms.error()});
    }
  }
  zookeeper_close(zh);
  return result;
}

}  // namespace locksmith
