// FaultView and FaultLane: a fault window or a point event as the report
// tells it, and the lane of fault bars it is drawn in. Plain values.
#pragma once

#include <cstdint>
#include <string>

#include "reports/described_faults.h"

namespace locksmith {

// A fault window, or a point event (no duration).
struct FaultView {
  std::string f;        // the op that began it ("kill"), or the service event
  std::string family;   // its lane's family: the nemesis family, or the event's kind
  int64_t window = -1;  // the run's window number (-1 for a point event)
  int64_t start = 0;
  int64_t end = 0;
  bool open = false;      // never healed: shaded to the end of the run
  bool point = false;     // an event at `start`
  bool effective = true;  // false: its begin op failed and hit nothing
  std::string value;      // the op's value (JSON text)
  std::string label;      // for people: "kill n1", "clock-bump n3 +10 s", ...
  int64_t process = -1;   // the client it hit, or whose lock was lost
};

// A lane of fault bars: a family and how it looks.
struct FaultLane {
  std::string family;
  LaneLook look;
};

}  // namespace locksmith
