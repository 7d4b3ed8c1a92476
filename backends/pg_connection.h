// PgConnection: one PostgreSQL session over libpq's asynchronous API, driven
// from a Boost.Asio executor: PQconnectStartParams / PQconnectPoll to open it,
// PQsendQueryParams / PQflush / PQconsumeInput / PQisBusy / PQgetResult for a
// statement, and between them the coroutine waits on PQsocket through an
// asio posix::stream_descriptor that never owns the socket (released before
// PQfinish, which closes it). Every call has a deadline.
//
// All failures go through one place (Drop): a deadline passed, the
// connection lost or an unreadable answer ends the session (PQfinish) and
// the next Connect opens a new one, so a statement that timed out never
// leaves a stale answer for the next. Each failed statement says whether it
// certainly did not run (kNotSent: nothing was handed to the socket; or
// kRejected: the server answered with an error, which rolled the statement
// back) or may have run (kInDoubt). generation() counts the sessions opened,
// so a caller can tell that the session which took a lock has ended.
//
// Thread-safety: none; call it only from its executor (one call at a time).
// Destroying it ends the session.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <netinet/in.h>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>

#include "backends/pg_lock_sql.h"
#include "base/result.h"

struct pg_conn;

namespace locksmith {

// Where and as whom a session connects (numeric address: no name lookup).
struct PgEndpoint {
  std::string address = "127.0.0.1";
  int port = 5432;
  std::string user = "locksmith";
  std::string password;
  std::string database = "postgres";
  // The local address the session's socket is bound to (ScopedSourceAddress:
  // libpq cannot bind one itself); empty: the kernel's choice.
  std::string source_address;
};

enum class PgCallError {
  kNone,
  kNotSent,   // nothing left this process: it certainly did not run
  kRejected,  // the server answered with an error: rolled back, did not take effect
  kInDoubt,   // sent, then no answer in time or the session lost: it may have run
};

struct PgResponse {
  PgCallError error = PgCallError::kNone;
  std::string message;  // why, when error != kNone
  std::string sqlstate;  // the server's error code, for kRejected
  std::vector<PgRow> rows;
};

class PgConnection {
 public:
  using Clock = std::chrono::steady_clock;

  PgConnection(boost::asio::any_io_executor executor, PgEndpoint endpoint);
  ~PgConnection();
  PgConnection(const PgConnection&) = delete;
  PgConnection& operator=(const PgConnection&) = delete;

  // Opens a session unless one is open and alive (Alive); an error when none
  // is by `deadline`.
  boost::asio::awaitable<Status> Connect(Clock::time_point deadline);
  // Reads, without waiting, what the server sent while the session was idle:
  // false, and the session ended here too, when the server had closed it (a
  // killed server, a connection aborted under a partition), so a statement
  // is never sent into a session already known dead.
  bool Alive();
  // Runs one statement with text parameters ($1, $2, ...) in the open session.
  boost::asio::awaitable<PgResponse> Query(const std::string& sql,
                                           const std::vector<std::string>& params,
                                           Clock::time_point deadline);
  // Ends the session (if any); the next Connect opens a new one.
  void Close();

  bool connected() const { return conn_ != nullptr && ready_; }
  // Session attempts so far (each Connect that found none open): a lock taken
  // in one session is gone once this has moved on.
  uint64_t generation() const { return generation_; }
  // Sessions that were opened.
  int64_t sessions_opened() const { return sessions_opened_; }

 private:
  enum class Wait { kRead, kWrite };
  // Waits until the session's socket is ready for `wait`; false on the
  // deadline or an error (then why is in `why`).
  boost::asio::awaitable<bool> AwaitSocket(Wait wait, Clock::time_point deadline,
                                           std::string& why);
  boost::asio::awaitable<Status> PollConnect(Clock::time_point deadline);
  boost::asio::awaitable<PgResponse> Flush(Clock::time_point deadline);
  boost::asio::awaitable<PgResponse> Collect(Clock::time_point deadline);
  // Re-points the descriptor at PQsocket (which may change while connecting).
  bool TrackSocket(std::string& why);
  void Drop();
  PgResponse Failed(PgCallError error, std::string why);

  struct Socket;
  boost::asio::any_io_executor executor_;
  const PgEndpoint endpoint_;
  pg_conn* conn_ = nullptr;
  bool ready_ = false;
  std::unique_ptr<Socket> socket_;
  uint64_t generation_ = 0;
  int64_t sessions_opened_ = 0;
  std::optional<sockaddr_in> source_;  // endpoint_.source_address, parsed by Connect
};

}  // namespace locksmith
