// RunSummary: the few facts about a run that the report header and the JUnit
// suite show (test name, backend, workload, nemesis, seed, duration), pulled
// from config.json and the history. The RunConfig schema belongs to harness/
// and may still move, so each fact is looked up under a few likely spellings
// (top level, then under "run" / "test"); what is not found stays empty and is
// shown as "-". Plain value, not thread-safe.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "base/text.h"
#include "history/history.h"

namespace locksmith {

struct RunSummary {
  std::string test_name;
  std::string backend;
  std::string workload;
  std::string nemesis;  // comma-joined when the config holds a list
  std::string seed;
  std::string time_limit;  // as configured, e.g. "60" (seconds)
  int64_t duration_ns = 0;  // last op time in the history

  static RunSummary From(const nlohmann::json& config, const History& history);
  // Without a history (JUnit); duration from the config's time limit if any.
  static RunSummary FromConfig(const nlohmann::json& config);

  // "redlock / inventory / clock,partition" when there is no test name.
  std::string DisplayName() const;
};

// "3.250 s": ns since the run's start, in seconds.
std::string FormatSeconds(int64_t ns);

}  // namespace locksmith
