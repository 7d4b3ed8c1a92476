#include "reports/run_summary.h"

#include <algorithm>
#include <cstdio>
#include <initializer_list>

#include "reports/escape.h"

namespace locksmith {
namespace {

std::string Scalar(const nlohmann::json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number() || v.is_boolean()) return v.dump();
  if (v.is_array()) {
    // A nemesis list: ["clock", "partition"] or [{"name": "clock"}, ...].
    std::string out;
    for (const auto& e : v) {
      std::string s = Scalar(e);
      if (s.empty()) continue;
      out += (out.empty() ? "" : ",") + s;
    }
    return out;
  }
  if (v.is_object()) {
    for (const char* name : {"name", "kind", "type"}) {
      if (auto it = v.find(name); it != v.end() && it->is_string()) return it->get<std::string>();
    }
    if (auto it = v.find("faults"); it != v.end()) return Scalar(*it);
  }
  return "";
}

std::string Lookup(const nlohmann::json& config, std::initializer_list<const char*> names) {
  if (!config.is_object()) return "";
  for (const char* scope : {"", "run", "test"}) {
    const nlohmann::json* obj = &config;
    if (*scope) {
      auto it = config.find(scope);
      if (it == config.end() || !it->is_object()) continue;
      obj = &*it;
    }
    for (const char* name : names) {
      auto it = obj->find(name);
      if (it == obj->end() || it->is_null()) continue;
      std::string s = Scalar(*it);
      if (!s.empty()) return SanitizeUtf8(s);
    }
  }
  return "";
}

}  // namespace

RunSummary RunSummary::FromConfig(const nlohmann::json& config) {
  RunSummary s;
  s.test_name = Lookup(config, {"test_name", "test-name", "name", "scenario"});
  s.backend = Lookup(config, {"backend"});
  s.workload = Lookup(config, {"workload"});
  s.nemesis = Lookup(config, {"nemesis", "faults"});
  s.seed = Lookup(config, {"seed"});
  s.time_limit = Lookup(config, {"time_limit_s", "time_limit", "time-limit"});
  return s;
}

RunSummary RunSummary::From(const nlohmann::json& config, const History& history) {
  RunSummary s = FromConfig(config);
  for (const Op& op : history) s.duration_ns = std::max(s.duration_ns, op.time);
  return s;
}

std::string RunSummary::DisplayName() const {
  if (!test_name.empty()) return test_name;
  std::string out;
  for (const std::string* part : {&backend, &workload, &nemesis}) {
    if (part->empty()) continue;
    out += (out.empty() ? "" : " / ") + *part;
  }
  return out.empty() ? "locksmith run" : out;
}

std::string FormatSeconds(int64_t ns) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f s", static_cast<double>(ns) / 1e9);
  return buf;
}

}  // namespace locksmith
