#include "checker/linearizability_checker.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <memory>
#include <optional>
#include <unordered_map>

#include "checker/completion_pairer.h"
#include "checker/leased_lock_checker.h"
#include "checker/linearizability_search.h"
#include "checker/model.h"
#include "checker/partition_search.h"
#include "checker/segmented_key_search.h"
#include "checker/value_table.h"
#include "checker/window_refuter.h"
#include "history/history_file.h"

namespace locksmith {
namespace {

// Anomalies name at most this many ops of the prefix (the latest ones):
// enough to see what led to the failure without a 10k-entry JSON array.
constexpr size_t kMaxPrefixRefs = 100;
// keys_not_searched names this many; partitions_not_searched counts them all.
constexpr int64_t kMaxKeysNotSearched = 100;

bool IsPair(const nlohmann::json& v) { return v.is_array() && v.size() == 2; }

// Whether the model checks ops named f: Compile with a dummy input either
// says "not modelled" or accepts or rejects the input, which means it knows f.
// The dummy is 0, not nil: a model may remember what values ops write (a
// register notes whether nil is ever written).
class ModelledNames {
 public:
  explicit ModelledNames(Model& model) : model_(model) {}
  bool Modelled(const std::string& f) {
    auto it = known_.find(f);
    if (it != known_.end()) return it->second;
    auto probe = model_.Compile(f, nlohmann::json(0), nullptr, 0);
    const bool modelled = !probe.ok() || probe->modelled;
    known_.emplace(f, modelled);
    return modelled;
  }

