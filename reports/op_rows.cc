#include "reports/op_rows.h"

#include <algorithm>

namespace locksmith {
namespace {

OpOutcome OutcomeOf(OpType t) {
  switch (t) {
    case OpType::kOk: return OpOutcome::kOk;
    case OpType::kFail: return OpOutcome::kFail;
    case OpType::kInfo: return OpOutcome::kInfo;
    case OpType::kInvoke: break;
  }
  return OpOutcome::kPending;
}

}  // namespace

std::vector<OpRow> BuildOpRows(const History& history, const ProcessLanes& lanes,
                               OpNameTables* names) {
  const std::vector<int64_t> completion_of = PairCompletions(history);
  std::vector<bool> paired(history.size(), false);
  for (int64_t c : completion_of) {
    if (c >= 0) paired[static_cast<size_t>(c)] = true;
  }
  std::vector<OpRow> rows;
  rows.reserve(history.size() / 2 + 16);
  for (size_t i = 0; i < history.size(); ++i) {
    const Op& op = history[i];
    if (op.type != OpType::kInvoke && paired[i]) continue;
    OpRow r;
    r.index = op.index;
    r.start = op.time;
    r.lane = lanes.LaneOf(op.process);
    r.f = names->fs.Id(op.f);
    r.invoke_pos = i;
    const Op* done = nullptr;
    if (op.type != OpType::kInvoke) {
      done = &op;
      r.duration = 0;
      r.outcome = OutcomeOf(op.type);
    } else if (completion_of[i] >= 0) {
      r.completion_pos = completion_of[i];
      done = &history[static_cast<size_t>(completion_of[i])];
      r.completion_index = done->index;
      r.duration = std::max<int64_t>(0, done->time - op.time);
      r.outcome = OutcomeOf(done->type);
    }
    const std::string& key = !op.key.empty() || done == nullptr ? op.key : done->key;
    if (!key.empty()) r.key = names->keys.Id(key);
    if (done != nullptr && !done->error.empty()) r.error = names->errors.Id(done->error);
    rows.push_back(r);
  }
  std::stable_sort(rows.begin(), rows.end(),
                   [](const OpRow& a, const OpRow& b) { return a.start < b.start; });
  return rows;
}

const Op& InvokeOf(const History& history, const OpRow& row) { return history[row.invoke_pos]; }

const Op* CompletionOf(const History& history, const OpRow& row) {
  return row.completion_pos >= 0 ? &history[static_cast<size_t>(row.completion_pos)] : nullptr;
}

const nlohmann::json& ValueOf(const History& history, const OpRow& row) {
  const Op* done = CompletionOf(history, row);
  return done != nullptr && !done->value.is_null() ? done->value : InvokeOf(history, row).value;
}

}  // namespace locksmith
