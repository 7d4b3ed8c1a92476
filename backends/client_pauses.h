// ClientPauses: how the client-pause nemesis makes a lock holder stall
// inside its critical section, like a long GC pause, then carry on as if it
// still held the lock. The nemesis (its own thread) asks for a stall; the
// next worker that is inside a critical section when it checks takes it
// (workers check right after a successful acquire and again before they
// release), so the stall always hits a holder, never an idle worker. The
// worker records the stall in the history as its own op pair ("pause").
// A request may instead be for the in-flight point (PausePoint::kInFlight):
// a client inside an acquire whose replies granted the lock, before it reads
// its clock to judge them (a client's own kAcquireInFlight point,
// LockClient::SetFaultPointHook); only such a
// client takes it, and it may carry a step of that client's wall clock.
// Or for the release-in-flight point (PausePoint::kReleaseInFlight): a
// client whose release request the server answered, before it reads the
// reply (its own kReleaseInFlight point): a stall past the call's
// deadline leaves the release in doubt, as a reply lost on its way would.
// It is the client-pause family's worker half (ClientFaultFamily, see
// backends/client_faults.h): at the holder points (kCriticalSection,
// kBeforeRelease) a holder takes a kHolder stall, recorded as a "pause" op
// pair; at kAcquireInFlight and kReleaseInFlight a client takes the stall of
// that point, recorded as two lone "pause" ops ("at", "phase": begin / end).
// Thread-safe (one mutex): Request / Cancel from the nemesis thread, Take
// and At from the workload's thread.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>

#include "backends/client_faults.h"

namespace locksmith {

// Where a stall hits the client: inside its critical section (a holder),
// inside an acquire whose replies are in flight (granted, not yet judged),
// or inside a release whose reply is in flight (answered, not yet read).
enum class PausePoint { kHolder, kInFlight, kReleaseInFlight };

// "holder" / "in-flight" / "release-in-flight", as options and the history
// spell them.
const char* PausePointName(PausePoint point);

class ClientPauses : public ClientFaultFamily {
 public:
  // What the client must do at the point: stall `duration`; meanwhile its
  // wall clock steps by `clock_step` (in-flight only; 0: not at all).
  struct Stall {
    std::chrono::milliseconds duration{0};
    std::chrono::milliseconds clock_step{0};
  };
  // Who took a stall: the worker's process and the key it held.
  struct Taken {
    int64_t process = 0;
    std::string key;
    std::chrono::milliseconds duration{0};
    PausePoint point = PausePoint::kHolder;
    std::chrono::milliseconds clock_step{0};
  };

  // Asks the next holder (of `key`, or of any key when empty; only process
  // `process` when given) to stall for `duration`; replaces a request
  // nobody took yet. Returns at once.
  void Request(std::chrono::milliseconds duration, std::string key = "",
               std::optional<int64_t> process = std::nullopt);
  // The same for `point`; `clock_step` only with PausePoint::kInFlight.
  void RequestAt(PausePoint point, Stall stall, std::string key = "",
                 std::optional<int64_t> process = std::nullopt);
  // Waits until a holder took the request, up to `wait`: who it was, or
  // nothing (no client held a lock in that time: the request is dropped).
  std::optional<Taken> AwaitTaken(std::chrono::milliseconds wait);
  // Drops a request nobody took (the heal).
  void Cancel();

  // Called by a worker holding `key`: the stall it must take now, if a
  // request matches. Consumes the request.
  std::optional<std::chrono::milliseconds> Take(int64_t process, const std::string& key);
  // Called by a client of `process` at `point` on `key` (a holder: as Take).
  std::optional<Stall> TakeAt(PausePoint point, int64_t process, const std::string& key);

  // The worker half: takes the stall asked for at `point` and stalls
  // `target` (its client paused: LockClient::SetPaused), recording it.
  boost::asio::awaitable<ClientFaultEffect> At(ClientFaultPoint point, ClientFaultTarget& target,
                                               const std::string& key) override;

 private:
  std::mutex mu_;
  std::condition_variable taken_cv_;
  std::optional<Stall> requested_;
  PausePoint requested_point_ = PausePoint::kHolder;
  std::string requested_key_;
  std::optional<int64_t> requested_process_;
  uint64_t generation_ = 0;  // bumped by each Request
  std::optional<Taken> taken_;
  uint64_t taken_generation_ = 0;
};

}  // namespace locksmith
