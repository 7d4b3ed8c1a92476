#include "reports/suite_run.h"

#include <cstdint>
#include <tuple>

namespace locksmith {
namespace {

std::optional<double> NumberAt(const nlohmann::json& j, std::initializer_list<const char*> path) {
  const nlohmann::json* at = &j;
  for (const char* key : path) {
    if (!at->is_object()) return std::nullopt;
    auto it = at->find(key);
    if (it == at->end()) return std::nullopt;
    at = &*it;
  }
  if (!at->is_number()) return std::nullopt;
  return at->get<double>();
}

// The latest op time (ns) an anomaly names: the moment it became certain.
// Op references are objects with "index", "time" and "f", at any depth.
std::optional<int64_t> LatestOpTime(const nlohmann::json& j) {
  std::optional<int64_t> latest;
  if (j.is_object()) {
    auto t = j.find("time");
    if (t != j.end() && t->is_number_integer() && j.contains("index") && j.contains("f")) {
      latest = t->get<int64_t>();
    }
  }
  if (j.is_object() || j.is_array()) {
    for (const auto& v : j) {
      auto inner = LatestOpTime(v);
      if (inner && (!latest || *inner > *latest)) latest = inner;
    }
  }
  return latest;
}

std::string Text(const nlohmann::json& config, const char* key) {
  if (!config.is_object()) return "";
  auto it = config.find(key);
  return it != config.end() && it->is_string() ? it->get<std::string>() : "";
}

std::string NemesisText(const nlohmann::json& config) {
  if (!config.is_object()) return "";
  auto it = config.find("nemesis");
  if (it == config.end()) return "no faults";
  std::string out;
  if (it->is_string()) {
    out = it->get<std::string>();
  } else if (it->is_array()) {
    for (const auto& n : *it) {
      if (n.is_string()) out += (out.empty() ? "" : "+") + n.get<std::string>();
    }
  }
  return out.empty() || out == "none" ? "no faults" : out;
}

// "kill 3/3, client-pause 1/3": per family of the run's fault ledger, its
// faults observed of those planned.
std::string LedgerText(const nlohmann::json& results) {
  if (!results.is_object() || !results.contains("faults") || !results["faults"].is_object()) {
    return "";
  }
  std::string text;
  for (const auto& f : results["faults"].value("families", nlohmann::json::array())) {
    if (!f.is_object()) continue;
    text += (text.empty() ? "" : ", ") + f.value("family", std::string("?")) + " " +
            std::to_string(f.value("observed", 0)) + "/" + std::to_string(f.value("planned", 0));
  }
  return text;
}

// What the run asked for and did not get: results.json's "unfulfilled", or
// the ledger's own line (a verdict in memory, without the run's extras).
std::string UnfulfilledText(const nlohmann::json& results) {
  if (!results.is_object()) return "";
  const nlohmann::json faults = results.value("faults", nlohmann::json());
  for (const nlohmann::json* j : {&results, &faults}) {
    if (!j->is_object()) continue;
    auto it = j->find("unfulfilled");
    if (it != j->end() && it->is_string()) return it->get<std::string>();
  }
  return "";
}

}  // namespace

SuiteRun SuiteRunFrom(const nlohmann::json& results, const nlohmann::json& config) {
  SuiteRun run;
  run.verdict = "failed";
  if (results.is_object() && results.contains("valid")) {
    const auto& v = results["valid"];
    run.verdict = v == true ? "valid" : v == false ? "invalid" : "unknown";
  }
  std::optional<int64_t> first;
  if (results.is_object() && results.contains("anomalies") && results["anomalies"].is_array()) {
    for (const auto& a : results["anomalies"]) {
      const std::string type = a.is_object() && a.contains("type") && a["type"].is_string()
                                   ? a["type"].get<std::string>()
                                   : "anomaly";
      ++run.anomalies[type];
      auto t = LatestOpTime(a);
      if (t && (!first || *t < *first)) first = t;
    }
  }
  if (first && run.verdict == "invalid") run.first_violation_s = static_cast<double>(*first) / 1e9;
  const nlohmann::json stats =
      results.is_object() ? results.value("stats", nlohmann::json()) : nlohmann::json();
  double acquires = 0, in_doubt = 0;
  for (auto [share, answered, unanswered, name] :
       {std::tuple{&SuiteRun::availability_inside, &SuiteRun::answered_inside,
                   &SuiteRun::unanswered_inside, "inside_faults"},
        std::tuple{&SuiteRun::availability_outside, &SuiteRun::answered_outside,
                   &SuiteRun::unanswered_outside, "outside_faults"}}) {
    auto attempts = NumberAt(stats, {"availability", "stats", name, "attempts"});
    if (attempts && *attempts > 0) {
      run.*share = NumberAt(stats, {"availability", "stats", name, "availability"});
      run.*answered = NumberAt(stats, {"availability", "stats", name, "answered"});
      run.*unanswered = NumberAt(stats, {"availability", "stats", name, "unanswered_share"});
      acquires += *attempts;
      in_doubt += NumberAt(stats, {"availability", "stats", name, "in_doubt"}).value_or(0);
    }
  }
  if (acquires > 0) run.in_doubt = in_doubt / acquires;
  run.acquire_p50_ms = NumberAt(stats, {"perf", "stats", "latency", "acquire", "ok", "p50_ms"});
  run.acquire_p99_ms = NumberAt(stats, {"perf", "stats", "latency", "acquire", "ok", "p99_ms"});
  run.ops_per_s = NumberAt(stats, {"perf", "stats", "ops_per_s"});
  run.duration_s = NumberAt(stats, {"perf", "stats", "duration_s"}).value_or(0);
  if (run.duration_s > 0) {
    run.grants_per_s =
        NumberAt(stats, {"perf", "stats", "by_f", "acquire", "ok"}).value_or(0) / run.duration_s;
  }
  const std::string backend = Text(config, "backend");
  const std::string client = Text(config, "client");
  run.lock = client.empty() ? backend : backend + "/" + client;
  run.schedule = Text(config, "workload") + ", " + NemesisText(config);
  if (config.is_object() && config.contains("steps") && !config["steps"].is_null()) {
    run.schedule += ", scripted steps";
  }
  run.faults = LedgerText(results);
  if (run.verdict == "unknown") run.error = UnfulfilledText(results);
  return run;
}

std::string SuiteRunAnomalyText(const SuiteRun& run) {
  std::string out;
  for (const auto& [type, n] : run.anomalies) {
    out += (out.empty() ? "" : ", ") + std::to_string(n) + " " + type;
  }
  return out;
}

}  // namespace locksmith
