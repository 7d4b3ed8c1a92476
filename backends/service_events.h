// The events a lock service reports of its own accord (a leader change, a
// node seen down, a session expired), as its backend declares them: each
// kind's name, a line saying what it means and whether it announces a new
// leader, and who reports them. A run records every event as an info op of
// the history's one service process (kServiceProcess, history/history.h)
// and lists the declaration in results.json ("service_events"), from which
// the reports draw the events without knowing the service
// (reports/declared_events.h). Plain values.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace locksmith {

// One event as the service reported it: recorded as an info op `f` with
// `value` of the service process.
struct ServiceEvent {
  std::string f;
  nlohmann::json value;
};

// One kind of event a service reports.
struct ServiceEventKind {
  std::string name;     // the event's op name (its `f`)
  std::string meaning;  // one line for people
  // The event announces a new leader (a replica promoted, a leader
  // elected): its value names the old one "from" and the new one "to", and
  // the report draws it in its promotion lane.
  bool new_leader = false;
};

// Every kind of event a service reports, and who reports them.
struct ServiceEventKinds {
  // Who reports the events: the name of their lane in the report.
  std::string source;
  // The value field naming which of several reporters told an event (each
  // of a service's watchers may tell the same one), so that the reports of
  // one new leader are drawn as one event naming them all; "" when there
  // is one reporter.
  std::string reporter_field;
  std::vector<ServiceEventKind> kinds;

  // {"source", "reporter_field", "kinds": [{"name", "meaning",
  // "new_leader"}]}: results.json's "service_events".
  nlohmann::json ToJson() const;
};

}  // namespace locksmith
