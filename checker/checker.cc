#include "checker/checker.h"

#include <unordered_map>

namespace locksmith {

nlohmann::json ValidityToJson(Validity v) {
  switch (v) {
    case Validity::kTrue: return true;
    case Validity::kFalse: return false;
    case Validity::kUnknown: return "unknown";
  }
  return "unknown";
}

Result<Validity> ValidityFromJson(const nlohmann::json& j) {
  if (j.is_boolean()) return j.get<bool>() ? Validity::kTrue : Validity::kFalse;
  if (j.is_string() && j.get<std::string>() == "unknown") return Validity::kUnknown;
  return Error{"\"valid\" must be true, false or \"unknown\""};
}

Validity MergeValidity(Validity a, Validity b) {
  if (a == Validity::kFalse || b == Validity::kFalse) return Validity::kFalse;
  if (a == Validity::kUnknown || b == Validity::kUnknown) return Validity::kUnknown;
  return Validity::kTrue;
}

int ExitCodeFor(Validity v) {
  switch (v) {
    case Validity::kTrue: return 0;
    case Validity::kFalse: return 1;
    case Validity::kUnknown: return 2;
  }
  return 2;
}

nlohmann::json CheckResult::ToJson() const {
  nlohmann::json j;
  j["valid"] = ValidityToJson(valid);
  j["anomalies"] = anomalies;
  j["stats"] = stats;
  if (!reason.empty()) j["reason"] = reason;
  if (!warnings.empty()) j["warnings"] = warnings;
  if (!summary.empty()) j["summary"] = summary;
  return j;
}

std::string NothingToJudge(const History& history,
                           const std::function<bool(const Op& invoke)>& judged) {
  // Pairs as PairCompletions does, but stops at the first op that counts:
  // in any real history that is a few ops in, not a pass over a million.
  std::unordered_map<int64_t, const Op*> open;  // process -> its open invoke
  for (const Op& op : history) {
    if (!op.is_client()) continue;
    if (op.type == OpType::kInvoke) {
      open[op.process] = &op;
      continue;
    }
    auto it = open.find(op.process);
    if (it == open.end() || it->second->f != op.f) continue;
    const Op& invoke = *it->second;
    open.erase(it);
    if (op.type == OpType::kOk && (!judged || judged(invoke))) return "";
  }
  // "no client operation succeeded" is what runs have always said; keep it.
  return "no client operation succeeded: no op has both an invoke and an ok completion, so "
         "there is nothing to judge";
}

void ApplyNothingToJudge(const History& history, CheckResult& result,
                         const std::function<bool(const Op& invoke)>& judged) {
  if (result.valid == Validity::kFalse) return;
  std::string reason = NothingToJudge(history, judged);
  if (reason.empty()) return;
  result.valid = Validity::kUnknown;
  result.reason = std::move(reason);
}

CompositeChecker::CompositeChecker(std::vector<std::unique_ptr<Checker>> checkers)
    : checkers_(std::move(checkers)) {}

CheckResult CompositeChecker::Check(const History& history) const {
  CheckResult merged;
  std::vector<std::string> reasons;
  for (const auto& checker : checkers_) {
    CheckResult r = checker->Check(history);
    merged.valid = MergeValidity(merged.valid, r.valid);
    for (auto anomaly : r.anomalies) {
      anomaly["checker"] = checker->Name();
      merged.anomalies.push_back(std::move(anomaly));
    }
    if (!r.reason.empty()) reasons.push_back(checker->Name() + ": " + r.reason);
    for (const auto& warning : r.warnings) merged.warnings.push_back(warning);
    merged.stats[checker->Name()] = r.ToJson();
    merged.stats[checker->Name()].erase("anomalies");
  }
  for (size_t i = 0; i < reasons.size(); ++i) {
    merged.reason += (i ? "; " : "") + reasons[i];
  }
  return merged;
}

nlohmann::json OpRef(const Op& op) {
  nlohmann::json j{{"index", op.index}, {"time", op.time}, {"type", OpTypeName(op.type)},
                   {"f", op.f}};
  if (op.is_nemesis()) {
    j["process"] = "nemesis";
  } else if (op.is_sentinel()) {
    j["process"] = "sentinel";
  } else {
    j["process"] = op.process;
  }
  if (!op.key.empty()) j["key"] = op.key;
  return j;
}

}  // namespace locksmith
