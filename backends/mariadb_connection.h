// MariadbConnection: one client connection to a MariaDB server on a Boost.Asio
// executor, over libmariadb's non-blocking API (mysql_real_connect_start /
// _cont, mysql_real_query_start / _cont, mysql_store_result_start / _cont).
// While a call waits for the server, the coroutine waits on the connection's
// socket (mysql_get_socket, watched by a non-owning
// posix::stream_descriptor) or on the call's deadline, whichever comes
// first; the io_context's thread never blocks.
//
// Every call has a deadline. A call that passes it, a connection lost under
// it, or Close() while it waits, closes the connection (the socket is shut
// down first, so nothing more can reach the server and mysql_close cannot
// block) and reports whether the statement may have run: kInDoubt once its
// bytes may have left, kNotSent when it certainly did not run. An error the
// server answered (the statement did not run, or was rolled back) is
// kServerError with the server's error code. The next call reconnects.
//
// An idle connection the server dropped (a restart, an aborted TCP
// connection, wait_timeout) is noticed before the next statement is sent:
// its socket reads as closed, so the statement is not sent at all
// (kNotSent, `lost` set): a caller whose lock lived in that connection
// learns that it died with it.
//
// Thread-safety: none; use it from its executor only, one call at a time.
// Destroying it closes the connection.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>

#include "base/result.h"

namespace locksmith {

struct MariadbEndpoint {
  std::string host = "127.0.0.1";  // an IP literal
  uint16_t port = 3306;
  std::string user;
  std::string password;
  std::string database;
  // The local address the socket binds to (empty: the kernel's choice), so a
  // partition can cut this one client off.
  std::string source_address;
};

enum class SqlFailure {
  kNone,
  kNotSent,      // the statement certainly did not reach the server
  kInDoubt,      // it may have run: deadline, lost connection, Close()
  kServerError,  // the server answered with an error (`code`)
};

struct SqlReply {
  SqlFailure failure = SqlFailure::kNone;
  unsigned code = 0;   // the server's (or libmariadb's) error number
  std::string error;   // why, for a failure
  bool lost = false;   // kNotSent because the server had dropped the connection
  // A statement's rows (NULL as nullopt), and what it changed.
  std::vector<std::vector<std::optional<std::string>>> rows;
  uint64_t insert_id = 0;
  uint64_t affected_rows = 0;

  bool ok() const { return failure == SqlFailure::kNone; }
  // The first column of the first row, when there is one and it is not NULL.
  std::optional<std::string> Scalar() const;
};

class MariadbConnection {
 public:
  using Clock = std::chrono::steady_clock;

  MariadbConnection(boost::asio::any_io_executor executor, MariadbEndpoint endpoint);
  ~MariadbConnection();
  MariadbConnection(const MariadbConnection&) = delete;
  MariadbConnection& operator=(const MariadbConnection&) = delete;

  // Connected (as far as the client knows).
  bool connected() const;
  // Opens the connection unless it is open; an error says why not.
  boost::asio::awaitable<Status> Connect(Clock::time_point deadline);
  // Runs one statement, connecting first when needed and `may_connect` (a
  // connect that fails is kNotSent). A statement that belongs to the
  // session it follows (inside a transaction, the release of a session's
  // lock) passes false: without the connection it is kNotSent, never run on
  // a new session.
  boost::asio::awaitable<SqlReply> Query(const std::string& sql, Clock::time_point deadline,
                                         bool may_connect = true);
  // Closes the connection; a call waiting on it ends kInDoubt.
  void Close();
  // How many connections were opened.
  int64_t connects() const { return connects_; }

 private:
  struct State;
  std::unique_ptr<State> state_;
  int64_t connects_ = 0;
};

}  // namespace locksmith
