#include "backends/sentinel_master_finder.h"

#include <array>
#include <charconv>
#include <sstream>

#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "backends/task_group.h"

namespace locksmith {
namespace asio = boost::asio;
using Clock = std::chrono::steady_clock;

struct SentinelMasterFinder::State {
  asio::any_io_executor executor;
  SentinelMasterFinderOptions options;
  size_t next = 0;  // the sentinel to ask first
  uint64_t switches = 0;
  bool watching = false;
  bool closed = false;
  std::unique_ptr<RedisConnection> watch;  // the subscribed connection
  asio::steady_timer timer;

  State(asio::any_io_executor ex, SentinelMasterFinderOptions o)
      : executor(ex), options(std::move(o)), timer(ex) {}
};

std::optional<std::pair<std::string, uint16_t>> ParseSwitchMaster(const std::string& payload,
                                                                  const std::string& master_name) {
  std::istringstream in(payload);
  std::string name, old_ip, old_port, ip, port;
  if (!(in >> name >> old_ip >> old_port >> ip >> port) || name != master_name) {
    return std::nullopt;
  }
  uint16_t value = 0;
  auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
  if (ec != std::errc() || end != port.data() + port.size()) return std::nullopt;
  return std::make_pair(ip, value);
}

SentinelMasterFinder::SentinelMasterFinder(asio::any_io_executor executor,
                                           SentinelMasterFinderOptions options)
    : state_(std::make_shared<State>(std::move(executor), std::move(options))) {}

SentinelMasterFinder::~SentinelMasterFinder() { Close(); }

uint64_t SentinelMasterFinder::switches() const { return state_->switches; }

void SentinelMasterFinder::Close() {
  state_->closed = true;
  state_->timer.cancel();
  if (state_->watch) state_->watch->Close();
}

asio::awaitable<Result<RedisEndpoint>> SentinelMasterFinder::Ask(Clock::time_point deadline) {
  std::shared_ptr<State> s = state_;
  const size_t n = s->options.sentinels.size();
  if (n == 0) co_return Error{"no sentinel to ask"};
  std::string why;
  for (size_t tried = 0; tried < n && !s->closed; ++tried) {
    const size_t i = (s->next + tried) % n;
    const auto now = Clock::now();
    if (now >= deadline) break;
    // Each remaining sentinel gets an equal share of what is left.
    const auto share = (deadline - now) / static_cast<int64_t>(n - tried);
    const auto budget = std::chrono::duration_cast<std::chrono::milliseconds>(share);
    const auto connect_budget = std::max(budget / 2, std::chrono::milliseconds(1));
    RedisConnection c(s->executor, {s->options.sentinels[i], connect_budget});
    const std::array<std::string_view, 3> args{"SENTINEL", "GET-MASTER-ADDR-BY-NAME",
                                               s->options.master_name};
    RedisResponse r = co_await c.Command(args, now + share);
    c.Close();
    const std::string where =
        s->options.sentinels[i].host + ":" + std::to_string(s->options.sentinels[i].port);
    if (!r.ok()) {
      why = where + ": " + r.message;
      continue;
    }
    if (r.reply.type != RedisReply::Type::kArray || r.reply.elements.size() != 2) {
      why = where + " answered " + r.reply.Describe();
      continue;
    }
    uint16_t port = 0;
    const std::string& p = r.reply.elements[1].str;
    auto [end, ec] = std::from_chars(p.data(), p.data() + p.size(), port);
    if (ec != std::errc() || end != p.data() + p.size()) {
      why = where + " answered a bad port " + p;
      continue;
    }
    s->next = i;
    co_return RedisEndpoint{r.reply.elements[0].str, port, s->options.master_password};
  }
  co_return Error{"no sentinel named the master" + (why.empty() ? "" : ": " + why)};
}

void SentinelMasterFinder::Watch() {
  if (state_->watching || state_->closed || state_->options.sentinels.empty()) return;
  state_->watching = true;
  BackgroundTasks(state_->executor)
      .Spawn("sentinel watch of " + state_->options.master_name, WatchLoop(state_));
}

asio::awaitable<void> SentinelMasterFinder::WatchLoop(std::shared_ptr<State> s) {
  size_t i = s->next;
  while (!s->closed) {
    RedisConnectionOptions o{s->options.sentinels[i % s->options.sentinels.size()],
                             s->options.watch_ping};
    std::weak_ptr<State> weak = s;
    o.on_message = [weak](const RedisReply& m) {
      auto st = weak.lock();
      if (!st) return;
      const RedisReply& payload = m.elements.back();
      if (ParseSwitchMaster(payload.str, st->options.master_name)) ++st->switches;
    };
    s->watch = std::make_unique<RedisConnection>(s->executor, std::move(o));
    static constexpr std::array<std::string_view, 2> kSubscribe{"SUBSCRIBE", "+switch-master"};
    static constexpr std::array<std::string_view, 1> kPing{"PING"};
    RedisResponse r =
        co_await s->watch->Command(kSubscribe, Clock::now() + 2 * s->options.watch_ping);
    while (r.ok() && !s->closed) {
      s->timer.expires_after(s->options.watch_ping);
      boost::system::error_code ec;
      co_await s->timer.async_wait(asio::redirect_error(asio::use_awaitable, ec));
      if (s->closed) break;
      r = co_await s->watch->Command(kPing, Clock::now() + 2 * s->options.watch_ping);
    }
    s->watch->Close();
    if (s->closed) break;
    // This sentinel is gone or stalled: we may have missed a switch.
    ++s->switches;
    ++i;
    s->timer.expires_after(s->options.watch_ping);
    boost::system::error_code ec;
    co_await s->timer.async_wait(asio::redirect_error(asio::use_awaitable, ec));
  }
}

}  // namespace locksmith
