// CompletionPairer: PairCompletions (history/history.h) one op at a time,
// for checkers that read a history as a stream. It keeps the open invokes
// only: one per process, and one per open fault mark of the nemesis, so its
// memory follows the processes and the faults in flight, not the history's
// length. The rules are PairCompletions' own, to the op. Not thread-safe.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "history/history.h"

namespace locksmith {

class CompletionPairer {
 public:
  // `with_values`: keep the invokes' values (and errors); without, the
  // invokes it gives back are RefOnly plus their fault mark, which is
  // cheaper for a pass that needs only their times and names.
  explicit CompletionPairer(bool with_values = true) : with_values_(with_values) {}

  // What one op meant for the pairing.
  struct Pairing {
    // The op is a completion of this invoke (a copy, valid until the next
    // Observe); null for an invoke or a lone completion.
    std::shared_ptr<const Op> invoke;
    // Invokes that can no longer be completed (their process invoked again):
    // PairCompletions leaves them unpaired.
    std::vector<std::shared_ptr<const Op>> abandoned;
  };

  Pairing Observe(const Op& op);
  // The invokes still open at the end of the history (in no set order).
  std::vector<std::shared_ptr<const Op>> StillOpen() const;

 private:
  const bool with_values_;
  // By process; null for a process with no invoke open.
  std::unordered_map<int64_t, std::shared_ptr<const Op>> open_;
  std::map<std::string, std::shared_ptr<const Op>> open_faults_;  // by fault mark
  // The invoke the last completion was paired with: reused by Keep once
  // the caller has let go of it.
  std::shared_ptr<const Op> given_;

  // A copy of the invoke `op` (RefOnly and its fault mark, without values).
  std::shared_ptr<const Op> Keep(const Op& op);
};

}  // namespace locksmith
