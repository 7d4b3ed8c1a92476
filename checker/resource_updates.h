// ResourceUpdates: the read-modify-writes of a protected resource found in a
// history (the inventory and counter workloads'), read one op at a time: per
// worker process, each `write` with the `read` before it and the lock hold
// around it (the acquire that completed ok and the release invoked after
// it), and per key the final read. What the inventory and counter checkers
// judge, and the evidence they name: two writes that came from reads of the
// same value are two buyers whose updates overlapped -- one overwrote the
// other's. Not thread-safe; one per pass.
//
// History shape (one worker's process; see docs/history-format.md):
//   acquire ok {fence?} . read {fence?} -> ok {value} . write {value, read,
//   order?, fence?} -> ok | fail {rejected, highest} | info . release
// and of the resource process: init {value}, final -> ok {value, orders}.
//
// Memory: per key, counts; per process, its hold, its last read and the
// updates awaiting its release. An update is taken in invoke order (the
// pairs below are found in that order), so the updates invoked after one
// still in flight wait for it. What grows with the history: per distinct
// value read by an acknowledged write of a key, one ResourceUpdate (some
// 400 bytes with its allocations: five OpMarks, the values and the order;
// a valid counter of 1M events keeps 51 MiB) -- the first of a pair
// the next write reading that value would make -- until kPairsShown pairs
// are found, after which none; and one OpMark per negative read or sale
// (the inventory names them all).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "checker/completion_pairer.h"
#include "checker/op_marks.h"
#include "history/history.h"

namespace locksmith {

struct ResourceUpdate {
  int64_t process = 0;
  OpMark acquire;     // the acquire's ok, if any
  OpMark read;        // the read's ok completion, if any
  OpMark write;       // the write's invoke
  OpMark write_done;  // its completion, if one was recorded
  OpMark release;     // the release invoke after it, if any
  int64_t read_value = 0;     // what the read returned (the invoke's "read")
  int64_t value = 0;          // what it wrote
  std::string order;          // the order it recorded, or ""
  std::optional<int64_t> fence;  // the write's integer "fence"
  std::string other_fence;    // a fence that is not one, as JSON text
  OpType outcome = OpType::kInfo;  // ok, fail or info (info too when none)
  bool rejected = false;      // fail because its fence was stale
  bool settled = false;       // its completion (or its absence) is known

  bool MayHaveHappened() const { return outcome != OpType::kFail; }
};

struct ResourceFinal {
  int64_t invoked = -1;  // position of its invoke: the last one counts
  OpMark done;           // the final read's ok completion
  int64_t value = 0;
  int64_t orders = 0;    // how many orders it names
};

// How the updates of one key ended.
struct ResourceCounts {
  int64_t acknowledged = 0, maybe = 0, rejected = 0;
};

using UpdatePair = std::pair<std::shared_ptr<ResourceUpdate>, std::shared_ptr<ResourceUpdate>>;

struct ResourceKey {
  bool has_updates = false;
  ResourceCounts all;     // every update
  ResourceCounts orders;  // the updates that recorded an order
  // Write invokes of orders that may have happened with a value below 0,
  // in invoke order.
  std::vector<OpMark> negative_orders;
  // Ok reads below 0, in invoke order (with the invoke's position).
  std::vector<std::pair<int64_t, OpMark>> negative_reads;
  std::optional<ResourceFinal> final;
  int64_t rejected_reads = 0;
  // Acknowledged (ok) updates that read the same value as the last
  // acknowledged one before them (in invoke order) to read it: the first
  // kPairsShown such pairs.
  std::vector<UpdatePair> overlapping;

  // Updates by invoke position until they are taken in that order.
  std::map<int64_t, std::shared_ptr<ResourceUpdate>> waiting;
  // Read value -> the last acknowledged update that read it.
  std::unordered_map<int64_t, std::shared_ptr<ResourceUpdate>> last_by_read;
};

// A read or write completion the resource refused: fail {rejected: true}
// (its fence was below the highest the resource had accepted).
bool IsRejected(const Op& completion);

class ResourceUpdates {
 public:
  // Pairs of overlapping updates kept per key (each a proof; more add
  // nothing).
  static constexpr size_t kPairsShown = 5;

  void Observe(const Op& op);
  // Every key's updates, sorted by key; call once, after the last op.
  const std::map<std::string, ResourceKey>& Finish();

  // OpRef of a kept op (null for none).
  nlohmann::json Ref(const OpMark& mark) const { return marks_.Ref(mark); }
  // The ops that prove one update: its acquire, read, write (invoke and
  // completion) and release, as OpRefs, with the update's fields.
  nlohmann::json UpdateEvidence(const ResourceUpdate& update) const;
  // The key's overlapping pairs, each as {"buyers": [evidence, evidence]};
  // `ops` gets every OpRef they name.
  nlohmann::json OverlappingUpdates(const ResourceKey& key, nlohmann::json& ops) const;

 private:
  struct ProcessState {
    std::string acquire_key;
    OpMark acquire;
    std::string read_key;
    OpMark read;
    int64_t read_value = 0;
    int64_t invoked = -1;  // position of its open invoke
    std::shared_ptr<ResourceUpdate> writing;  // its write in flight
    std::string writing_key;
    // Updates awaiting its release, with their keys.
    std::vector<std::pair<std::string, std::shared_ptr<ResourceUpdate>>> open;
  };

  void OnInvoke(const Op& op, int64_t position);
  void OnWriteInvoke(ProcessState& p, const Op& op, int64_t position);
  void OnCompletion(const Op& invoke, const Op& op);
  // The write of `process` in flight ended with `done` (null: none).
  void Settle(ProcessState& p, const Op* done);
  // Takes the key's waiting updates in invoke order up to the first one
  // still in flight.
  void TakeSettled(ResourceKey& key);
  void Take(ResourceKey& key, const std::shared_ptr<ResourceUpdate>& u);

  int64_t position_ = 0;
  CompletionPairer pairer_{false};
  OpMarks marks_;
  std::unordered_map<int64_t, ProcessState> processes_;
  std::map<std::string, ResourceKey> keys_;
};

}  // namespace locksmith
