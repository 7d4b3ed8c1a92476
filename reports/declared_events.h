// DeclaredEvents: results.json's "service_events" (the kinds of events the
// run's lock service declares, backends/service_events.h), read leniently:
// the name of the service process's lane, which kinds announce a new
// leader (drawn as promotions) and the value field naming who reported an
// event. Knows no service by name. Anything missing or malformed (a
// results.json from anywhere) is left out: the lane is then "service" and
// no event a promotion. Built once, then read-only.
#pragma once

#include <set>
#include <string>

#include <nlohmann/json.hpp>

namespace locksmith {

class DeclaredEvents {
 public:
  static DeclaredEvents FromResults(const nlohmann::json& results);

  // The label of the service process's lane: who reports the events.
  const std::string& source() const { return source_; }
  // The value field naming an event's reporter; "" when none is declared.
  const std::string& reporter_field() const { return reporter_field_; }
  // Whether events named `f` announce a new leader ("from" -> "to").
  bool NewLeader(const std::string& f) const { return new_leader_.count(f) != 0; }

 private:
  std::string source_ = "service";
  std::string reporter_field_;
  std::set<std::string> new_leader_;
};

}  // namespace locksmith
