#include "backends/pg_admin.h"

#include <exception>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>

namespace locksmith {

Result<std::vector<PgRow>> PgRunOnce(const PgEndpoint& endpoint, const std::string& sql,
                                     std::chrono::milliseconds timeout) {
  namespace asio = boost::asio;
  asio::io_context ioc;
  const auto deadline = PgConnection::Clock::now() + timeout;
  Result<std::vector<PgRow>> out = Error{"not run"};
  auto run = [&]() -> asio::awaitable<void> {
    PgConnection connection(ioc.get_executor(), endpoint);
    if (Status s = co_await connection.Connect(deadline); !s) {
      out = Error{s.error()};
      co_return;
    }
    const std::vector<std::string> no_params;
    PgResponse r = co_await connection.Query(sql, no_params, deadline);
    if (r.error != PgCallError::kNone) {
      out = Error{r.message};
    } else {
      out = std::move(r.rows);
    }
  };
  std::exception_ptr thrown;
  asio::co_spawn(ioc, run(), [&](std::exception_ptr e) { thrown = e; });
  ioc.run();
  if (thrown) std::rethrow_exception(thrown);
  return out;
}

}  // namespace locksmith
