#include "backends/sentinel_event_watcher.h"

#include <atomic>

#include <array>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

namespace locksmith {
namespace asio = boost::asio;
using Clock = std::chrono::steady_clock;

struct SentinelEventWatcher::State {
  std::vector<Sentinel> sentinels;
  Sink sink;
  std::chrono::milliseconds ping;
  asio::io_context io;
  bool stopping = false;  // on the io thread only
  std::vector<std::unique_ptr<RedisConnection>> connections;
  std::vector<std::unique_ptr<asio::steady_timer>> timers;
  std::atomic<int> subscribed{0};  // sentinels whose every channel is confirmed now
};

namespace {

asio::awaitable<void> Sleep(asio::steady_timer& timer, std::chrono::milliseconds d) {
  timer.expires_after(d);
  boost::system::error_code ec;
  co_await timer.async_wait(asio::redirect_error(asio::use_awaitable, ec));
}

}  // namespace

ServiceEventKinds SentinelEventKinds() {
  return {.source = "sentinel",
          .reporter_field = "sentinel",
          .kinds = {
              {"+sdown", "a sentinel finds a node down (no valid reply within down-after)"},
              {"-sdown", "a sentinel finds a node it had found down answering again"},
              {"+odown", "a quorum of sentinels agrees that the master is down"},
              {"-odown", "the master is no longer down for a quorum of sentinels"},
              {"+switch-master", "the sentinels made a replica the master", true},
              {"+failover-end", "a failover is over: the replicas follow the new master"},
              {"+convert-to-slave", "a returning node was made a replica of the master"},
          }};
}

const std::vector<std::string>& SentinelEventWatcher::Channels() {
  static const std::vector<std::string> kChannels = [] {
    std::vector<std::string> channels;
    for (const ServiceEventKind& kind : SentinelEventKinds().kinds) channels.push_back(kind.name);
    return channels;
  }();
  return kChannels;
}

SentinelEventWatcher::SentinelEventWatcher(std::vector<Sentinel> sentinels, Sink sink,
                                           std::chrono::milliseconds ping)
    : state_(std::make_shared<State>()) {
  state_->sentinels = std::move(sentinels);
  state_->sink = std::move(sink);
  state_->ping = ping;
}

SentinelEventWatcher::~SentinelEventWatcher() { Stop(); }

void SentinelEventWatcher::Start() {
  if (thread_.joinable()) return;
  std::shared_ptr<State> s = state_;
  for (size_t i = 0; i < s->sentinels.size(); ++i) {
    s->connections.push_back(nullptr);
    s->timers.push_back(std::make_unique<asio::steady_timer>(s->io));
    asio::co_spawn(
        s->io,
        [s, i]() -> asio::awaitable<void> {
          static constexpr std::array<std::string_view, 1> kPing{"PING"};
          const std::string name = s->sentinels[i].name;
          while (!s->stopping) {
            RedisConnectionOptions o{s->sentinels[i].endpoint, s->ping};
            o.on_message = [s, name](const RedisReply& m) {
              if (s->stopping || m.elements.size() != 3) return;
              s->sink(name, m.elements[1].str, m.elements[2].str);
            };
            s->connections[i] = std::make_unique<RedisConnection>(s->io.get_executor(), o);
            RedisConnection& c = *s->connections[i];
            // One SUBSCRIBE per channel: each channel is confirmed by a reply
            // of its own, and a command takes one reply.
            RedisResponse r;
            for (const auto& channel : Channels()) {
              const std::array<std::string_view, 2> subscribe{"SUBSCRIBE", channel};
              r = co_await c.Command(subscribe, Clock::now() + 2 * s->ping);
              if (!r.ok()) break;
            }
            const bool confirmed = r.ok();
            if (confirmed) ++s->subscribed;
            while (r.ok() && !s->stopping) {
              co_await Sleep(*s->timers[i], s->ping);
              if (s->stopping) break;
              r = co_await c.Command(kPing, Clock::now() + 2 * s->ping);
            }
            if (confirmed) --s->subscribed;
            c.Close();
            if (!s->stopping) co_await Sleep(*s->timers[i], s->ping);
          }
        },
        asio::detached);
  }
  // No work guard: run() returns once every loop has ended after Stop().
  thread_ = std::thread([s] { s->io.run(); });
}

int SentinelEventWatcher::Subscribed() const { return state_->subscribed.load(); }

void SentinelEventWatcher::Stop() {
  if (!thread_.joinable()) return;
  std::shared_ptr<State> s = state_;
  asio::post(s->io, [s] {
    s->stopping = true;
    for (auto& t : s->timers) t->cancel();
    for (auto& c : s->connections) {
      if (c) c->Close();
    }
  });
  // Every wait ends at once (cancelled timers, closed connections), so each
  // loop sees `stopping` and ends, and run() returns.
  thread_.join();
  s->connections.clear();  // their callbacks hold the state
}

}  // namespace locksmith
