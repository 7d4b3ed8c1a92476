#include "backends/mariadb_connection.h"

#include <poll.h>
#include <sys/socket.h>

#include <utility>
#include <variant>

#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <mysql.h>

namespace locksmith {
namespace {

using boost::asio::awaitable;
using boost::asio::use_awaitable;
using boost::asio::posix::stream_descriptor;
using Clock = MariadbConnection::Clock;

// libmariadb's client errors start here; below are the server's.
constexpr unsigned kFirstClientError = 2000;

// What waiting for the socket came to.
constexpr int kDeadlinePassed = 0;
constexpr int kClosedMeanwhile = -1;

// Waits until the socket is ready for what libmariadb asked (`status`);
// returns the MYSQL_WAIT_* event to continue with.
awaitable<int> WaitSocket(stream_descriptor& socket, int status) {
  using namespace boost::asio::experimental::awaitable_operators;
  const bool read = (status & (MYSQL_WAIT_READ | MYSQL_WAIT_EXCEPT)) != 0;
  const bool write = (status & MYSQL_WAIT_WRITE) != 0;
  if (read && write) {
    auto ready = co_await (socket.async_wait(stream_descriptor::wait_read, use_awaitable) ||
                           socket.async_wait(stream_descriptor::wait_write, use_awaitable));
    co_return ready.index() == 0 ? MYSQL_WAIT_READ : MYSQL_WAIT_WRITE;
  }
  if (write) {
    co_await socket.async_wait(stream_descriptor::wait_write, use_awaitable);
    co_return MYSQL_WAIT_WRITE;
  }
  co_await socket.async_wait(stream_descriptor::wait_read, use_awaitable);
  co_return MYSQL_WAIT_READ;
}

}  // namespace

std::optional<std::string> SqlReply::Scalar() const {
  if (rows.empty() || rows.front().empty()) return std::nullopt;
  return rows.front().front();
}

struct MariadbConnection::State {
  State(boost::asio::any_io_executor executor, MariadbEndpoint e)
      : endpoint(std::move(e)), socket(executor), timer(executor) {}

  // Waits for `status` or the deadline: the events to continue the call
  // with, kDeadlinePassed, or kClosedMeanwhile (then mysql is not ours to
  // touch any more).
  awaitable<int> Wait(int status, Clock::time_point deadline) {
    using namespace boost::asio::experimental::awaitable_operators;
    const uint64_t generation = this->generation;
    Clock::time_point until = deadline;
    bool library_timeout = false;
    if ((status & MYSQL_WAIT_TIMEOUT) != 0) {
      const auto asked =
          Clock::now() + std::chrono::milliseconds(mysql_get_timeout_value_ms(mysql));
      if (asked < until) {
        until = asked;
        library_timeout = true;
      }
    }
    if (!socket.is_open()) {
      const int fd = static_cast<int>(mysql_get_socket(mysql));
      if (fd < 0) co_return kDeadlinePassed;  // no socket to wait on: give up now
      socket.assign(fd);
    }
    timer.expires_at(until);
    int ready = kDeadlinePassed;
    try {
      auto first = co_await (WaitSocket(socket, status) || timer.async_wait(use_awaitable));
      if (generation != this->generation) co_return kClosedMeanwhile;
      if (first.index() == 0) {
        ready = std::get<0>(first);
      } else if (library_timeout) {
        ready = MYSQL_WAIT_TIMEOUT;
      }
    } catch (const boost::system::system_error&) {
      co_return kClosedMeanwhile;  // Close() cancelled the wait
    }
    co_return ready;
  }

  // Runs a started call (`status` from its _start) to its end with `cont`
  // (its _cont); false when the deadline passed or the connection was
  // closed meanwhile.
  template <typename Continue>
  awaitable<bool> Drive(int status, Continue cont, Clock::time_point deadline) {
    while (status != 0) {
      const int ready = co_await Wait(status, deadline);
      if (ready <= 0) co_return false;
      status = cont(ready);
    }
    co_return true;
  }

  // The server closed an idle connection: its socket reads (EOF, an error
  // packet) or has hung up, although no reply is due.
  bool PeerClosed() const {
    if (mysql == nullptr) return false;
    pollfd p{static_cast<int>(mysql_get_socket(mysql)), POLLIN | POLLRDHUP, 0};
    if (p.fd < 0) return true;
    return ::poll(&p, 1, 0) != 0;
  }

  void Close() {
    ++generation;
    timer.cancel();
    if (socket.is_open()) {
      boost::system::error_code ignored;
      socket.cancel(ignored);
      (void)socket.release();  // not ours: mysql_close closes it
    }
    if (mysql == nullptr) return;
    const int fd = static_cast<int>(mysql_get_socket(mysql));
    // Nothing more reaches the server, and mysql_close's goodbye cannot block.
    if (fd >= 0) ::shutdown(fd, SHUT_RDWR);
    mysql_close(mysql);
    mysql = nullptr;
  }

