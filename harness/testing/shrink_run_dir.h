// Test helper for `locksmith shrink`'s tests: a stored run directory as a
// Redis mutex run under kill and partition would leave it (config.json,
// results.json with its fault ledger, history.jsonl with the nemesis ops),
// written by hand so no server is needed. Header-only, for tests.
#pragma once

#include <fstream>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "harness/run_config.h"
#include "history/history.h"

namespace locksmith::testing {

inline constexpr int64_t kShrinkRunMs = 1'000'000;  // ns in a ms, for the ops' times

// One nemesis op of window `window`.
inline Op ShrinkNemesisOp(int64_t index, int64_t at_ms, OpType type, const std::string& f,
                          const std::string& family, int64_t window, bool begins,
                          nlohmann::json value = nullptr, std::string error = "") {
  Op op;
  op.index = index;
  op.time = at_ms * kShrinkRunMs;
  op.process = kNemesisProcess;
  op.type = type;
  op.f = f;
  op.value = std::move(value);
  op.error = std::move(error);
  op.fault = FaultMark{window, family, begins}.ToJson();
  return op;
}

// A run of 10 s, seed 7, on single Redis: the history's clock runs 5 ms
// ahead of the schedule's (the clients connected 5 ms after it opened).
//   window 0  kill n1 at 2000 ms, restart at 2100 ms
//   window 1  partition (c3 cut from n1) at 3000 ms, heal at 8000 ms
//   window 2  kill at 6000 ms that failed (nothing to replay)
//   window 3  kill n1 at 9000 ms, its restart past the time limit
inline void WriteShrinkRunDir(const std::string& dir, nlohmann::json valid = false) {
  RunConfig config;
  nlohmann::json given = {{"backend", "redis"}, {"workload", "mutex"},
                          {"nemesis", {"kill", "partition"}}, {"seed", uint64_t{7}},
                          {"time_limit_s", 10}, {"test_name", "shrinkable"},
                          {"redis_persistence", "none"}};
  if (Status s = MergeRunConfigJson(given, config); !s) throw std::runtime_error(s.error());
  std::ofstream(dir + "/config.json") << config.ToJson().dump(2);
  const nlohmann::json grudge = {{"c3", {"n1"}}, {"n1", {"c3"}}};
  History h = {
      ShrinkNemesisOp(1, 2005, OpType::kInvoke, "kill", "kill", 0, true, {{"target", "one"}}),
      ShrinkNemesisOp(2, 2006, OpType::kInfo, "kill", "kill", 0, true,
                      {{"nodes", {"n1"}}, {"target", "one"}}),
      ShrinkNemesisOp(3, 2105, OpType::kInvoke, "restart", "kill", 0, false),
      ShrinkNemesisOp(4, 2130, OpType::kInfo, "restart", "kill", 0, false,
                      {{"nodes", {"n1"}}, {"observed", true}}),
      ShrinkNemesisOp(5, 3005, OpType::kInvoke, "partition", "partition", 1, true,
                      {{"shape", "auto"}, {"target", "one"}, {"clients", "one"}}),
      ShrinkNemesisOp(6, 3300, OpType::kInfo, "partition", "partition", 1, true,
                      {{"shape", "auto"}, {"grudge", grudge}, {"observed", true}}),
      ShrinkNemesisOp(7, 6005, OpType::kInvoke, "kill", "kill", 2, true, {{"target", "one"}}),
      ShrinkNemesisOp(8, 6006, OpType::kInfo, "kill", "kill", 2, true, nullptr, "n1 is down"),
      ShrinkNemesisOp(9, 8005, OpType::kInvoke, "heal", "partition", 1, false),
      ShrinkNemesisOp(10, 8020, OpType::kInfo, "heal", "partition", 1, false, {{"healed", true}}),
      ShrinkNemesisOp(11, 9005, OpType::kInvoke, "kill", "kill", 3, true, {{"target", "one"}}),
      ShrinkNemesisOp(12, 9006, OpType::kInfo, "kill", "kill", 3, true, {{"nodes", {"n1"}}}),
      ShrinkNemesisOp(13, 10105, OpType::kInvoke, "restart", "kill", 3, false),
  };
  std::ofstream history(dir + "/history.jsonl");
  for (const Op& op : h) history << OpToJsonLine(op) << "\n";
  auto row = [](int64_t window, const char* family, int64_t at_ms, const char* done) {
    return nlohmann::json{{"window", window}, {"family", family}, {"phase", "begin"},
                          {"at_ms", at_ms}, {"done", done}};
  };
  nlohmann::json results = {
      {"valid", valid},
      {"anomalies", nlohmann::json::array()},
      {"faults", {{"planned_by", "schedule"},
                  {"rows", {row(0, "kill", 2000, "kill n1"),
                            row(1, "partition", 3000, "partition: c3 cut from n1"),
                            row(2, "kill", 6000, ""), row(3, "kill", 9000, "kill n1")}}}}};
  if (valid == false) {
    results["anomalies"] = {{{"type", "double-holder"}, {"class", "unsafe-grant"}},
                            {{"type", "nonlinearizable"}}};
  }
  std::ofstream(dir + "/results.json") << results.dump(2);
}

}  // namespace locksmith::testing
