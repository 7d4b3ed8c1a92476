// The history's point events the report draws beside the fault windows,
// each kind in a lane of its own below every fault family's: the service's
// events of the kinds it declares a new leader (results.json's
// "service_events": the same promotion told by several of its reporters is
// one event naming them all) and the locks a client was told it lost. Pure;
// thread-safe.
#pragma once

#include <string>
#include <vector>

#include "history/history.h"
#include "reports/declared_events.h"
#include "reports/fault_view.h"
#include "reports/op_rows.h"

namespace locksmith {

// The events of `rows` (sorted by start), in time order.
std::vector<FaultView> HistoryEvents(const History& history, const std::vector<OpRow>& rows,
                                     const DeclaredEvents& declared);

// The look of an event lane (its order among the event lanes); nullptr
// when `family` is no event's.
const LaneLook* EventLaneLook(const std::string& family);

}  // namespace locksmith
