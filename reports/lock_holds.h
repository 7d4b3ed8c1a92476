// LockHolds: who held which lock when, recovered from the history as the
// double-holder checker sees it: [acquire ok, release invoke] per process
// and key, with the lease's end when the acquire said how long it was
// valid; a hold never released runs to the end of the run (open). Sorted
// by start. Built once, then read-only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "history/history.h"
#include "reports/interner.h"
#include "reports/process_lanes.h"

namespace locksmith {

class LockHolds {
 public:
  struct Hold {
    int64_t process = -1;
    int64_t start = 0, end = 0;
    int64_t lease_end = -1;  // -1: unknown
    bool open = false;       // never released
  };

  // `keys` numbers the keys (shared with the ops); `end_time` ends the
  // holds never released.
  static LockHolds Build(const History& history, const ProcessLanes& lanes, Interner* keys,
                         int64_t end_time);

  size_t size() const { return start_.size(); }
  // The hold the acquire with history index `acquire_index` began; nullptr
  // when it began none.
  const Hold* ByAcquire(int64_t acquire_index) const;

  // "holds":{"n","t0","rows","ids"} (the format: ReportModel::AppendJson).
  void AppendJson(std::string* out) const;

 private:
  void Add(int32_t key, int32_t lane, const Hold& hold, int64_t acquire_index);
  void SortByStart();

  std::vector<int32_t> key_, lane_;
  std::vector<Hold> holds_;
  std::vector<int64_t> start_, acquire_index_;
  std::unordered_map<int64_t, size_t> by_acquire_;
};

}  // namespace locksmith
