// RunCoroutine: runs one coroutine on an io_context until it finishes and
// rethrows what it threw, so a test body can co_await lock clients. Test-only.
#pragma once

#include <exception>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>

namespace locksmith::testing {

template <typename F>
void RunCoroutine(boost::asio::io_context& ioc, F body) {
  std::exception_ptr error;
  boost::asio::co_spawn(ioc, body(), [&](std::exception_ptr e) {
    error = e;
    ioc.stop();
  });
  ioc.restart();  // the same io_context may serve several calls in one test
  ioc.run();
  if (error) std::rethrow_exception(error);
}

}  // namespace locksmith::testing
