// ExecHolds: the locks one exec client's worker holds by the harness's own
// reckoning (acquires the program answered ok, neither released since nor
// reported lost), against which each lock-lost event the program writes is
// judged: an event may end a hold the worker has, never make one up
// (docs/exec-clients.md, "Events"). An event for a hold whose release is in
// flight, or for one of the last few holds that ended, is stale (the program
// wrote it before it read the release, or on a thread of its own beside the
// release's reply): dropped, neither recorded nor an error. Any other is a
// protocol violation. Bounded: holds end, and only the last kRemembered
// ended ones are kept. Not thread-safe: one belongs to one client.
#pragma once

#include <cstddef>
#include <deque>
#include <string>
#include <vector>

namespace locksmith {

class ExecHolds {
 public:
  // Ended holds remembered for stale events; also the most holds kept (a
  // worker holds one lock, two with a re-entry: more means releases that
  // never came, and the oldest is forgotten).
  static constexpr size_t kRemembered = 8;

  enum class Verdict {
    kRecord,  // the event ends a hold the worker has: record it
    kStale,   // for a hold being released or just ended: drop it
    kRefuse,  // contradicts the worker's holds: a protocol violation
  };
  struct Judgement {
    Verdict verdict = Verdict::kRefuse;
    std::string token;  // kRecord: the hold's token (an event may leave it out)
    std::string why;    // kRefuse: what the event claimed, for the op's error
  };

  // An acquire answered ok: the worker holds `key` with `token`.
  void Acquired(const std::string& key, const std::string& token);
  // A release of `token` was sent / answered (whatever its outcome, the
  // worker's hold is over once it is answered).
  void Releasing(const std::string& token);
  void Released(const std::string& token);
  // A lock-lost event for `key` (and `token`; empty: the oldest hold of
  // `key`). kRecord ends that hold.
  Judgement Lost(const std::string& key, const std::string& token);

  size_t held() const { return holds_.size(); }

 private:
  struct Hold {
    std::string key;
    std::string token;
    bool releasing = false;
  };
  void End(std::vector<Hold>::iterator hold);
  bool EndedRecently(const std::string& key, const std::string& token) const;

  std::vector<Hold> holds_;  // oldest first
  std::deque<Hold> ended_;   // the last kRemembered ended, newest last
};

}  // namespace locksmith
