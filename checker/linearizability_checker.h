// LinearizabilityChecker: the Checker the run lifecycle plugs in (see
// MakeLinearizabilityChecker in checker/check_file.h). It pairs invokes with
// completions, drops failed ops and nemesis ops, splits the history into
// independent partitions (Op::key, or jepsen.independent [key value]
// tuples), compiles each op for the model and runs one
// LinearizabilitySearch per partition, each with the budget's time (the
// search's alone: not the reading and compiling before it) and all of them
// within its memory.
// Stateless between calls; Check and Start may run on several threads at
// once.
#pragma once

#include <functional>
#include <string>

#include "checker/check_file.h"
#include "checker/checker.h"
#include "history/op_stream.h"

namespace locksmith {

// Check(history) checks the history in memory as CheckLinearizable does;
// a pass (Start) files each client op under its key (KeySpool: in memory up
// to 32 MiB, then in temporary files) and, at Finish, checks the keys on up
// to as many threads as the machine has cores (at most 4), each key with
// the whole budget, time and memory, and read back one op at a time where
// it can (CheckLinearizableKeyStream); keys whose checks hold more than
// 256 MiB together are checked one at a time, so that memory follows the
// largest key, not the threads. The merged
// result has CheckLinearizable's stats (sums over the keys; time_s the
// whole check's, peak_memory_bytes the largest key's). A client op's key is
// its own, or, for a completion without one, its process's last invoke's;
// a history without keys is one partition, checked whole. Beside a
// checker that keeps every op anyway, it checks that copy whole instead.
class LinearizabilityChecker : public Checker {
 public:
  explicit LinearizabilityChecker(LinearizabilityOptions options)
      : options_(std::move(options)) {}
  std::string Name() const override { return "linearizable-" + options_.model; }
  std::unique_ptr<CheckPass> Start() const override;
  bool PrefersKeptHistory() const override { return true; }

 protected:
  CheckResult CheckHistory(const History& history) const override;

 private:
  LinearizabilityOptions options_;
};

// CheckLinearizable for one key's ops: no error when the model checks none
// of them, and the nothing-to-judge rule left to the caller, which gets
// whether this key had nothing to judge in `*nothing_to_judge` (null: the
// rule applied as CheckLinearizable applies it).
Result<CheckResult> CheckLinearizableKey(const History& history,
                                         const LinearizabilityOptions& options,
                                         bool* nothing_to_judge);

// CheckLinearizableKey(ops read whole, options, &nothing_to_judge) for the
// ops of `key` read from `ops` (rewindable), without holding them where it
// can: for a lock model (mutex, owner-mutex, fenced-mutex, rw-lock) each op
// is compiled for the search as its completion comes, so that memory
// follows the compiled ops (some 90 bytes each) rather than the ops (some
// 400). Where the key is quiet (every op so far completed before a later
// one was invoked, none pending) after at least options.segment_ops ops,
// the ops so far are searched and let go, and the search goes on from the
// state they ended in: until a key's first pending op, memory follows a
// segment, not the key, however long the run (stats "segments": the
// searches the key took). Where the lease rule rewrites the ops (a failed
// release, a lock lost), they are read a second time, each rewritten as it
// comes. Where the compiled ops could give another result (ops without a
// key, which may be [key value] tuples; an op that does not compile; a
// refuted key, whose anomaly names ops and whose segment was searched from
// one of the states the ops before could leave) the ops are read again,
// whole, after `before_whole` (when given) has run: the caller may make
// room for them. The result is CheckLinearizableKey's, but for the stats of
// a key searched in segments, and a key undecided in one segment: not
// searched further, it is undecided, where the whole key's search could
// have been decided by a short window of the history after it.
Result<CheckResult> CheckLinearizableKeyStream(OpStream& ops, const std::string& key,
                                               const LinearizabilityOptions& options,
                                               bool& nothing_to_judge,
                                               const std::function<void()>& before_whole = nullptr);

}  // namespace locksmith
