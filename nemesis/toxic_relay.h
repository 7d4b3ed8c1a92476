// ToxicRelay: the relay on one test host's slow links (the net-slow
// family). It listens on a socket of the host's own network
// (Host::OpenTcpSocket), where the family's REDIRECT rules send the links'
// new connections; for each connection it reads where it was going
// (SO_ORIGINAL_DST), connects there through another socket of the host's
// network marked kRelayMark (which the rules let pass, so the relay's own
// connection is not sent back to it), and pumps the bytes both ways through
// the toxics (nemesis/toxics.h) when the connection comes from or goes to
// one of the slow peers it was given: each chunk read is held until its
// delivery time, a stalled direction holds everything, and a reset
// connection is closed with an RST on both sides. Clearing the toxics
// releases whatever is held at once.
//
// An untoxic flow moves its bytes with splice(2) through a pipe of its own
// (no copy to user space): the relay at zero delay costs little.
//
// Deadlines: the onward connect gives up after kConnectTimeout (the client's
// connection is then reset); a chunk is never held past its delivery time,
// a stall never past the heal; Close() resets every connection and stops
// the listener.
//
// Thread-safety: none; every call on the executor's thread (the net-slow
// nemesis runs the relays on a thread of their own and posts its calls).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include <boost/asio/any_io_executor.hpp>
#include <nlohmann/json.hpp>

#include "base/result.h"
#include "nemesis/toxics.h"

namespace locksmith {

// The mark (SO_MARK) of the relay's onward connections.
inline constexpr int kRelayMark = 0x4c53;
inline constexpr std::chrono::milliseconds kConnectTimeout{2000};

// What a relay saw: the evidence that its link was slowed.
struct RelayCounts {
  int64_t connections = 0;    // accepted
  int64_t connected = 0;      // joined to their destination
  int64_t bytes = 0;          // read to be relayed, both ways
  int64_t delayed_bytes = 0;  // held for a latency, a bandwidth cap or a stall
  int64_t resets = 0;         // connections reset by the reset toxic

  nlohmann::json ToJson() const;
};

class ToxicRelay {
 public:
  // Makes a TCP socket of the host's network (an fd the relay then owns).
  using SocketMaker = std::function<Result<int>()>;
  struct Destination {
    std::string address;
    int port = 0;
  };

  // `fixed_destination`: where every connection goes, instead of where it
  // was going (a relay reached directly rather than through a REDIRECT:
  // tests and the bench). `seed`: the jitter's.
  ToxicRelay(boost::asio::any_io_executor executor, SocketMaker make_socket, uint64_t seed,
             std::optional<Destination> fixed_destination = std::nullopt);
  ~ToxicRelay();
  ToxicRelay(const ToxicRelay&) = delete;
  ToxicRelay& operator=(const ToxicRelay&) = delete;

  // Listens on every address of the host's network, on a port the kernel
  // picks; returns the port.
  Result<int> Start();
  // The toxics of the connections from or to `slow_peers` (addresses),
  // now and later; the others pass untouched (reset: such connections now
  // open are reset, and every new one as it comes).
  void SetToxics(const LinkToxics& toxics, std::set<std::string> slow_peers);
  RelayCounts Counts() const;
  // Resets every connection and stops listening; idempotent.
  void Close();

  struct State;

 private:
  std::shared_ptr<State> state_;
};

}  // namespace locksmith
