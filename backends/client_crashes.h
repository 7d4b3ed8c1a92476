// ClientCrashes: how the client-crash nemesis makes a worker vanish in the
// middle of an acquire, as a process killed there would. The nemesis (its
// own thread) asks for a crash; the next worker that reaches a crash point
// of an acquire (of `key` when given; only process `process` when given)
// takes it, so the crash always hits a worker that is acquiring, never an
// idle one. The worker then stops for good: its connection drops, it
// records nothing more, and its acquire stays open in the history (info at
// the end: it may have happened). The matching of a request to a worker is
// ClientPauses' mailbox (one request, taken once, awaited by the nemesis),
// with no duration. It is the client-crash family's worker half
// (ClientFaultFamily, backends/client_faults.h): it kills the worker at
// kAcquireAnswered, passed by a client with a crash point of its own
// there (redis-setnx-expire: SETNX won, PEXPIRE not sent) or else by the
// worker once its acquire was answered, the answer never read; whoever
// passed the point makes the crash (ClientFaultEffect::crashed). Thread-
// safe as ClientPauses: Request / AwaitTaken / Cancel from the nemesis
// thread, Take and At from the workload's thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "backends/client_faults.h"
#include "backends/client_pauses.h"

namespace locksmith {

class ClientCrashes : public ClientFaultFamily {
 public:
  // Who crashed: the worker's process and the key it was acquiring.
  struct Taken {
    int64_t process = 0;
    std::string key;
  };

  // Asks the next acquirer (of `key`, or of any key when empty; only process
  // `process` when given) to crash; replaces a request nobody took yet.
  void Request(std::string key = "", std::optional<int64_t> process = std::nullopt);
  // Waits until a worker crashed on the request, up to `wait`: who, or
  // nothing (no worker reached a crash point in that time: dropped).
  std::optional<Taken> AwaitTaken(std::chrono::milliseconds wait);
  // Drops a request nobody took (the heal; a crash that happened stays).
  void Cancel();
  // Called by a worker at a crash point of its acquire of `key`: true when
  // it must crash now. Consumes the request.
  bool Take(int64_t process, const std::string& key);

  // The worker half: at kAcquireAnswered the worker's process dies when a
  // request matches (`crashed`).
  boost::asio::awaitable<ClientFaultEffect> At(ClientFaultPoint point, ClientFaultTarget& target,
                                               const std::string& key) override;

 private:
  ClientPauses mailbox_;
};

}  // namespace locksmith
