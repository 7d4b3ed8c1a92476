// ProgressCounter: what the live progress line shows, counted online from
// the ops as the run records them: client completions (ok / fail / info),
// the fault families in force (a nemesis op marking a window's begin opens
// its family, the one marking its end closes it), and a cheap double-holder
// count: an acquire that succeeds on a key while another client holds it
// (from its acquire's ok to its release's invoke; a holder whose client ended
// an op as info counts only until its lease ends; two read holds of a
// read-write lock may overlap). It is a hint while the run goes, not the
// verdict: the checkers judge the whole history afterwards. As a recorder it
// records through `inner`, then observes what was recorded. Thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "history/op_recorder.h"

namespace locksmith {

class ProgressCounter : public OpRecorder {
 public:
  struct Snapshot {
    int64_t ok = 0, fail = 0, info = 0;  // client completions
    std::vector<std::string> faults;     // families in force, sorted (Take() fills it)
    int64_t double_holders = 0;          // acquires granted over another's hold
    int64_t completions() const { return ok + fail + info; }
  };

  ProgressCounter() = default;  // observes only (Record() needs an inner recorder)
  explicit ProgressCounter(OpRecorder& inner) : inner_(&inner) {}

  // Takes what it counts of `op`, records it through the inner recorder
  // (which keeps it: never copied here), then counts it at its stamp.
  OpStamp Record(Op op) override;
  void Observe(const Op& op);
  Snapshot Take() const;

 private:
  struct Hold {
    bool shared = false;
    bool retired = false;   // its client ended an op as info: it may be gone
    int64_t lease_end = 0;  // ns; 0 when the lease is unknown
  };
  struct Pending {  // an acquire invoked (in flight while `valid`)
    bool valid = false;
    bool shared = false;
    int64_t lease_ms = 0;
  };
  // The holds on one key, by process: a few, in no order (swap-removed).
  using Holders = std::vector<std::pair<int64_t, Hold>>;

  // What the counts read of an op.
  struct Seen {
    int64_t process = 0;
    int64_t time = 0;
    OpType type = OpType::kInvoke;
    bool acquire = false;
    bool release = false;
    bool shared = false;      // an acquire's invoke asks for a read hold
    int64_t lease_ms = 0;     // an acquire's invoke: its lease_ms
    int64_t validity_ms = 0;  // an acquire's ok: its validity_ms
    std::string key;
    nlohmann::json fault;  // a nemesis op's fault mark
  };
  static Seen SeenOf(const Op& op);

  void ObserveSeen(const Seen& op);
  void ObserveNemesis(const Seen& op);
  void ObserveAcquireOk(const Seen& op);

  OpRecorder* inner_ = nullptr;
  mutable std::mutex mu_;
  Snapshot counts_;
  std::map<int64_t, std::string> open_windows_;  // fault window -> its family
  // Entries outlive their ops (an acquire's completion only invalidates
  // its process's, a release only empties its slot): at full speed no op
  // allocates here. A process that ended an op as info loses its entry.
  std::unordered_map<int64_t, Pending> pending_;      // process -> its acquire
  std::unordered_map<std::string, Holders> holds_;  // key -> its holds
};

}  // namespace locksmith