  const MariadbEndpoint endpoint;
  MYSQL* mysql = nullptr;
  bool handshaken = false;  // connected, the handshake done
  uint64_t generation = 0;
  stream_descriptor socket;  // non-owning: released before mysql_close
  boost::asio::steady_timer timer;
};

MariadbConnection::MariadbConnection(boost::asio::any_io_executor executor,
                                     MariadbEndpoint endpoint)
    : state_(std::make_unique<State>(std::move(executor), std::move(endpoint))) {}

MariadbConnection::~MariadbConnection() { Close(); }

bool MariadbConnection::connected() const {
  return state_->mysql != nullptr && state_->handshaken;
}

void MariadbConnection::Close() {
  state_->handshaken = false;
  state_->Close();
}

awaitable<Status> MariadbConnection::Connect(Clock::time_point deadline) {
  State& s = *state_;
  if (connected()) co_return OkStatus();
  Close();
  s.mysql = mysql_init(nullptr);
  if (s.mysql == nullptr) co_return Error{"mysql_init: out of memory"};
  mysql_options(s.mysql, MYSQL_OPT_NONBLOCK, nullptr);
  const unsigned protocol = MYSQL_PROTOCOL_TCP;
  mysql_options(s.mysql, MYSQL_OPT_PROTOCOL, &protocol);
  const MariadbEndpoint& e = s.endpoint;
  if (!e.source_address.empty()) mysql_options(s.mysql, MYSQL_OPT_BIND, e.source_address.c_str());
  ++connects_;
  const uint64_t generation = s.generation;
  MYSQL* done = nullptr;
  const int status =
      mysql_real_connect_start(&done, s.mysql, e.host.c_str(), e.user.c_str(), e.password.c_str(),
                               e.database.c_str(), e.port, nullptr, 0);
  const bool finished = co_await s.Drive(
      status, [&](int ready) { return mysql_real_connect_cont(&done, s.mysql, ready); }, deadline);
  const std::string where = e.host + ":" + std::to_string(e.port);
  if (generation != s.generation) co_return Error{"closed while connecting to " + where};
  if (!finished) {
    Close();
    co_return Error{"no connection to " + where + " before the deadline"};
  }
  if (done == nullptr) {
    std::string why = mysql_error(s.mysql);
    Close();
    co_return Error{"cannot connect to " + where + ": " + why};
  }
  s.handshaken = true;
  co_return OkStatus();
}

awaitable<SqlReply> MariadbConnection::Query(const std::string& sql, Clock::time_point deadline,
                                             bool may_connect) {
  State& s = *state_;
  SqlReply reply;
  if (connected() && s.PeerClosed()) {
    Close();
    reply.lost = true;
  }
  if (!connected() && !may_connect) {
    reply.failure = SqlFailure::kNotSent;
    reply.error = reply.lost ? "the server dropped the connection" : "not connected";
    co_return reply;
  }
  if (!connected()) {
    Status c = co_await Connect(deadline);
    if (!c) {
      reply.failure = SqlFailure::kNotSent;
      reply.error = (reply.lost ? "the server dropped the connection; " : "") + c.error();
      co_return reply;
    }
  }
  const uint64_t generation = s.generation;
  auto in_doubt = [&](std::string why) {
    if (generation == s.generation) Close();
    reply.failure = SqlFailure::kInDoubt;
    reply.error = std::move(why);
    return reply;
  };
  int failed = 0;
  int status = mysql_real_query_start(&failed, s.mysql, sql.data(), sql.size());
  if (!co_await s.Drive(
          status, [&](int ready) { return mysql_real_query_cont(&failed, s.mysql, ready); },
          deadline)) {
    co_return in_doubt("no reply before the deadline");
  }
  if (failed != 0) {
    reply.code = mysql_errno(s.mysql);
    if (reply.code >= kFirstClientError) co_return in_doubt(mysql_error(s.mysql));
    reply.failure = SqlFailure::kServerError;
    reply.error = mysql_error(s.mysql);
    co_return reply;
  }
  reply.insert_id = mysql_insert_id(s.mysql);
  reply.affected_rows = mysql_affected_rows(s.mysql);
  if (mysql_field_count(s.mysql) == 0) co_return reply;
  MYSQL_RES* result = nullptr;
  status = mysql_store_result_start(&result, s.mysql);
  if (!co_await s.Drive(
          status, [&](int ready) { return mysql_store_result_cont(&result, s.mysql, ready); },
          deadline)) {
    co_return in_doubt("no rows before the deadline");
  }
  if (result == nullptr) co_return in_doubt(mysql_error(s.mysql));
  const unsigned columns = mysql_num_fields(result);
  while (MYSQL_ROW row = mysql_fetch_row(result)) {
    auto& out = reply.rows.emplace_back();
    for (unsigned i = 0; i < columns; ++i) {
      out.push_back(row[i] == nullptr ? std::nullopt : std::optional<std::string>(row[i]));
    }
  }
  mysql_free_result(result);
  co_return reply;
}

}  // namespace locksmith
