#include "reports/suite_stats.h"

#include <cmath>
#include <cstdio>

namespace locksmith {
namespace {

std::optional<double> Median(std::vector<double> values) {
  if (values.empty()) return std::nullopt;
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

std::optional<double> Mean(const std::vector<double>& values) {
  if (values.empty()) return std::nullopt;
  double sum = 0;
  for (double v : values) sum += v;
  return sum / static_cast<double>(values.size());
}

}  // namespace

std::string FixedOrDash(const std::optional<double>& v, int digits, const char* unit) {
  if (!v) return "–";
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.*f%s", digits, *v, unit);
  return buf;
}

std::string ScheduleAndLock(const SuiteRun& run) { return run.schedule + "\n" + run.lock; }

int WorstExitCode(const std::vector<int>& codes) {
  auto severity = [](int code) { return code == 0 ? 0 : code == 2 ? 1 : code == 1 ? 2 : 3; };
  int worst = 0;
  for (int c : codes) {
    if (severity(c) > severity(worst)) worst = c;
  }
  return worst;
}

Interval WilsonInterval(int k, int n) {
  if (n <= 0) return {};
  const double z = 1.959963984540054;
  const double nn = n, p = static_cast<double>(k) / nn;
  const double denom = 1 + z * z / nn;
  const double center = (p + z * z / (2 * nn)) / denom;
  const double half = z * std::sqrt(p * (1 - p) / nn + z * z / (4 * nn * nn)) / denom;
  return {std::max(0.0, center - half), std::min(1.0, center + half)};
}

std::string RateText(const RunGroup& g) {
  if (g.judged == 0) return "no run judged";
  return std::to_string(g.violations) + " of " + std::to_string(g.judged) + " invalid [" +
         FixedOrDash(g.rate.low * 100, 0) + "–" + FixedOrDash(g.rate.high * 100, 0) + "%]";
}

RunGroup Summarize(const std::vector<const SuiteRun*>& runs) {
  RunGroup g;
  std::vector<double> firsts, inside, outside, answered_inside, answered_outside, p50, p99;
  std::vector<double> grants, in_doubt, unanswered_inside, unanswered_outside;
  for (const SuiteRun* r : runs) {
    for (auto [value, into] : {std::pair{&SuiteRun::acquire_p99_ms, &p99},
                               std::pair{&SuiteRun::grants_per_s, &grants},
                               std::pair{&SuiteRun::in_doubt, &in_doubt},
                               std::pair{&SuiteRun::unanswered_inside, &unanswered_inside},
                               std::pair{&SuiteRun::unanswered_outside, &unanswered_outside}}) {
      if (r->*value) into->push_back(*(r->*value));
    }
    ++g.runs;
    if (r->verdict == "valid" || r->verdict == "invalid") ++g.judged;
    if (r->verdict == "invalid") ++g.violations;
    if (r->first_violation_s) firsts.push_back(*r->first_violation_s);
    if (r->availability_inside) inside.push_back(*r->availability_inside);
    if (r->availability_outside) outside.push_back(*r->availability_outside);
    if (r->answered_inside) answered_inside.push_back(*r->answered_inside);
    if (r->answered_outside) answered_outside.push_back(*r->answered_outside);
    if (r->acquire_p50_ms) p50.push_back(*r->acquire_p50_ms);
  }
  g.rate = WilsonInterval(g.violations, g.judged);
  g.median_first_violation_s = Median(firsts);
  g.mean_availability_inside = Mean(inside);
  g.mean_availability_outside = Mean(outside);
  g.mean_answered_inside = Mean(answered_inside);
  g.mean_answered_outside = Mean(answered_outside);
  g.median_acquire_p50_ms = Median(p50);
  g.median_acquire_p99_ms = Median(p99);
  g.mean_grants_per_s = Mean(grants);
  g.mean_in_doubt = Mean(in_doubt);
  g.mean_unanswered_inside = Mean(unanswered_inside);
  g.mean_unanswered_outside = Mean(unanswered_outside);
  return g;
}

}  // namespace locksmith
