// SegmentedKeySearch: one key's linearizability search, segment by segment,
// as its ops are read (CheckLinearizableKeyStream). The key's ops are cut
// where the key is quiet (every op so far completed before any later op was
// invoked, and none is pending) once a segment has at least `segment_ops`
// ops, and each segment is searched as it is cut, from the state the one
// before it ended in. A valid key's segments chain into one linearization
// of the whole key, so memory follows a segment, not the key, however long
// the run. A segment refuted from that state proves nothing of the key
// (another linearization of the ops before could have ended elsewhere): the
// caller judges a refuted key again whole. An undecided segment leaves the
// key undecided, and the rest is not searched. The segments share the key's
// time: each key's search has the whole budget, whatever the number of its
// segments. Not thread-safe.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>

#include "checker/linearizability_search.h"
#include "checker/model.h"
#include "checker/partition_search.h"

namespace locksmith {

class SegmentedKeySearch {
 public:
  // The budget of a segment of `ops` ops searched now, after segments that
  // took `used` of the key's time.
  using MakeBudget =
      std::function<SearchBudget(std::chrono::steady_clock::duration used, size_t ops)>;

  SegmentedKeySearch(Model& model, MakeBudget budget, size_t segment_ops);

  // Called where the key is quiet, or at its end (`last`): searches the ops
  // gathered in `segment` (in completion order) once there are enough of
  // them, or any at the end, and empties it for the next.
  void Cut(Partition& segment, bool last);

  // Segments cut so far, searched or not.
  int64_t segments() const { return segments_; }
  // Valid when every segment is; else the first one that is not, with the
  // states explored and the peak memory of all.
  const PartitionVerdict& verdict() const { return verdict_; }

 private:
  void Search(Partition& segment);

  Model& model_;
  const MakeBudget budget_;
  const size_t segment_ops_;
  std::optional<ModelState> next_start_;
  std::chrono::steady_clock::duration used_{};
  PartitionVerdict verdict_;
  int64_t segments_ = 0;
  uint64_t states_ = 0, keys_ = 0;
  size_t peak_ = 0;
};

}  // namespace locksmith