 private:
  Model& model_;
  std::map<std::string, bool> known_;
};

// jepsen.independent wraps every value as [key value]. A plain cas-register
// also has pairs ([old new]) but its reads carry nil, and a multi-register
// txn of two micro-ops is a 2-element array too, so the history counts as
// independent only when every invoke the model checks carries a pair whose
// second element could be the op's own input (a cas's [old new], a txn's
// list of micro-ops: never a single micro-op).
bool LooksIndependent(const History& history, Model& model) {
  ModelledNames names(model);
  bool any = false;
  for (const Op& op : history) {
    if (op.type != OpType::kInvoke || !op.is_client() || !names.Modelled(op.f)) continue;
    if (!op.key.empty() || !IsPair(op.value)) return false;
    if (model.CannotBeInput(op.f, op.value[1])) return false;
    any = true;
  }
  return any;
}

std::string KeyText(const nlohmann::json& key) {
  return key.is_string() ? key.get<std::string>() : SafeDump(key);
}

nlohmann::json LinearizedOpRef(const History& history, std::pair<int64_t, int64_t> at) {
  const Op& invoke = history[static_cast<size_t>(at.first)];
  const Op* completion = at.second >= 0 ? &history[static_cast<size_t>(at.second)] : nullptr;
  nlohmann::json ref = OpRef(completion != nullptr ? *completion : invoke);
  ref["invoke_index"] = invoke.index;
  const bool ok = completion != nullptr && completion->type == OpType::kOk;
  ref["value"] = ok ? completion->value : invoke.value;
  return ref;
}

std::string Describe(const nlohmann::json& ref) {
  std::string process = ref["process"].is_string() ? ref["process"].get<std::string>()
                                                   : std::to_string(ref["process"].get<int64_t>());
  return "process " + process + " " + ref["type"].get<std::string>() + " " +
         ref["f"].get<std::string>() + " " + DescribeValue(ref["value"]) + " (index " +
         std::to_string(ref["invoke_index"].get<int64_t>()) + ".." +
         std::to_string(ref["index"].get<int64_t>()) + ")";
}

nlohmann::json BuildAnomaly(const History& history, const Partition& partition,
                            const PartitionVerdict& verdict, const Model& model) {
  const SearchOutcome& outcome = verdict.outcome;
  const WindowRefutation* window = verdict.window ? &*verdict.window : nullptr;
  nlohmann::json anomaly;
  anomaly["type"] = "nonlinearizable";
  anomaly["model"] = std::string(model.Name());
  anomaly["key"] = partition.key;
  const nlohmann::json op =
      LinearizedOpRef(history, partition.positions[static_cast<size_t>(outcome.failed_op)]);
  anomaly["op"] = op;
  anomaly["ops"] = nlohmann::json::array({op});
  const size_t total = outcome.prefix.size();
  const size_t omitted = total > kMaxPrefixRefs ? total - kMaxPrefixRefs : 0;
  nlohmann::json prefix = nlohmann::json::array();
  for (size_t i = omitted; i < total; ++i) {
    prefix.push_back(
        LinearizedOpRef(history, partition.positions[static_cast<size_t>(outcome.prefix[i])]));
  }
  anomaly["prefix"] = std::move(prefix);
  anomaly["prefix_length"] = total;
  anomaly["prefix_omitted"] = omitted;
  anomaly["state"] = verdict.state_description;
  anomaly["message"] = Describe(op) + " cannot be linearized after the longest linearizable "
                       "prefix (" + std::to_string(total) + " ops; state " +
                       verdict.state_description + ")";
  if (window != nullptr) {
    // The prefix starts inside the window, from the start state that got
    // furthest; no start state the model can reach gets through.
    const auto at = [&](int64_t position) {
      return history[static_cast<size_t>(
                         std::clamp<int64_t>(position, 0, static_cast<int64_t>(history.size()) - 1))]
          .index;
    };
    anomaly["proof"] = "window";
    anomaly["window"] = {{"from_index", at(window->from_position)},
                         {"to_index", at(window->to_position)},
                         {"start_states", window->start_states}};
    anomaly["message"] = anomaly["message"].get<std::string>() +
                         "; the ops completing between index " +
                         std::to_string(at(window->from_position)) + " and " +
                         std::to_string(at(window->to_position)) +
                         " have no linearization from any of the " +
                         std::to_string(window->start_states) + " states the model can be in";
  }
  return anomaly;
}

}  // namespace

Status ValidateLinearizabilityOptions(const LinearizabilityOptions& options) {
  if (!(options.timeout_s > 0) || !std::isfinite(options.timeout_s)) {
    return Error{"the timeout must be a positive number of seconds"};
  }
  if (options.memory_limit_bytes == 0) return Error{"the memory limit must be positive"};
  if (!options.format.empty()) {
    if (auto format = ParseHistoryFormat(options.format); !format) return Error{format.error()};
  }
  ValueTable values;
  if (auto model = MakeModel(options.model, options.initial, &values); !model) {
    return Error{model.error()};
  }
  return OkStatus();
}


namespace {

// The ops of a history the model checks, one partition per key, and counts
// of the rest.
struct PartitionedOps {
  std::vector<Partition> partitions;
  std::map<std::string, int64_t> ignored;  // ops the model does not check, by f
  int64_t modelled = 0, pending = 0, failed = 0;
  bool independent = false;  // values are jepsen.independent [key value] tuples
};

// Compiles every client op of the history with the model and files it under
// its key; an op the model rejects, or a tuple completion of another key,
// is an error.
Result<PartitionedOps> PartitionOps(const History& history, Model& model) {
  PartitionedOps out;
  out.independent = LooksIndependent(history, model);
  const std::vector<int64_t> completion_of = PairCompletions(history);
  std::unordered_map<std::string, size_t> partition_of;
  for (size_t i = 0; i < history.size(); ++i) {
    const Op& invoke = history[i];
    if (invoke.type != OpType::kInvoke || !invoke.is_client()) continue;
    const int64_t c = completion_of[i];
    const Op* completion = c >= 0 ? &history[static_cast<size_t>(c)] : nullptr;
    if (completion != nullptr && completion->type == OpType::kFail) {
      ++out.failed;  // certainly had no effect
      continue;
    }
    const bool ok = completion != nullptr && completion->type == OpType::kOk;
    std::string key = invoke.key.empty() && completion != nullptr ? completion->key : invoke.key;
    const nlohmann::json* input = &invoke.value;
    const nlohmann::json* output = ok ? &completion->value : nullptr;
    if (out.independent) {
      if (!IsPair(invoke.value)) {  // only ops the model ignores lack the pair
        ++out.ignored[invoke.f];
        continue;
      }
      key = KeyText(invoke.value[0]);
      input = &invoke.value[1];
      if (ok) {
        // Checking the whole tuple as the output would compare [key value]
        // with the model's values: a wrong verdict, not a check.
        if (!IsPair(completion->value) || completion->value[0] != invoke.value[0]) {
          return Error{"op at index " + std::to_string(completion->index) + " (process " +
                       std::to_string(invoke.process) + ", " + invoke.f + "): the history's " +
                       "values are [key value] tuples, but this completion's value " +
                       SafeDump(completion->value) + " is no tuple for key " + key};
        }
        output = &completion->value[1];
      }
    }
    auto compiled = model.Compile(invoke.f, *input, output, invoke.process);
    if (!compiled) {
      return Error{"op at index " + std::to_string(invoke.index) + " (process " +
                   std::to_string(invoke.process) + ", " + invoke.f + "): " + compiled.error()};
    }
    if (!compiled->modelled) {
      ++out.ignored[invoke.f];
      continue;
    }
    ++out.modelled;
    if (!ok) ++out.pending;
    auto [it, inserted] = partition_of.emplace(key, out.partitions.size());
    if (inserted) out.partitions.push_back(Partition{key, {}, {}});
    Partition& p = out.partitions[it->second];
    p.ops.push_back(SearchOp{compiled->op, static_cast<int64_t>(i), ok ? c : -1,
                             compiled->read_only, compiled->only_own_process_observes});
    p.positions.emplace_back(static_cast<int64_t>(i), c);
  }
  return out;
}

// The check's time and memory budget, counting the ops' and the value
// table's memory as shared by every partition's search.
SearchBudget MakeBudget(const LinearizabilityOptions& options,
                        std::chrono::steady_clock::time_point start, const ValueTable& values,
                        int64_t modelled) {
  using Clock = std::chrono::steady_clock;
  SearchBudget budget;
  budget.now = options.now;
  // A timeout past what the clock can count to (1e300 s) is no deadline,
  // not one that wrapped around into the past.
  const std::chrono::duration<double> timeout(options.timeout_s);
  budget.deadline = timeout < Clock::time_point::max() - start
                        ? start + std::chrono::duration_cast<Clock::duration>(timeout)
                        : Clock::time_point::max();
  budget.memory_limit_bytes = options.memory_limit_bytes;
  const size_t op_bytes = static_cast<size_t>(modelled) *
                          (sizeof(SearchOp) + sizeof(std::pair<int64_t, int64_t>));
  budget.shared_bytes = [&values, op_bytes] { return values.MemoryBytes() + op_bytes; };
  return budget;
}

// The verdict and stats from every partition's: invalid if any is, unknown
// if any is undecided, one anomaly per refuted partition.
CheckResult Judge(const History& history, const PartitionedOps& ops,
                  const std::vector<PartitionVerdict>& verdicts, const Model& model,
                  const LinearizabilityOptions& options,
                  std::chrono::steady_clock::time_point start) {
  CheckResult result;
  uint64_t states = 0, keys = 0;
  size_t peak = 0;
  int64_t invalid = 0, undecided = 0, not_searched = 0;
  nlohmann::json keys_not_searched = nlohmann::json::array();
  std::string reasons;
  for (size_t i = 0; i < ops.partitions.size(); ++i) {
    const PartitionVerdict& verdict = verdicts[i];
    const SearchOutcome& outcome = verdict.outcome;
    states += outcome.states_explored + verdict.window_states;
    keys += outcome.distinct_keys;
    peak = std::max(peak, outcome.peak_memory_bytes);
    if (outcome.valid == Validity::kFalse) {
      ++invalid;
      result.anomalies.push_back(BuildAnomaly(history, ops.partitions[i], verdict, model));
    } else if (verdict.not_searched) {
      if (++not_searched <= kMaxKeysNotSearched) {
        keys_not_searched.push_back(ops.partitions[i].key);
      }
    } else if (outcome.valid == Validity::kUnknown) {
      ++undecided;
      if (reasons.empty()) {
        const std::string& key = ops.partitions[i].key;
        reasons = (key.empty() ? "" : "key " + key + ": ") + outcome.reason;
      }
    }
  }
  result.valid = invalid > 0     ? Validity::kFalse
                 : undecided > 0 ? Validity::kUnknown
                                 : Validity::kTrue;
  if (undecided > 0) {
    result.reason = std::to_string(undecided) + " of " + std::to_string(ops.partitions.size()) +
                    " partitions undecided (" + reasons + ")";
  }
  const double seconds =
      std::chrono::duration<double>(options.now() - start).count();
  result.stats = {{"model", options.model},
                  {"ops", ops.modelled},
                  {"pending_ops", ops.pending},
                  {"failed_ops", ops.failed},
                  {"partitions", ops.partitions.size()},
                  {"partitions_invalid", invalid},
                  {"partitions_unknown", undecided},
                  {"partitions_not_searched", not_searched},
                  {"keys_not_searched", std::move(keys_not_searched)},
                  {"segments", ops.partitions.size()},
                  {"independent_keys", ops.independent},
                  {"states_explored", states},
                  {"distinct_keys", keys},
                  {"time_s", seconds},
                  {"peak_memory_bytes", peak}};
  if (!ops.ignored.empty()) result.stats["ignored_ops"] = ops.ignored;
  return result;
}

}  // namespace

Result<CheckResult> CheckLinearizable(const History& history,
                                      const LinearizabilityOptions& options) {
  return CheckLinearizableKey(history, options, nullptr);
}

namespace {

// What the lease rule found in a key's ops, and whether it rewrites them.
struct LeaseFacts {
  bool applies = false;
  int64_t failed_releases = 0;
  int64_t lock_losses = 0;
  bool rewrites() const { return applies && (failed_releases > 0 || lock_losses > 0); }
};

// The model the options name, once they are checked.
Result<std::unique_ptr<Model>> OptionsModel(const LinearizabilityOptions& options,
                                            ValueTable* values) {
  if (auto valid = ValidateLinearizabilityOptions(options); !valid) {
    return Error{valid.error()};
  }
  return MakeModel(options.model, options.initial, values);
}

// The search of partitioned ops, one verdict per partition.
std::vector<PartitionVerdict> SearchKey(const PartitionedOps& ops, Model& model,
                                        const ValueTable& values,
                                        const LinearizabilityOptions& options) {
  // The budget is the search's: reading and compiling the ops before it
  // grow with the history, and a long run's must not use up the time its
  // search is given.
  const SearchBudget budget =
      MakeBudget(options, options.now(), values, ops.modelled);
  return SearchPartitions(model, ops.partitions, budget,
                          {.threads = options.search_threads,
                           .all_anomalies = options.all_anomalies});
}

// Judge's result with the lease rule's stats. `history` is the one the
// partitions' positions point into: an anomaly names its ops.
CheckResult JudgeKey(const History& history, const PartitionedOps& ops,
                     const std::vector<PartitionVerdict>& verdicts, const Model& model,
                     const LinearizabilityOptions& options,
                     std::chrono::steady_clock::time_point start, const LeaseFacts& leases) {
  CheckResult result = Judge(history, ops, verdicts, model, options, start);
  result.stats["leases"] = {{"rule", LeaseRuleName(options.leases)},
                            {"applied", leases.applies},
                            {"failed_releases", leases.failed_releases},
                            {"lock_losses", leases.lock_losses}};
  return result;
}

}  // namespace

Result<CheckResult> CheckLinearizableKey(const History& given_history,
                                         const LinearizabilityOptions& options,
                                         bool* nothing_to_judge) {
  const auto start = options.now();
  ValueTable values;
  auto made = OptionsModel(options, &values);
  if (!made) return Error{made.error()};
  Model& model = **made;

  // The lease rule, decided here for every caller (see leased_lock_checker.h).
  const LeaseFacts leases{LeaseRuleApplies(options.leases, given_history),
                          CountFailedReleases(given_history), CountLockLosses(given_history)};
  History expired;
  if (leases.rewrites()) expired = ApplyLeaseRule(given_history);
  const History& history = leases.rewrites() ? expired : given_history;

  auto ops = PartitionOps(history, model);
  if (!ops) return Error{ops.error()};
  if (ops->modelled == 0 && !ops->ignored.empty() && nothing_to_judge == nullptr) {
    std::string seen;
    for (const auto& [f, n] : ops->ignored) seen += (seen.empty() ? "" : ", ") + f;
    return Error{"no op in the history is one that model " + options.model +
                 " checks (f seen: " + seen + ")"};
  }
  CheckResult result = JudgeKey(history, *ops, SearchKey(*ops, model, values, options), model,
                                options, start, leases);
  ModelledNames names(model);
  auto modelled = [&](const Op& invoke) { return names.Modelled(invoke.f); };
  if (nothing_to_judge != nullptr) {
    *nothing_to_judge = !NothingToJudge(history, modelled).empty();
  } else {
    ApplyNothingToJudge(history, result, modelled);
  }
  return result;
}

namespace {

// Models whose Compile is a function of the op alone: no value interned, no
// state kept. Their ops compile the same in completion order as in invoke
// order, which the streamed check relies on.
bool CompilesEachOpAlone(const std::string& model) {
  return model == "mutex" || model == "owner-mutex" || model == "fenced-mutex" ||
         model == "rw-lock";
}

// PartitionOps over a stream of one key's ops, for a model that compiles
// each op alone: an op is compiled when its completion comes (an invoke
// left open, at the end), and the compiled ops go to `segments` where the
// key is quiet and at its end, which searches them; the partition returned
// has the key and no ops (its verdict is `segments`'). With
// `under_lease_rule`, each op is first rewritten as ApplyLeaseRule would
// (AppendUnderLeaseRule). nullopt where the result could differ from
// PartitionOps' over the same ops read whole: an op does not compile
// (PartitionOps names the first in invoke order), or, without
// `under_lease_rule`, the rule turns out to rewrite them (the caller then
// reads them again under it). `*facts` (of the ops as given) and `*nothing`
// (of the ops as judged) are filled for the caller.
Result<std::optional<PartitionedOps>> StreamPartitionOps(OpStream& stream, Model& model,
                                                         const LinearizabilityOptions& options,
                                                         bool under_lease_rule, LeaseFacts* facts,
                                                         NothingToJudgeTracker* nothing,
                                                         SegmentedKeySearch* segments) {
  PartitionedOps out;
  Partition partition;
  bool records_leases = false;
  bool miscompiled = false;
  CompletionPairer pairer;
  std::unordered_map<int64_t, int64_t> open_at;  // process -> its open invoke's position
  // Files invoke `i` (at position `call`), completed by `done` at position
  // `ret` (null, -1: never completed), as PartitionOps does.
  auto file = [&](const Op& i, int64_t call, const Op* done, int64_t ret) {
    if (done != nullptr && done->type == OpType::kFail) {
      ++out.failed;
      return;
    }
    const bool ok = done != nullptr && done->type == OpType::kOk;
    auto compiled = model.Compile(i.f, i.value, ok ? &done->value : nullptr, i.process);
    if (!compiled) {
      miscompiled = true;
      return;
    }
    if (!compiled->modelled) {
      ++out.ignored[i.f];
      return;
    }
    ++out.modelled;
    if (!ok) ++out.pending;
    if (partition.ops.empty()) partition.key = i.key;
    partition.ops.push_back(SearchOp{compiled->op, call, ok ? ret : -1, compiled->read_only,
                                     compiled->only_own_process_observes});
    partition.positions.emplace_back(call, ret);
  };
  int64_t at = 0;  // the position of the next op judged
  // Judges one op of the key's history (as rewritten, with the rule).
  auto judge = [&](const Op& op) {
    nothing->Observe(op);
    if (!op.is_client()) return;
    CompletionPairer::Pairing pairing = pairer.Observe(op);
    for (const auto& abandoned : pairing.abandoned) {
      file(*abandoned, open_at.at(abandoned->process), nullptr, -1);
    }
    if (op.type == OpType::kInvoke) {
      open_at[op.process] = at;
    } else if (pairing.invoke != nullptr) {
      file(*pairing.invoke, open_at.at(op.process), &op, at);
      open_at.erase(op.process);
      // Quiet: the ops filed so far completed before any later is invoked.
      if (open_at.empty() && out.pending == 0 && !miscompiled) segments->Cut(partition, false);
    }
  };
  Op op;
  History rewritten;  // what one op is under the rule
  for (;;) {
    auto more = stream.Next(&op);
    if (!more) return Error{more.error()};
    if (!*more) break;
    records_leases |= RecordsLease(op);
    facts->failed_releases += IsFailedRelease(op) ? 1 : 0;
    facts->lock_losses += IsLockLoss(op) ? 1 : 0;
    if (!under_lease_rule) {
      judge(op);
      ++at;
      continue;
    }
    rewritten.clear();
    AppendUnderLeaseRule(op, &rewritten);
    for (const Op& judged : rewritten) {
      judge(judged);
      ++at;
    }
  }
  for (const auto& open : pairer.StillOpen()) file(*open, open_at.at(open->process), nullptr, -1);
  facts->applies = options.leases == LeaseRule::kOn ||
                   (options.leases == LeaseRule::kAuto && records_leases);
  if ((facts->rewrites() && !under_lease_rule) || miscompiled) {
    return std::optional<PartitionedOps>();
  }
  segments->Cut(partition, true);
  if (segments->segments() > 0) out.partitions.push_back(Partition{partition.key, {}, {}});
  return std::optional<PartitionedOps>(std::move(out));
}

}  // namespace

Result<CheckResult> CheckLinearizableKeyStream(OpStream& ops, const std::string& key,
                                               const LinearizabilityOptions& options,
                                               bool& nothing_to_judge,
                                               const std::function<void()>& before_whole) {
  // The ops read whole, and judged as CheckLinearizableKey judges them.
  auto whole = [&]() -> Result<CheckResult> {
    if (before_whole) before_whole();
    if (Status s = ops.Rewind(); !s) return Error{s.error()};
    auto history = ReadAll(ops);
    if (!history) return Error{history.error()};
    return CheckLinearizableKey(*history, options, &nothing_to_judge);
  };
  // A key's ops without a key may be jepsen.independent tuples, which
  // PartitionOps splits by their own keys.
  if (key.empty() || !CompilesEachOpAlone(options.model)) return whole();
  const auto start = options.now();
  ValueTable values;
  auto made = OptionsModel(options, &values);
  if (!made) return Error{made.error()};
  Model& model = **made;
  ModelledNames names(model);
  auto modelled = [&](const Op& invoke) { return names.Modelled(invoke.f); };
  NothingToJudgeTracker nothing(modelled);
  LeaseFacts leases;
  auto budget = [&](std::chrono::steady_clock::duration used, size_t segment_ops) {
    return MakeBudget(options, options.now() - used, values, static_cast<int64_t>(segment_ops));
  };
  auto new_search = [&] {
    return std::make_unique<SegmentedKeySearch>(model, budget, options.segment_ops);
  };
  auto segments = new_search();
  auto partitioned =
      StreamPartitionOps(ops, model, options, false, &leases, &nothing, segments.get());
  if (!partitioned) return Error{partitioned.error()};
  if (!*partitioned && leases.rewrites()) {
    // The rule rewrites the key's ops (a failed release, a lock lost): read
    // them again, rewritten one at a time as they come.
    if (Status s = ops.Rewind(); !s) return Error{s.error()};
    nothing = NothingToJudgeTracker(modelled);
    leases = LeaseFacts();
    segments = new_search();
    partitioned = StreamPartitionOps(ops, model, options, true, &leases, &nothing, segments.get());
    if (!partitioned) return Error{partitioned.error()};
  }
  if (!*partitioned) return whole();
  // An anomaly names ops of the history, and a segment refuted from where
  // the search of the ones before it ended proves nothing of the key (see
  // SegmentedKeySearch): a refuted key is judged again whole, which finds
  // the same where the key had one segment (the search is deterministic)
  // and names its ops.
  const PartitionVerdict& verdict = segments->verdict();
  if (verdict.outcome.valid == Validity::kFalse) return whole();
  nothing_to_judge = !nothing.Reason().empty();
  std::vector<PartitionVerdict> verdicts;
  if (segments->segments() > 0) verdicts.push_back(verdict);
  CheckResult result =
      JudgeKey(History(), **partitioned, verdicts, model, options, start, leases);
  result.stats["segments"] = segments->segments();
  return result;
}

CheckResult LinearizabilityChecker::CheckHistory(const History& history) const {
  auto result = CheckLinearizable(history, options_);
  if (result) return std::move(result).value();
  CheckResult unknown;
  unknown.valid = Validity::kUnknown;
  unknown.reason = result.error();
  return unknown;
}

}  // namespace locksmith
