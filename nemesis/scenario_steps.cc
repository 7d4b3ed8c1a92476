#include "nemesis/scenario_steps.h"

#include <algorithm>
#include <map>

#include "base/option_set.h"
#include "nemesis/targets.h"

namespace locksmith {
namespace {

constexpr int64_t kMaxStepMs = 86'400'000;

// obj[name] as whole milliseconds in [0, max], or `fallback` when absent.
Result<int64_t> Millis(const nlohmann::json& obj, const char* name, int64_t max, int64_t fallback) {
  auto it = obj.find(name);
  if (it == obj.end()) return fallback;
  if (!it->is_number_integer() || it->get<int64_t>() < 0 || it->get<int64_t>() > max) {
    return Error{std::string("\"") + name + "\" must be whole milliseconds, 0 to " +
                 std::to_string(max) + ", not " + QuoteInput(it->dump())};
  }
  return it->get<int64_t>();
}

Result<StepTrigger> ParseTrigger(const nlohmann::json& after) {
  if (!after.is_object() || !after.contains("f") || !after["f"].is_string() ||
      after["f"].get<std::string>().empty()) {
    return Error{"\"after\" must be {\"f\": an op such as \"acquire\", \"key\": optional}"};
  }
  StepTrigger trigger{after["f"].get<std::string>(), ""};
  if (after.contains("key")) {
    if (!after["key"].is_string()) return Error{"\"after\": \"key\" must be a string"};
    trigger.key = after["key"].get<std::string>();
  }
  for (const auto& [name, field] : after.items()) {
    if (name != "f" && name != "key") return Error{"\"after\": unknown key " + QuoteInput(name)};
  }
  return trigger;
}

// A target the value names, checked now (resolved when the fault starts).
Status CheckTarget(const nlohmann::json& value) {
  for (const char* name : {"target", "node"}) {
    if (!value.is_object() || !value.contains(name)) continue;
    if (!value[name].is_string()) return Error{std::string("\"") + name + "\" must be a string"};
    if (IsGrantedPlaceholder(value[name].get<std::string>())) continue;  // the event's nodes
    if (auto target = ParseTarget(value[name].get<std::string>()); !target) {
      return Error{target.error()};
    }
  }
  return OkStatus();
}

Result<ScheduledFault> ParseStep(const nlohmann::json& step,
                                 const std::vector<FamilyOpNames>& families, int64_t limit_ms) {
  if (!step.is_object()) return Error{"a step must be a JSON object"};
  for (const auto& [name, field] : step.items()) {
    static const char* kKeys[] = {"at_ms", "after", "delay_ms", "f", "value"};
    if (std::find_if(std::begin(kKeys), std::end(kKeys),
                     // An init-capture: clang 14 (the fuzz build) captures no binding.
                     [&name = name](const char* k) { return name == k; }) == std::end(kKeys)) {
      return Error{"unknown key " + QuoteInput(name) +
                   " (a step has at_ms or after, delay_ms, f, "
                   "value)"};
    }
  }
  ScheduledFault fault;
  if (!step.contains("f") || !step["f"].is_string()) return Error{"\"f\" names the fault op"};
  fault.op.f = step["f"].get<std::string>();
  std::string known;
  for (const auto& family : families) {
    const bool begins = std::find(family.begins.begin(), family.begins.end(), fault.op.f) !=
                        family.begins.end();
    if (begins || fault.op.f == family.end) {
      fault.mark.family = family.family;
      fault.mark.begins = begins;
    }
    for (const auto& name : family.begins) known += (known.empty() ? "" : ", ") + name;
    known += ", " + family.end;
  }
  if (fault.mark.family.empty()) {
    return Error{"unknown fault " + QuoteInput(fault.op.f) + " (known: " + known + ")"};
  }
  fault.op.value = step.value("value", nlohmann::json(nullptr));
  if (!fault.op.value.is_null() && !fault.op.value.is_object()) {
    return Error{"\"value\" must be a JSON object"};
  }
  if (Status s = CheckTarget(fault.op.value); !s) return Error{s.error()};
  const bool timed = step.contains("at_ms");
  if (timed == step.contains("after")) return Error{"give either \"at_ms\" or \"after\""};
  if (timed) {
    if (step.contains("delay_ms")) return Error{"\"delay_ms\" goes with \"after\", not \"at_ms\""};
    auto at = Millis(step, "at_ms", kMaxStepMs, 0);
    if (!at) return Error{at.error()};
    if (*at >= limit_ms) {
      return Error{"at " + std::to_string(*at) + " ms is not before the time limit (" +
                   std::to_string(limit_ms) + " ms): it would never run"};
    }
    fault.at_ms = *at;
  } else {
    auto trigger = ParseTrigger(step["after"]);
    if (!trigger) return Error{trigger.error()};
    fault.after = *trigger;
    auto delay = Millis(step, "delay_ms", kMaxStepMs, 0);
    if (!delay) return Error{delay.error()};
    fault.at_ms = *delay;
  }
  return fault;
}

}  // namespace

Result<std::vector<ScheduledFault>> ParseScenarioSteps(const nlohmann::json& steps,
                                                       const std::vector<FamilyOpNames>& families,
                                                       double time_limit_s) {
  if (!steps.is_array()) return Error{"\"steps\" must be a list of steps"};
  const int64_t limit_ms = static_cast<int64_t>(time_limit_s * 1000);
  std::vector<ScheduledFault> schedule;
  std::map<std::string, int64_t> open;  // family -> its open window
  int64_t windows = 0;
  int64_t last_at = 0;
  for (size_t i = 0; i < steps.size(); ++i) {
    const std::string where = "step " + std::to_string(i + 1) + ": ";
    auto fault = ParseStep(steps[i], families, limit_ms);
    if (!fault) return Error{where + fault.error()};
    fault->step = static_cast<int>(i + 1);
    if (!fault->after) {
      if (fault->at_ms < last_at) {
        return Error{where + "at " + std::to_string(fault->at_ms) + " ms is in the past: the " +
                     "step before it runs at " + std::to_string(last_at) + " ms (steps run in " +
                     "order)"};
      }
      last_at = fault->at_ms;
    }
    const std::string& family = fault->mark.family;
    if (fault->mark.begins) {
      if (open.contains(family)) {
        return Error{where + fault->op.f + " begins a " + family + " fault while one is open"};
      }
      open[family] = fault->mark.window = windows++;
    } else {
      auto it = open.find(family);
      if (it == open.end()) {
        return Error{where + fault->op.f + " ends no open " + family + " fault"};
      }
      fault->mark.window = it->second;
      open.erase(it);
    }
    schedule.push_back(std::move(*fault));
  }
  return schedule;
}

std::vector<std::string> FamiliesOfSteps(const std::vector<ScheduledFault>& steps) {
  std::vector<std::string> families;
  for (const auto& step : steps) {
    if (std::find(families.begin(), families.end(), step.mark.family) == families.end()) {
      families.push_back(step.mark.family);
    }
  }
  return families;
}

std::vector<StepTrigger> TriggersOfSteps(const std::vector<ScheduledFault>& steps) {
  std::vector<StepTrigger> triggers;
  for (const auto& step : steps) {
    if (step.after && std::find(triggers.begin(), triggers.end(), *step.after) == triggers.end()) {
      triggers.push_back(*step.after);
    }
  }
  return triggers;
}

}  // namespace locksmith
