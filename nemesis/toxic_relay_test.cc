#include "nemesis/toxic_relay.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <future>
#include <thread>

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <gtest/gtest.h>

#include "backends/testing/pong_server.h"

namespace locksmith {
namespace {

constexpr char kPing[] = "*1\r\n$4\r\nPING\r\n";

// A relay on its own thread in front of a PongServer, and a blocking client
// of it whose reads give up after 0.5 s.
class RelayRig {
 public:
  RelayRig() : work_(io_.get_executor()), thread_([this] { io_.run(); }) {
    On([&] {
      relay_ = std::make_unique<ToxicRelay>(
          io_.get_executor(),
          []() -> Result<int> {
            const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
            if (fd < 0) return Error{"socket"};
            return fd;
          },
          7, ToxicRelay::Destination{"127.0.0.1", pong_.port()});
      auto port = relay_->Start();
      EXPECT_TRUE(port.ok()) << port.error();
      port_ = port.ok() ? *port : 0;
    });
  }
  ~RelayRig() {
    On([&] { relay_.reset(); });
    work_.reset();
    thread_.join();
  }
  void On(const std::function<void()>& work) {
    std::promise<void> done;
    boost::asio::post(io_, [&] {
      work();
      done.set_value();
    });
    done.get_future().wait();
  }
  // A connected client socket (closed by the caller), from `from`.
  int Connect(const char* from = "127.0.0.1") {
    const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    timeval timeout{0, 500000};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    sockaddr_in local{};
    local.sin_family = AF_INET;
    inet_pton(AF_INET, from, &local.sin_addr);
    EXPECT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&local), sizeof local), 0);
    sockaddr_in to{};
    to.sin_family = AF_INET;
    to.sin_port = htons(static_cast<uint16_t>(port_));
    to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(connect(fd, reinterpret_cast<sockaddr*>(&to), sizeof to), 0);
    return fd;
  }
  // Sends a PING and reads what comes back: "+PONG\r\n", or "" (nothing
  // within 0.5 s, or the connection ended).
  static std::string Ping(int fd) {
    if (send(fd, kPing, sizeof kPing - 1, MSG_NOSIGNAL) < 0) return "";
    return Read(fd);
  }
  static std::string Read(int fd) {
    char buf[64];
    const ssize_t n = recv(fd, buf, sizeof buf, 0);
    return n > 0 ? std::string(buf, static_cast<size_t>(n)) : "";
  }
  // The toxics for connections from `peer` (every client here comes from
  // 127.0.0.1 unless it binds another loopback address).
  void Set(const LinkToxics& toxics, const std::string& peer = "127.0.0.1") {
    On([&] { relay_->SetToxics(toxics, {peer}); });
  }
  RelayCounts Counts() {
    RelayCounts counts;
    On([&] { counts = relay_->Counts(); });
    return counts;
  }

 private:
  testing::PongServer pong_;
  boost::asio::io_context io_;
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> work_;
  std::thread thread_;
  std::unique_ptr<ToxicRelay> relay_;
  int port_ = 0;
};

TEST(ToxicRelayTest, WithoutToxicsItCarriesBothWaysAndCountsTheConnection) {
  RelayRig rig;
  const int fd = rig.Connect();
  EXPECT_EQ(RelayRig::Ping(fd), "+PONG\r\n");
  EXPECT_EQ(RelayRig::Ping(fd), "+PONG\r\n");
  close(fd);
  const RelayCounts counts = rig.Counts();
  EXPECT_EQ(counts.connections, 1);
  EXPECT_EQ(counts.connected, 1);
  EXPECT_EQ(counts.bytes, 2 * (int64_t{sizeof kPing - 1} + 7));
  EXPECT_EQ(counts.delayed_bytes, 0);
}

TEST(ToxicRelayTest, AStalledAnswerIsHeldUntilTheToxicsAreCleared) {
  RelayRig rig;
  const int fd = rig.Connect();
  EXPECT_EQ(RelayRig::Ping(fd), "+PONG\r\n");
  rig.Set(*ToxicsFromJson({{"mode", "stall"}, {"direction", "downstream"}}));
  // The request goes up; its answer is held: the read gives up.
  EXPECT_EQ(RelayRig::Ping(fd), "");
  rig.Set(LinkToxics{});
  EXPECT_EQ(RelayRig::Read(fd), "+PONG\r\n");
  close(fd);
  EXPECT_EQ(rig.Counts().delayed_bytes, 7);
}

