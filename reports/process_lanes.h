// ProcessLanes: which timeline lane each process of a history runs in. The
// nemesis first (fault ops read best above the clients), then the clients.
// A process whose op ended info never runs again and its worker continues
// as a new process (as in Jepsen), so one lane per process would leave
// hundreds of mostly empty lanes; instead processes whose lives do not
// overlap share a lane, preferring the lane freed most recently (usually
// the same worker), and lanes are ordered by their lowest process so p0,
// p1, ... read top-down. Built once, then read-only.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "history/history.h"

namespace locksmith {

class ProcessLanes {
 public:
  // `end_time`: the history's last time (a process never completed is busy
  // until then). `service_lane`: the label of the service's events' lane
  // (who reports them, reports/declared_events.h).
  static ProcessLanes Build(const History& history, int64_t end_time,
                            const std::string& service_lane = "service");

  // The lane of `process`; 0 for a process the history does not have.
  int32_t LaneOf(int64_t process) const;
  // "nemesis", "p0", "p3 +2" (two more processes later in that lane), the
  // service lane's, ...
  const std::vector<std::string>& labels() const { return labels_; }
  // The first process of each lane.
  const std::vector<int64_t>& first_process() const { return first_process_; }

  // "lanes":[labels],"lane_process":[first processes],"segments":{"lane",
  // "process","s"}: which process ran in which lane from when (sorted by
  // lane, then start).
  void AppendJson(std::string* out) const;

 private:
  std::vector<std::string> labels_;
  std::vector<int64_t> first_process_;
  std::unordered_map<int64_t, int32_t> lane_of_;
  std::vector<int32_t> segment_lane_;
  std::vector<int64_t> segment_process_, segment_start_;
};

}  // namespace locksmith
