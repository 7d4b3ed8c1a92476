// ResourceUpdates: the read-modify-writes of a protected resource found in a
// history (the inventory and counter workloads'): per worker process, each
// `write` with the `read` before it and the lock hold around it (the acquire
// that completed ok and the release invoked after it), and per key the final
// read. What the inventory and counter checkers judge, and the evidence they
// name: two writes that came from reads of the same value are two buyers
// whose updates overlapped -- one overwrote the other's. Pure; thread-safe.
//
// History shape (one worker's process; see docs/history-format.md):
//   acquire ok {fence?} . read {fence?} -> ok {value} . write {value, read,
//   order?, fence?} -> ok | fail {rejected, highest} | info . release
// and of the resource process: init {value}, final -> ok {value, orders}.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "checker/history.h"

namespace locksmith {

struct ResourceUpdate {
  std::string key;
  int64_t process = 0;
  int64_t acquire = -1;       // history position of the acquire's ok, or -1
  int64_t read = -1;          // of the read's ok completion, or -1
  int64_t write = -1;         // of the write's invoke
  int64_t write_done = -1;    // of its completion, or -1 (none recorded)
  int64_t release = -1;       // of the release invoke after it, or -1
  int64_t read_value = 0;     // what the read returned (the invoke's "read")
  int64_t value = 0;          // what it wrote
  std::string order;          // the order it recorded, or ""
  OpType outcome = OpType::kInfo;  // ok, fail or info (info too when none)
  bool rejected = false;      // fail because its fence was stale

  bool MayHaveHappened() const { return outcome != OpType::kFail; }
};

struct ResourceFinal {
  int64_t position = -1;  // of the final read's ok completion
  int64_t value = 0;
  std::vector<std::string> orders;
};

struct ResourceKey {
  std::vector<ResourceUpdate> updates;  // in invoke order
  std::vector<int64_t> negative_reads;  // positions of ok reads below 0
  std::optional<ResourceFinal> final;
  int64_t rejected_reads = 0;
};

// A read or write completion the resource refused: fail {rejected: true}
// (its fence was below the highest the resource had accepted).
bool IsRejected(const Op& completion);

// Every key's updates, sorted by key.
std::map<std::string, ResourceKey> CollectResourceUpdates(const History& history);

// The ops that prove one update: its acquire, read, write (invoke and
// completion) and release, as OpRefs, with the update's fields.
nlohmann::json UpdateEvidence(const History& history, const ResourceUpdate& update);

// Pairs of acknowledged (ok) updates that read the same value (the
// later one overwrote the earlier one's update), at most `limit`, each as
// {"buyers": [evidence, evidence]}; `ops` gets every OpRef they name.
nlohmann::json OverlappingUpdates(const History& history, const ResourceKey& key, size_t limit,
                                  nlohmann::json& ops);

}  // namespace locksmith
