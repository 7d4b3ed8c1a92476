// FaultTimeline: the run's faults as the report draws them: each fault
// window from the marks the run recorded on nemesis ops (a begin opens its
// window, the end with the same number closes it; one never closed shades
// to the end of the run), told by results.json's fault descriptions, then
// the history's point events (reports/fault_events.h: which service events
// are promotions, results.json's declared service events say); and their lanes,
// top-down: the described families by their order, the event lanes, then
// families results.json does not describe (a neutral lane each, by name).
// Knows no family by name: what a family looks like comes from the data.
// Built once, then read-only.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "history/history.h"
#include "reports/declared_events.h"
#include "reports/described_faults.h"
#include "reports/fault_view.h"
#include "reports/op_rows.h"

namespace locksmith {

class FaultTimeline {
 public:
  static FaultTimeline Build(const History& history, const std::vector<OpRow>& rows,
                             int64_t end_time, const DescribedFaults& described,
                             const DeclaredEvents& declared);

  // Fault windows in begin order, then point events in time order.
  const std::vector<FaultView>& faults() const { return faults_; }
  const std::vector<FaultLane>& lanes() const { return lanes_; }
  // The lane of each fault.
  const std::vector<int32_t>& fault_lane() const { return fault_lane_; }
  // The lane of `family`'s faults; -1 when it has none.
  int32_t LaneOf(const std::string& family) const;

  // "faults":[{"f","family","lane","s","e","open","point","ok","proc",
  // "label","value"}],"fault_lanes":[{"label","color","mark"}]
  void AppendJson(std::string* out) const;

 private:
  void SortLanes(const DescribedFaults& described);

  std::vector<FaultView> faults_;
  std::vector<FaultLane> lanes_;
  std::vector<int32_t> fault_lane_;
};

}  // namespace locksmith