TEST(ToxicRelayTest, OnlyTheSlowPeersConnectionsAreHit) {
  RelayRig rig;
  rig.Set(*ToxicsFromJson({{"mode", "stall"}}), "127.0.0.2");
  const int slow = rig.Connect("127.0.0.2");
  const int other = rig.Connect("127.0.0.3");
  EXPECT_EQ(RelayRig::Ping(other), "+PONG\r\n");
  EXPECT_EQ(RelayRig::Ping(slow), "");
  rig.Set(LinkToxics{}, "");
  EXPECT_EQ(RelayRig::Read(slow), "+PONG\r\n");
  close(slow);
  close(other);
}

TEST(ToxicRelayTest, AResetClosesTheConnectionsNowOpenAndEveryNewOne) {
  RelayRig rig;
  const int open_before = rig.Connect();
  EXPECT_EQ(RelayRig::Ping(open_before), "+PONG\r\n");
  rig.Set(*ToxicsFromJson({{"mode", "reset"}}));
  EXPECT_EQ(RelayRig::Ping(open_before), "");
  const int after = rig.Connect();
  EXPECT_EQ(RelayRig::Ping(after), "");
  close(open_before);
  close(after);
  const RelayCounts counts = rig.Counts();
  EXPECT_EQ(counts.resets, 2);
  EXPECT_EQ(counts.connections, 2);
}

TEST(ToxicRelayTest, ADelayedAnswerStillArrivesWhole) {
  RelayRig rig;
  rig.Set(*ToxicsFromJson({{"latency_ms", 20}, {"jitter_ms", 10}, {"bandwidth_kbs", 100}}));
  const int fd = rig.Connect();
  EXPECT_EQ(RelayRig::Ping(fd), "+PONG\r\n");
  close(fd);
  EXPECT_EQ(rig.Counts().delayed_bytes, int64_t{sizeof kPing - 1} + 7);
}

}  // namespace
}  // namespace locksmith

namespace locksmith {
namespace {

TEST(ToxicRelayTest, ClearingTheToxicsReleasesWhatIsHeldAndTheConnectionGoesOn) {
  RelayRig rig;
  rig.Set(*ToxicsFromJson({{"latency_ms", 150}}));
  const int fd = rig.Connect();
  EXPECT_EQ(RelayRig::Ping(fd), "+PONG\r\n");
  ASSERT_EQ(send(fd, kPing, sizeof kPing - 1, MSG_NOSIGNAL), static_cast<ssize_t>(sizeof kPing - 1));
  std::this_thread::sleep_for(std::chrono::milliseconds(50));  // the request is held upstream
  rig.Set(LinkToxics{});
  EXPECT_EQ(RelayRig::Read(fd), "+PONG\r\n");
  EXPECT_EQ(RelayRig::Ping(fd), "+PONG\r\n");
  // Held on the way back this time: the request went up 150 ms ago.
  rig.Set(*ToxicsFromJson({{"latency_ms", 150}}));
  ASSERT_EQ(send(fd, kPing, sizeof kPing - 1, MSG_NOSIGNAL), static_cast<ssize_t>(sizeof kPing - 1));
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  rig.Set(LinkToxics{});
  EXPECT_EQ(RelayRig::Read(fd), "+PONG\r\n");
  EXPECT_EQ(RelayRig::Ping(fd), "+PONG\r\n");
  close(fd);
}

}  // namespace
}  // namespace locksmith

namespace locksmith {
namespace {

TEST(ToxicRelayTest, ADelayOneWayStillArrivesWhileTheOtherWayIsUntouched) {
  RelayRig rig;
  rig.Set(*ToxicsFromJson({{"latency_ms", 100}, {"direction", "upstream"}}));
  const int fd = rig.Connect();
  EXPECT_EQ(RelayRig::Ping(fd), "+PONG\r\n");
  EXPECT_EQ(RelayRig::Ping(fd), "+PONG\r\n");
  close(fd);
  EXPECT_EQ(rig.Counts().delayed_bytes, 2 * int64_t{sizeof kPing - 1});
}

}  // namespace
}  // namespace locksmith
