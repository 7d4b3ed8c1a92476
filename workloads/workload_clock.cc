#include "workloads/workload_clock.h"

#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

namespace locksmith {
namespace {

namespace asio = boost::asio;

class SteadyClock : public WorkloadClock {
 public:
  Clock::time_point Now() override { return Clock::now(); }
  asio::awaitable<bool> WaitUntil(Clock::time_point until) override {
    asio::steady_timer timer(co_await asio::this_coro::executor, until);
    boost::system::error_code ec;
    co_await timer.async_wait(asio::redirect_error(asio::use_awaitable, ec));
    co_return !ec;
  }
};

}  // namespace

WorkloadClock& SteadyWorkloadClock() {
  static SteadyClock clock;
  return clock;
}

}  // namespace locksmith
