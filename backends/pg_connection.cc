#include "backends/pg_connection.h"

#include <libpq-fe.h>

#include <array>
#include <optional>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/deferred.hpp>
#include <boost/asio/experimental/parallel_group.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "backends/source_address_hook.h"

namespace locksmith {
namespace {

namespace asio = boost::asio;

// libpq's message without its trailing newline.
std::string Trimmed(const char* message) {
  std::string s = message == nullptr ? "" : message;
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  for (char& c : s) {
    if (c == '\n') c = ' ';
  }
  return s;
}

}  // namespace

struct PgConnection::Socket {
  explicit Socket(asio::any_io_executor executor) : descriptor(std::move(executor)) {}
  asio::posix::stream_descriptor descriptor;
  int fd = -1;

  // Lets go of the socket without closing it: libpq owns it.
  void Release() {
    if (fd >= 0) (void)descriptor.release();
    fd = -1;
  }
};

PgConnection::PgConnection(asio::any_io_executor executor, PgEndpoint endpoint)
    : executor_(std::move(executor)),
      endpoint_(std::move(endpoint)),
      socket_(std::make_unique<Socket>(executor_)) {}

PgConnection::~PgConnection() { Drop(); }

void PgConnection::Close() { Drop(); }

void PgConnection::Drop() {
  socket_->Release();  // before PQfinish closes the socket
  if (conn_ != nullptr) PQfinish(conn_);
  conn_ = nullptr;
  ready_ = false;
}

PgResponse PgConnection::Failed(PgCallError error, std::string why) {
  PgResponse r;
  r.error = error;
  r.message = std::move(why);
  if (error != PgCallError::kRejected) Drop();
  return r;
}

bool PgConnection::TrackSocket(std::string& why) {
  // One numeric address, no SSL or GSS to fall back from: libpq keeps the
  // socket it opened for the whole session.
  const int fd = PQsocket(conn_);
  if (fd < 0) {
    why = "no socket: " + Trimmed(PQerrorMessage(conn_));
    return false;
  }
  if (fd == socket_->fd) return true;
  socket_->Release();
  boost::system::error_code ec;
  socket_->descriptor.assign(fd, ec);
  if (ec) {
    why = "cannot watch the socket: " + ec.message();
    return false;
  }
  socket_->fd = fd;
  return true;
}

asio::awaitable<bool> PgConnection::AwaitSocket(Wait wait, Clock::time_point deadline,
                                                std::string& why) {
  pg_conn* const conn = conn_;
  if (!TrackSocket(why)) co_return false;
  asio::steady_timer timer(executor_, deadline);
  const auto type = wait == Wait::kRead ? asio::posix::descriptor_base::wait_read
                                        : asio::posix::descriptor_base::wait_write;
  auto [order, timer_ec, socket_ec] =
      co_await asio::experimental::make_parallel_group(
          timer.async_wait(asio::deferred), socket_->descriptor.async_wait(type, asio::deferred))
          .async_wait(asio::experimental::wait_for_one(), asio::use_awaitable);
  (void)timer_ec;
  if (conn_ != conn || conn_ == nullptr) {
    why = "the session was closed";
    co_return false;
  }
  if (order[0] == 0) {
    why = "no answer by the deadline";
    co_return false;
  }
  if (socket_ec) {
    why = socket_ec.message();
    co_return false;
  }
  co_return true;
}

bool PgConnection::Alive() {
  if (!connected()) return false;
  if (PQconsumeInput(conn_) == 0 || PQstatus(conn_) == CONNECTION_BAD) {
    Drop();
    return false;
  }
  return true;
}

asio::awaitable<Status> PgConnection::Connect(Clock::time_point deadline) {
  if (Alive()) co_return OkStatus();
  Drop();
  const std::string port = std::to_string(endpoint_.port);
  // hostaddr: a numeric address, so libpq looks nothing up (that would block).
  const std::array<const char*, 9> keys = {"hostaddr", "port", "user", "password", "dbname",
                                           "sslmode", "gssencmode", "application_name",
                                           nullptr};
  const std::array<const char*, 9> values = {
      endpoint_.address.c_str(), port.c_str(), endpoint_.user.c_str(), endpoint_.password.c_str(),
      endpoint_.database.c_str(), "disable", "disable", "locksmith", nullptr};
  std::optional<sockaddr_in> source;
  if (!endpoint_.source_address.empty()) {
    auto parsed = ScopedSourceAddress::Parse(endpoint_.source_address);
    if (!parsed) co_return Error{"source address: " + parsed.error()};
    source = *parsed;
  }
  source_ = source;
  {
    // libpq opens its socket and connects in here, or in a PQconnectPoll.
    ScopedSourceAddress from(source_ ? &*source_ : nullptr);
    conn_ = PQconnectStartParams(keys.data(), values.data(), 0);
  }
  if (conn_ == nullptr) co_return Error{"libpq could not allocate a connection"};
  // libpq prints the server's notices and warnings (pg_advisory_unlock of a
  // lock not held) to stderr by default: the run's output is not theirs.
  PQsetNoticeProcessor(conn_, [](void*, const char*) {}, nullptr);
  if (PQstatus(conn_) == CONNECTION_BAD) {
    Status s = Error{"connect: " + Trimmed(PQerrorMessage(conn_))};
    Drop();
    co_return s;
  }
  ++generation_;
  co_return co_await PollConnect(deadline);
}

asio::awaitable<Status> PgConnection::PollConnect(Clock::time_point deadline) {
  const std::string where = endpoint_.address + ":" + std::to_string(endpoint_.port);
  PostgresPollingStatusType poll = PGRES_POLLING_WRITING;  // as after PQconnectStart
  for (;;) {
    if (poll == PGRES_POLLING_OK) break;
    if (poll == PGRES_POLLING_FAILED) {
      Status s = Error{"connect to " + where + ": " + Trimmed(PQerrorMessage(conn_))};
      Drop();
      co_return s;
    }
    std::string why;
    const Wait wait = poll == PGRES_POLLING_READING ? Wait::kRead : Wait::kWrite;
    if (!co_await AwaitSocket(wait, deadline, why)) {
      Drop();
      co_return Error{"connect to " + where + ": " + why};
    }
    ScopedSourceAddress from(source_ ? &*source_ : nullptr);
    poll = PQconnectPoll(conn_);
  }
  if (PQsetnonblocking(conn_, 1) != 0) {
    Status s = Error{"connect to " + where + ": " + Trimmed(PQerrorMessage(conn_))};
    Drop();
    co_return s;
  }
  ready_ = true;
  ++sessions_opened_;
  co_return OkStatus();
}

asio::awaitable<PgResponse> PgConnection::Query(const std::string& sql,
                                                const std::vector<std::string>& params,
                                                Clock::time_point deadline) {
  if (!connected()) co_return Failed(PgCallError::kNotSent, "not connected");
  std::vector<const char*> values;
  values.reserve(params.size());
  for (const auto& p : params) values.push_back(p.c_str());
  if (PQsendQueryParams(conn_, sql.c_str(), static_cast<int>(values.size()), nullptr,
                        values.data(), nullptr, nullptr, 0) == 0) {
    // Refused before the statement was complete on the wire (Sync is its
    // last message): the server cannot have run it.
    co_return Failed(PgCallError::kNotSent, "send: " + Trimmed(PQerrorMessage(conn_)));
  }
  PgResponse flushed = co_await Flush(deadline);
  if (flushed.error != PgCallError::kNone) co_return flushed;
  co_return co_await Collect(deadline);
}

asio::awaitable<PgResponse> PgConnection::Flush(Clock::time_point deadline) {
  for (;;) {
    const int left = PQflush(conn_);
    if (left == 0) co_return PgResponse{};
    if (left < 0) co_return Failed(PgCallError::kInDoubt, Trimmed(PQerrorMessage(conn_)));
    std::string why;
    if (!co_await AwaitSocket(Wait::kWrite, deadline, why)) {
      co_return Failed(PgCallError::kInDoubt, "send: " + why);
    }
  }
}

asio::awaitable<PgResponse> PgConnection::Collect(Clock::time_point deadline) {
  PgResponse response;
  for (;;) {
    while (PQisBusy(conn_) == 0) {
      PGresult* result = PQgetResult(conn_);
      if (result == nullptr) {
        if (PQstatus(conn_) == CONNECTION_BAD) {
          co_return Failed(PgCallError::kInDoubt, "session lost: " +
                                                      Trimmed(PQerrorMessage(conn_)));
        }
        co_return response;
      }
      const ExecStatusType status = PQresultStatus(result);
      if (status == PGRES_TUPLES_OK) {
        for (int row = 0; row < PQntuples(result); ++row) {
          PgRow fields;
          for (int col = 0; col < PQnfields(result); ++col) {
            if (PQgetisnull(result, row, col) != 0) {
              fields.emplace_back();
            } else {
              fields.emplace_back(PQgetvalue(result, row, col));
            }
          }
          response.rows.push_back(std::move(fields));
        }
      } else if (status != PGRES_COMMAND_OK) {
        const char* state = PQresultErrorField(result, PG_DIAG_SQLSTATE);
        response.error = PgCallError::kRejected;
        response.sqlstate = state == nullptr ? "" : state;
        response.message = Trimmed(PQresultErrorMessage(result));
      }
      PQclear(result);
    }
    std::string why;
    if (!co_await AwaitSocket(Wait::kRead, deadline, why)) {
      co_return Failed(PgCallError::kInDoubt, why);
    }
    if (PQconsumeInput(conn_) == 0) {
      co_return Failed(PgCallError::kInDoubt, "session lost: " + Trimmed(PQerrorMessage(conn_)));
    }
  }
}

}  // namespace locksmith
