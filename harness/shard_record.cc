#include "harness/shard_record.h"

#include <climits>

#include "base/json_fields.h"

namespace locksmith {
namespace {

Result<ShardRecord::Run> RunFromJson(const nlohmann::json& j, const std::string& place) {
  if (!j.is_object()) return Error{place + " must be an object"};
  JsonFields f(j, place);
  ShardRecord::Run run;
  run.cell = f.Text("cell");
  run.repeat = static_cast<int>(f.Integer("repeat", 0, INT32_MAX));
  run.seed = f.Unsigned("seed");
  run.planned_s = f.Number("planned_s").value_or(0);
  if (Status s = f.status(); !s) return Error{s.error()};
  if (run.cell.empty()) return Error{place + ": \"cell\" must be a non-empty string"};
  return run;
}

}  // namespace

ShardRecord MakeShardRecord(const Suite& suite, uint64_t seed, const ShardSpec& spec) {
  const std::vector<PlannedRun> plan = PlanSuiteRuns(suite, seed);
  ShardRecord r;
  r.suite = suite.name;
  r.suite_digest = suite.digest;
  r.plan_digest = PlanDigest(suite, plan);
  r.seed = seed;
  r.shard = spec;
  r.suite_runs = static_cast<int>(plan.size());
  for (const auto& cell : suite.cells) r.cells.push_back(cell.name);
  for (const auto& run : ShardRuns(plan, spec)) {
    r.runs.push_back({suite.cells[run.cell].name, run.repeat, run.seed, run.planned_s});
  }
  return r;
}

nlohmann::json ShardRecordJson(const ShardRecord& record) {
  nlohmann::json runs = nlohmann::json::array();
  for (const auto& run : record.runs) {
    runs.push_back({{"cell", run.cell},
                    {"repeat", run.repeat},
                    {"seed", run.seed},
                    {"planned_s", run.planned_s}});
  }
  return {{"format", kShardRecordFormat},
          {"suite", record.suite},
          {"suite_digest", record.suite_digest},
          {"plan_digest", record.plan_digest},
          {"seed", record.seed},
          {"shard", {{"index", record.shard.index}, {"total", record.shard.total}}},
          {"suite_runs", record.suite_runs},
          {"cells", record.cells},
          {"runs", runs}};
}

Result<ShardRecord> ShardRecordFromJson(const nlohmann::json& j) {
  if (!j.is_object()) return Error{"not a shard record (a JSON object)"};
  JsonFields f(j, "");
  ShardRecord r;
  const int64_t format = f.Integer("format", 0, INT32_MAX);
  r.suite = f.Text("suite");
  r.suite_digest = f.Text("suite_digest");
  r.plan_digest = f.Text("plan_digest");
  r.seed = f.Unsigned("seed");
  r.suite_runs = static_cast<int>(f.Integer("suite_runs", 0, INT32_MAX));
  const nlohmann::json* shard = f.Object("shard");
  const nlohmann::json* cells = f.Array("cells");
  const nlohmann::json* runs = f.Array("runs");
  if (Status s = f.status(); !s) return Error{s.error()};
  if (format != kShardRecordFormat) {
    return Error{"\"format\" must be " + std::to_string(kShardRecordFormat) + ", not " +
                 std::to_string(format)};
  }
  if (r.suite.empty() || shard == nullptr || cells == nullptr || runs == nullptr) {
    return Error{"not a shard record (\"suite\", \"shard\", \"cells\" and \"runs\")"};
  }
  JsonFields s(*shard, "shard");
  r.shard.total = static_cast<int>(s.Integer("total", 1, kMaxShards));
  r.shard.index = static_cast<int>(s.Integer("index", 1, r.shard.total));
  if (Status st = s.status(); !st) return Error{st.error()};
  for (const auto& cell : *cells) {
    if (!cell.is_string()) return Error{"\"cells\" must be an array of names"};
    r.cells.push_back(cell.get<std::string>());
  }
  for (size_t i = 0; i < runs->size(); ++i) {
    auto run = RunFromJson((*runs)[i], "runs[" + std::to_string(i) + "]");
    if (!run) return Error{run.error()};
    r.runs.push_back(std::move(run).value());
  }
  return r;
}

}  // namespace locksmith
