// Test helpers for the tests of a run's judge: a mutex history with one
// double grant, and what of a results.json must not depend on how or when
// its history was judged. Header-only, for tests.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "history/history.h"
#include "history/testing/history_builder.h"

namespace locksmith::testing {

// `rounds` clean grants and releases of j by process 2, then process 1
// granted k while process 0 still holds it.
inline History DoubleGrantHistory(int rounds) {
  HistoryBuilder b;
  auto acquire = [&](int64_t process, const std::string& key, const std::string& token) {
    b.Invoke(process, "acquire", {{"lease_ms", 1000}}, key)
        .Ok(process, {{"token", token}, {"validity_ms", 1000}});
  };
  auto release = [&](int64_t process, const std::string& key, const std::string& token) {
    b.Invoke(process, "release", {{"token", token}}, key).Ok(process);
  };
  for (int i = 0; i < rounds; ++i) {
    acquire(2, "j", std::to_string(i));
    release(2, "j", std::to_string(i));
  }
  acquire(0, "k", "a");
  acquire(1, "k", "b");
  release(0, "k", "a");
  release(1, "k", "b");
  return b.Build();
}

// The verdict, the anomalies, every checker's stats but the search's
// timings, and the fault descriptions of a results.json.
inline nlohmann::json Judgement(nlohmann::json results) {
  for (auto& [name, checker] : results["stats"].items()) {
    for (const char* timing : {"time_s", "peak_memory_bytes"}) checker["stats"].erase(timing);
  }
  return {{"valid", results["valid"]}, {"anomalies", results["anomalies"]},
          {"stats", results["stats"]}, {"faults", results["fault_descriptions"]}};
}

}  // namespace locksmith::testing
