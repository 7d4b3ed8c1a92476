// TcpRelay: an in-process TCP relay between one client library and the
// servers it talks to, on the client's executor. For each target it listens
// on a loopback port of its own; every connection accepted there is joined to
// a new connection to that target, and bytes are pumped both ways.
//
// Why: a client library that keeps its session alive on threads of its own
// (libzookeeper_mt) goes on heartbeating while the worker using it stalls,
// so a stalled worker is not a paused process. SetFrozen(true) stops the
// pumps: nothing the client sends reaches a server and nothing a server sends
// reaches the client, as when the whole client process is stopped (a long GC
// pause); the kernel buffers keep what was in flight, delivered on thaw.
//
// Thread-safety: none; every call on the executor's thread. Close() stops
// listeners and connections: the client library sees its connections end
// (and finds nobody listening when it reconnects), as with a server gone.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <boost/asio/any_io_executor.hpp>

#include "base/result.h"

namespace locksmith {

struct RelayTarget {
  std::string address;
  int port = 0;
};

class TcpRelay {
 public:
  // `source_address`: bind the connections to the targets to it when non-empty.
  TcpRelay(boost::asio::any_io_executor executor, std::vector<RelayTarget> targets,
           std::string source_address = "");
  ~TcpRelay();
  TcpRelay(const TcpRelay&) = delete;
  TcpRelay& operator=(const TcpRelay&) = delete;

  // Opens the listeners; the loopback endpoints, one per target, in order.
  Result<std::vector<RelayTarget>> Start();
  void SetFrozen(bool frozen);
  bool frozen() const;
  void Close();

  struct State;

 private:
  std::shared_ptr<State> state_;
};

}  // namespace locksmith
