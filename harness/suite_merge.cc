#include "harness/suite_merge.h"

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <map>
#include <set>
#include <utility>

#include "base/atomic_file.h"
#include "base/exit_codes.h"
#include "base/input_file.h"
#include "base/json_input.h"
#include "base/limits.h"
#include "base/terminal_text.h"
#include "harness/shard_record.h"
#include "harness/suite_runner.h"
#include "reports/escape.h"
#include "reports/suite_record_reader.h"

namespace locksmith {
namespace {

namespace fs = std::filesystem;

// The largest file copied (not linked) into the merged directory: a
// history the run itself could write.
constexpr uint64_t kMaxCopiedFileBytes = uint64_t{8} << 30;

// One shard's directory as read: its shard.json and summary.json.
struct Shard {
  std::string dir;
  ShardRecord plan;
  SuiteRecord summary;
};

struct MergeError {
  int code = kExitBadInput;
  std::string line;
};

Result<Shard> ReadShard(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return Error{dir + ": not a directory"};
  Shard shard;
  shard.dir = dir;
  auto plan = ReadJsonInputFile(dir + "/shard.json", kMaxStoredJsonBytes);
  if (!plan) {
    return Error{plan.error() + " (a shard's directory, from locksmith suite --shard, has one)"};
  }
  auto record = ShardRecordFromJson(*plan);
  if (!record) return Error{dir + "/shard.json: " + record.error()};
  shard.plan = std::move(record).value();
  auto summary = ReadJsonInputFile(dir + "/summary.json", kMaxStoredJsonBytes);
  if (!summary) return Error{summary.error()};
  auto suite = SuiteRecordFromJson(*summary);
  if (!suite) return Error{dir + "/summary.json: " + suite.error()};
  shard.summary = std::move(suite).value();
  return shard;
}

std::string Short(const std::string& digest) { return digest.substr(0, 12); }

// Why `b` does not belong with `a`, or "" when it does.
std::string Mismatch(const Shard& a, const Shard& b) {
  const std::string pair = a.dir + " and " + b.dir;
  if (a.plan.suite_digest != b.plan.suite_digest || a.plan.suite != b.plan.suite) {
    return "shards of different suite files: " + a.dir + " ran " + a.plan.suite + " (" +
           Short(a.plan.suite_digest) + "), " + b.dir + " ran " + b.plan.suite + " (" +
           Short(b.plan.suite_digest) + ")";
  }
  if (a.plan.seed != b.plan.seed) {
    return "shards of different seeds: " + a.dir + " ran seed " + std::to_string(a.plan.seed) +
           ", " + b.dir + " seed " + std::to_string(b.plan.seed);
  }
  if (a.plan.shard.total != b.plan.shard.total) {
    return "shards of different splits: " + a.dir + " is shard " + a.plan.shard.Text() + ", " +
           b.dir + " shard " + b.plan.shard.Text();
  }
  if (a.plan.plan_digest != b.plan.plan_digest) {
    return "shards of different plans (--test-count, --time-limit or --time-scale differ): " +
           pair;
  }
  return "";
}

// Every shard 1..N exactly once, all of one suite, seed and plan.
std::string CheckShardSet(const std::vector<Shard>& shards) {
  std::map<int, std::string> given;
  for (const Shard& s : shards) {
    if (std::string why = Mismatch(shards.front(), s); !why.empty()) return why;
    auto [at, fresh] = given.emplace(s.plan.shard.index, s.dir);
    if (!fresh) {
      return "shard " + s.plan.shard.Text() + " given twice: " + at->second + " and " + s.dir;
    }
  }
  const int total = shards.front().plan.shard.total;
  std::string missing;
  for (int i = 1; i <= total; ++i) {
    if (given.count(i) == 0) missing += (missing.empty() ? "" : ", ") + std::to_string(i);
  }
  if (!missing.empty()) {
    return "missing shard " + missing + " of " + std::to_string(total) + " (every shard's " +
           "directory is needed, even one whose runs all failed)";
  }
  return "";
}

using RunKey = std::pair<std::string, int>;  // cell, repeat

std::string RunName(const RunKey& key) { return key.first + " #" + std::to_string(key.second); }

// Each run planned once over the shards and run where it was planned, with
// its planned seed; no run present twice.
std::string CheckRuns(const std::vector<Shard>& shards) {
  std::map<RunKey, std::pair<std::string, uint64_t>> planned;  // -> shard dir, seed
  for (const Shard& s : shards) {
    for (const auto& run : s.plan.runs) {
      auto [at, fresh] = planned.emplace(RunKey{run.cell, run.repeat}, std::pair{s.dir, run.seed});
      if (!fresh) {
        return "run " + RunName(at->first) + " present twice: planned in " + at->second.first +
               " and " + s.dir;
      }
    }
  }
  if (planned.size() != static_cast<size_t>(shards.front().plan.suite_runs)) {
    return "the shards plan " + std::to_string(planned.size()) + " runs of the suite's " +
           std::to_string(shards.front().plan.suite_runs);
  }
  std::map<RunKey, std::string> ran;
  for (const Shard& s : shards) {
    for (const auto& run : s.summary.runs) {
      const RunKey key{run.cell, run.repeat};
      auto it = planned.find(key);
      if (it == planned.end() || it->second.first != s.dir || it->second.second != run.seed) {
        return s.dir + ": run " + RunName(key) + " seed " + std::to_string(run.seed) +
               " is not one its shard.json planned";
      }
      auto [at, fresh] = ran.emplace(key, s.dir);
      if (!fresh) return "run " + RunName(key) + " present twice in " + s.dir;
    }
  }
  return "";
}

// Whether `shard_dir`/`run_dir` holds only files and directories, it and
// the folders above it in the shard's real directories: a link planted
// there would make the merge read or link what it points to.
Status CheckRunDirectory(const fs::path& shard_dir, const std::string& run_dir) {
  std::error_code ec;
  fs::path from = shard_dir;
  for (const auto& part : fs::path(run_dir)) {
    from /= part;
    if (!fs::is_directory(fs::symlink_status(from, ec))) {
      return Error{from.string() + ": not a directory (a run's directory and the folders above "
                   "it in the shard's are real directories)"};
    }
  }
  for (fs::recursive_directory_iterator it(from, ec), end; !ec && it != end; it.increment(ec)) {
    const fs::file_status st = it->symlink_status(ec);
    if (!ec && !fs::is_directory(st) && !fs::is_regular_file(st)) {
      return Error{it->path().string() + ": not a regular file or directory; not merged"};
    }
  }
  if (ec) return Error{from.string() + ": " + ec.message()};
  return OkStatus();
}

// `from` (checked by CheckRunDirectory) into `to`: each file hard-linked,
// or copied whole when the file systems differ.
Status CopyRunDirectory(const fs::path& from, const fs::path& to) {
  std::error_code ec;
  fs::create_directories(to, ec);
  if (ec) return Error{to.string() + ": " + ec.message()};
  for (fs::recursive_directory_iterator it(from, ec), end; !ec && it != end; it.increment(ec)) {
    const fs::path target = to / fs::relative(it->path(), from);
    const fs::file_status st = it->symlink_status(ec);
    if (ec) break;
    if (fs::is_directory(st)) {
      fs::create_directories(target, ec);
    } else if (!fs::is_regular_file(st)) {
      return Error{it->path().string() + ": not a regular file or directory; not merged"};
    } else if (fs::create_hard_link(it->path(), target, ec); ec) {
      auto bytes = ReadInputFile(it->path().string(), kMaxCopiedFileBytes);
      if (!bytes) return Error{bytes.error()};
      if (Status s = WriteFileAtomically(target.string(), *bytes); !s) return s;
      ec.clear();
    }
  }
  if (ec) return Error{from.string() + ": " + ec.message()};
  return OkStatus();
}

// OUT must not hold anything a merge would mix with.
Status PrepareOutput(const std::string& out_dir) {
  std::error_code ec;
  if (fs::exists(fs::symlink_status(out_dir, ec))) {
    if (!fs::is_directory(fs::symlink_status(out_dir, ec)) || !fs::is_empty(out_dir, ec)) {
      return Error{out_dir + " exists and is not an empty directory; give a new one"};
    }
    return OkStatus();
  }
  fs::create_directories(out_dir, ec);
  if (ec) return Error{out_dir + ": " + ec.message()};
  return OkStatus();
}

// The merged record: runs in suite order, each directory under shard-I/.
SuiteRecord MergedRecord(const std::vector<Shard>& shards) {
  const ShardRecord& plan = shards.front().plan;
  SuiteRecord record;
  record.name = plan.suite;
  record.description = shards.front().summary.description;
  record.seed = plan.seed;
  record.cells = plan.cells;
  record.planned_runs = plan.suite_runs;
  std::map<std::string, size_t> cell_order;
  for (size_t i = 0; i < plan.cells.size(); ++i) cell_order.emplace(plan.cells[i], i);
  for (const Shard& s : shards) {
    const std::string prefix = "shard-" + std::to_string(s.plan.shard.index) + "/";
    for (SuiteRun run : s.summary.runs) {
      if (!run.dir.empty()) run.dir = prefix + run.dir;
      record.runs.push_back(std::move(run));
    }
    const std::string stopped =
        !s.summary.interrupted.empty() ? "interrupted " + s.summary.interrupted
        : s.summary.runs.size() < s.plan.runs.size()
            ? "stopped after " + std::to_string(s.summary.runs.size()) + " of " +
                  std::to_string(s.plan.runs.size()) + " runs"
            : "";
    if (!stopped.empty()) {
      record.interrupted += (record.interrupted.empty() ? "" : "; ") + std::string("shard ") +
                            s.plan.shard.Text() + " " + stopped;
    }
  }
  const auto place = [&](const SuiteRun& r) {
    const auto it = cell_order.find(r.cell);
    return std::pair(it == cell_order.end() ? SIZE_MAX : it->second, r.repeat);
  };
  std::stable_sort(record.runs.begin(), record.runs.end(),
                   [&](const SuiteRun& a, const SuiteRun& b) { return place(a) < place(b); });
  return record;
}

// shards.json: where the merged runs came from.
nlohmann::json ShardsJson(const std::vector<Shard>& shards) {
  const ShardRecord& plan = shards.front().plan;
  nlohmann::json list = nlohmann::json::array();
  for (const Shard& s : shards) {
    list.push_back({{"shard", s.plan.shard.Text()},
                    {"from", s.dir},
                    {"dir", "shard-" + std::to_string(s.plan.shard.index)},
                    {"planned_runs", s.plan.runs.size()},
                    {"completed_runs", s.summary.runs.size()}});
  }
  return {{"suite", plan.suite},
          {"suite_digest", plan.suite_digest},
          {"plan_digest", plan.plan_digest},
          {"seed", plan.seed},
          {"shards", list}};
}

Result<std::vector<Shard>> ReadShards(const std::vector<std::string>& shard_dirs) {
  if (shard_dirs.empty()) return Error{"merge needs the shards' directories"};
  std::vector<Shard> shards;
  for (const auto& dir : shard_dirs) {
    auto shard = ReadShard(dir);
    if (!shard) return Error{shard.error()};
    shards.push_back(std::move(shard).value());
  }
  std::sort(shards.begin(), shards.end(), [](const Shard& a, const Shard& b) {
    return a.plan.shard.index < b.plan.shard.index;
  });
  if (std::string why = CheckShardSet(shards); !why.empty()) return Error{why};
  if (std::string why = CheckRuns(shards); !why.empty()) return Error{why};
  for (const Shard& s : shards) {
    for (const SuiteRun& run : s.summary.runs) {
      if (run.dir.empty()) continue;
      if (Status st = CheckRunDirectory(s.dir, run.dir); !st) return Error{st.error()};
    }
  }
  return shards;
}

}  // namespace

MergeOutcome MergeShards(const std::string& out_dir, const std::vector<std::string>& shard_dirs) {
  MergeOutcome outcome;
  auto shards = ReadShards(shard_dirs);
  Status ready = shards ? PrepareOutput(out_dir) : Status(Error{shards.error()});
  if (!ready) {
    outcome.exit_code = kExitBadInput;
    outcome.error = ready.error();
    return outcome;
  }
  outcome.exit_code = kExitRunFailed;  // until everything is written
  for (const Shard& s : *shards) {
    for (const SuiteRun& run : s.summary.runs) {
      if (run.dir.empty()) continue;
      const fs::path to =
          fs::path(out_dir) / ("shard-" + std::to_string(s.plan.shard.index)) / run.dir;
      if (Status st = CopyRunDirectory(fs::path(s.dir) / run.dir, to); !st) {
        outcome.error = st.error();
        return outcome;
      }
    }
  }
  outcome.record = MergedRecord(*shards);
  const std::string provenance = DumpJson(ShardsJson(*shards), 2) + "\n";
  if (Status st = WriteFileAtomically(out_dir + "/shards.json", provenance); !st) {
    outcome.error = st.error();
    return outcome;
  }
  if (Status st = WriteSuiteReports(outcome.record, out_dir); !st) {
    outcome.error = "suite reports: " + st.error();
    return outcome;
  }
  std::vector<int> codes;
  for (const auto& r : outcome.record.runs) codes.push_back(r.exit_code);
  // A shard that stopped short without a signal crashed: so would the suite have.
  if (outcome.record.runs.size() < static_cast<size_t>(outcome.record.planned_runs)) {
    bool signalled = true;
    for (const Shard& s : *shards) {
      signalled &= s.summary.runs.size() == s.plan.runs.size() || !s.summary.interrupted.empty();
    }
    if (!signalled) codes.push_back(kExitRunFailed);
  }
  outcome.exit_code = WorstExitCode(codes);
  outcome.error.clear();
  return outcome;
}

int RunMerge(const std::string& out_dir, const std::vector<std::string>& shard_dirs,
             std::ostream& out, std::ostream& err) {
  const MergeOutcome outcome = MergeShards(out_dir, shard_dirs);
  if (!outcome.error.empty()) {
    err << "locksmith: merge: " << TerminalSafe(outcome.error) << "\n";
    return outcome.exit_code;
  }
  const SuiteRecord& record = outcome.record;
  out << "merged " << shard_dirs.size() << " shards of suite " << TerminalSafe(record.name)
      << " (seed " << record.seed << "): " << record.runs.size() << " of " << record.planned_runs
      << " runs"
      << (record.interrupted.empty() ? "" : ", " + record.interrupted) << "\n";
  PrintSuiteRates(record, out_dir, out);
  return outcome.exit_code;
}

}  // namespace locksmith
