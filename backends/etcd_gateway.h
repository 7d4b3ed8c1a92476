// EtcdGateway: HTTP/1.1 calls to etcd's JSON gateway (POST /v3/..., see
// etcd_gateway_codec.h) with Boost.Beast on a Boost.Asio executor, for one
// lock client or one probe. It keeps idle keep-alive connections to the
// member it talks to now and opens another when every one is busy, so a
// lease's keep-alives go on while the worker's own call waits for a lock.
//
// Every call has a deadline. A connect error, a deadline passed, a lost
// connection, or a reply that says the member cannot serve (no leader)
// moves the gateway to the next member (as etcd's own client balances),
// and the failed connection is closed, never reused. A call's outcome says
// whether its request may have reached the server: kNotSent (it certainly
// did not: no connection) or kNoAnswer (sent, or partly sent, and no
// reply: it may have been applied). A reused idle connection is checked for
// a close by the server first, so a stale one is never where a request
// goes in doubt.
//
// Thread-safety: none; call it on its executor only. Calls may overlap
// (each takes its own connection). Close() closes every connection; calls in
// flight complete as kNoAnswer (or kNotSent) and later ones as kNotSent. The
// gateway's state is shared with its calls, so it may be destroyed after
// Close while a call is still in flight.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>

#include "backends/etcd_gateway_codec.h"
#include "base/result.h"

namespace locksmith {

struct EtcdEndpoint {
  std::string address;  // an IP literal
  int port = 0;
};

struct EtcdCall {
  enum class Fate { kAnswered, kNotSent, kNoAnswer };
  Fate fate = Fate::kNotSent;
  EtcdReply reply;    // kAnswered: the reply (its error, when the server refused)
  std::string error;  // kNotSent / kNoAnswer: why
  std::string member;  // "address:port" of the member it went to

  bool answered_ok() const { return fate == Fate::kAnswered && reply.ok(); }
  // The server's refusal, or what kept an answer away: for messages.
  std::string Why() const;
};

class EtcdGateway {
 public:
  using Clock = std::chrono::steady_clock;

  // Starts with endpoint `first` (mod the count), so the clients of a run
  // spread over the members. `source_address` (an IP literal, may be empty)
  // is what every connection binds to before connecting.
  EtcdGateway(boost::asio::any_io_executor executor, std::vector<EtcdEndpoint> endpoints,
              std::string source_address, size_t first);
  ~EtcdGateway();
  EtcdGateway(const EtcdGateway&) = delete;
  EtcdGateway& operator=(const EtcdGateway&) = delete;

  // POSTs `body` (JSON) to `path` ("/v3/lease/grant") before `deadline`.
  boost::asio::awaitable<EtcdCall> Call(std::string path, std::string body,
                                        Clock::time_point deadline);
  void Close();

  // Connections opened so far (each after a failure or while others were busy).
  int64_t connections_opened() const;

 private:
  struct State;
  struct Connection;
  std::shared_ptr<State> state_;
};

// One call on a private io_context, for the service's probes on the run
// thread: the reply, or an error saying why there was none.
Result<EtcdReply> EtcdPostNow(const EtcdEndpoint& endpoint, const std::string& path,
                              const std::string& body, std::chrono::milliseconds timeout);

}  // namespace locksmith
