#include "reports/fault_events.h"

#include <map>

#include "reports/escape.h"

namespace locksmith {
namespace {

constexpr char kPromotion[] = "promotion";
constexpr char kLockLost[] = "lock-lost";
// Reports of one promotion by several reporters come within this of each other.
constexpr int64_t kSamePromotionNs = 10'000'000'000;

std::string Field(const nlohmann::json& j, const std::string& name) {
  if (!j.is_object() || name.empty()) return "";
  auto it = j.find(name);
  if (it == j.end() || it->is_null()) return "";
  return it->is_string() ? it->get<std::string>() : DumpJson(*it);
}

// An event announcing a new leader: a new event, or its reporter's name
// added to the event of the same promotion another reporter told.
void AddPromotion(const Op& op, const nlohmann::json& value, int64_t at,
                  const std::string& reporter_field, std::vector<FaultView>* events) {
  const std::string reporter = Field(value, reporter_field);
  const std::string promotion = "promotion " + Field(value, "from") + " \xE2\x86\x92 " +
                                Field(value, "to") + (reporter_field.empty() ? "" : ", seen by");
  // The last event is this promotion (told by another reporter, if any).
  const auto same = [&](const FaultView& last) {
    return last.family == kPromotion && at - last.start < kSamePromotionNs &&
           (reporter_field.empty() ? last.label == promotion
                                   : last.label.rfind(promotion + " ", 0) == 0);
  };
  if (!events->empty() && same(events->back())) {
    if (!reporter.empty()) events->back().label += " " + reporter;
    return;
  }
  FaultView e;
  e.f = op.f, e.family = kPromotion, e.start = e.end = at, e.point = true;
  e.value = SanitizeUtf8(DumpJson(value));
  e.label = SanitizeUtf8(reporter_field.empty() ? promotion : promotion + " " + reporter);
  events->push_back(std::move(e));
}

FaultView LockLost(const Op& op, const nlohmann::json& value, const std::string& error,
                   int64_t at) {
  FaultView e;
  e.f = op.f, e.family = kLockLost, e.start = e.end = at, e.point = true;
  e.process = op.process;
  if (!value.is_null()) e.value = SanitizeUtf8(DumpJson(value));
  e.label = Truncated(SanitizeUtf8("p" + std::to_string(op.process) + " lost " + op.key +
                                   (error.empty() ? "" : ": " + error)),
                      300);
  return e;
}

}  // namespace

std::vector<FaultView> HistoryEvents(const History& history, const std::vector<OpRow>& rows,
                                     const DeclaredEvents& declared) {
  std::vector<FaultView> events;
  for (const OpRow& row : rows) {
    const Op& op = InvokeOf(history, row);
    if (op.is_service_event() && declared.NewLeader(op.f)) {
      AddPromotion(op, ValueOf(history, row), row.start, declared.reporter_field(), &events);
    } else if (op.is_client() && op.f == kLockLost) {
      const Op* done = CompletionOf(history, row);
      events.push_back(
          LockLost(op, ValueOf(history, row), done != nullptr ? done->error : op.error, row.start));
    }
  }
  return events;
}

const LaneLook* EventLaneLook(const std::string& family) {
  static const std::map<std::string, LaneLook> kLooks = {
      {kPromotion, {kPromotion, 0, "#2e7d32", ""}},
      {kLockLost, {kLockLost, 1, "#d84315", ""}},
  };
  auto it = kLooks.find(family);
  return it == kLooks.end() ? nullptr : &it->second;
}

}  // namespace locksmith
