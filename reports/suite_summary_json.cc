#include "reports/suite_summary_json.h"

#include <vector>

#include "reports/suite_stats.h"

namespace locksmith {
namespace {

nlohmann::json Optional(const std::optional<double>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

nlohmann::json GroupJson(const RunGroup& g) {
  return {{"runs", g.runs},
          {"judged", g.judged},
          {"violations", g.violations},
          {"violation_rate", g.judged ? nlohmann::json(double(g.violations) / g.judged) : nullptr},
          {"wilson_95", {g.rate.low, g.rate.high}},
          {"median_first_violation_s", Optional(g.median_first_violation_s)},
          {"mean_availability_inside", Optional(g.mean_availability_inside)},
          {"mean_availability_outside", Optional(g.mean_availability_outside)},
          {"mean_answered_inside", Optional(g.mean_answered_inside)},
          {"mean_answered_outside", Optional(g.mean_answered_outside)},
          {"median_acquire_p50_ms", Optional(g.median_acquire_p50_ms)},
          {"median_acquire_p99_ms", Optional(g.median_acquire_p99_ms)},
          {"mean_grants_per_s", Optional(g.mean_grants_per_s)},
          {"mean_in_doubt", Optional(g.mean_in_doubt)},
          {"mean_unanswered_inside", Optional(g.mean_unanswered_inside)},
          {"mean_unanswered_outside", Optional(g.mean_unanswered_outside)}};
}

}  // namespace

nlohmann::json SuiteSummaryJson(const SuiteRecord& suite) {
  nlohmann::json runs = nlohmann::json::array();
  std::vector<int> codes;
  for (const auto& r : suite.runs) {
    codes.push_back(r.exit_code);
    runs.push_back({{"cell", r.cell},
                    {"repeat", r.repeat},
                    {"seed", r.seed},
                    {"dir", r.dir},
                    {"exit_code", r.exit_code},
                    {"verdict", r.verdict},
                    {"error", r.error},
                    {"anomalies", r.anomalies},
                    {"first_violation_s", Optional(r.first_violation_s)},
                    {"availability_inside", Optional(r.availability_inside)},
                    {"availability_outside", Optional(r.availability_outside)},
                    {"answered_inside", Optional(r.answered_inside)},
                    {"answered_outside", Optional(r.answered_outside)},
                    {"acquire_p50_ms", Optional(r.acquire_p50_ms)},
                    {"acquire_p99_ms", Optional(r.acquire_p99_ms)},
                    {"unanswered_inside", Optional(r.unanswered_inside)},
                    {"unanswered_outside", Optional(r.unanswered_outside)},
                    {"in_doubt", Optional(r.in_doubt)},
                    {"grants_per_s", Optional(r.grants_per_s)},
                    {"ops_per_s", Optional(r.ops_per_s)},
                    {"duration_s", r.duration_s},
                    {"lock", r.lock},
                    {"schedule", r.schedule},
                    {"faults", r.faults}});
  }
  nlohmann::json cells = nlohmann::json::object();
  const auto by_cell = [](const SuiteRun& r) { return r.cell; };
  for (const auto& [cell, of] : GroupSuiteRuns(suite.runs, by_cell)) {
    cells[cell] = GroupJson(Summarize(of));
  }
  nlohmann::json comparison = nlohmann::json::array();
  for (const auto& [key, of] :
       GroupSuiteRuns(suite.runs, ScheduleAndLock)) {
    nlohmann::json g = GroupJson(Summarize(of));
    g["schedule"] = of.front()->schedule;
    g["lock"] = of.front()->lock;
    comparison.push_back(std::move(g));
  }
  nlohmann::json j = {{"suite", suite.name},
                      {"description", suite.description},
                      {"seed", suite.seed},
                      {"planned_runs", suite.planned_runs},
                      {"completed_runs", suite.runs.size()},
                      {"exit_code", WorstExitCode(codes)},
                      {"cells", cells},
                      {"comparison", comparison},
                      {"runs", runs}};
  if (!suite.interrupted.empty()) j["interrupted"] = suite.interrupted;
  return j;
}

}  // namespace locksmith
