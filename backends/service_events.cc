#include "backends/service_events.h"

namespace locksmith {

nlohmann::json ServiceEventKinds::ToJson() const {
  nlohmann::json listed = nlohmann::json::array();
  for (const ServiceEventKind& kind : kinds) {
    listed.push_back(
        {{"name", kind.name}, {"meaning", kind.meaning}, {"new_leader", kind.new_leader}});
  }
  return {{"source", source}, {"reporter_field", reporter_field}, {"kinds", std::move(listed)}};
}

}  // namespace locksmith
