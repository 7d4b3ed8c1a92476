#include "checker/completion_pairer.h"

#include <set>

#include "checker/checker.h"

namespace locksmith {
namespace {

std::string MarkOf(const Op& op) {
  return op.is_nemesis() && op.fault.is_object() ? op.fault.dump() : std::string();
}

}  // namespace

std::shared_ptr<const Op> CompletionPairer::Keep(const Op& op) {
  // The invoke given back with the last completion, when nobody kept it, is
  // reused: its strings' capacity too (one allocation fewer an invoke).
  std::shared_ptr<Op> invoke;
  if (given_ && given_.use_count() == 1) {
    invoke = std::const_pointer_cast<Op>(std::move(given_));
  } else {
    invoke = std::make_shared<Op>();
  }
  given_.reset();
  if (with_values_) {
    *invoke = op;
    return invoke;
  }
  invoke->index = op.index;
  invoke->time = op.time;
  invoke->process = op.process;
  invoke->type = op.type;
  invoke->f.assign(op.f);
  invoke->key.assign(op.key);
  invoke->value = nullptr;
  invoke->error.clear();
  invoke->fault = op.fault;
  return invoke;
}

CompletionPairer::Pairing CompletionPairer::Observe(const Op& op) {
  Pairing pairing;
  const std::string mark = MarkOf(op);
  if (op.type == OpType::kInvoke) {
    std::shared_ptr<const Op> invoke = Keep(op);
    // A process's slot stays once made (null while it has no open invoke):
    // no node made and freed at every invoke.
    {
      std::shared_ptr<const Op>& slot = open_[op.process];
      const std::shared_ptr<const Op> old = std::move(slot);
      slot = invoke;
      if (old && old.use_count() == 1) pairing.abandoned.push_back(old);
    }  // (`old` let go of: its fault mark's slot is judged next)
    if (!mark.empty()) {
      std::shared_ptr<const Op>& slot = open_faults_[mark];
      const std::shared_ptr<const Op> old = slot;
      slot = invoke;
      if (old && old.use_count() == 1) pairing.abandoned.push_back(old);
    }
    return pairing;
  }
  // A marked completion pairs with its window's invoke; one without a mark
  // with the process's latest invoke.
  std::shared_ptr<const Op> invoke;
  if (auto it = open_faults_.find(mark); !mark.empty() && it != open_faults_.end()) {
    invoke = it->second;
  } else if (auto p = open_.find(op.process); mark.empty() && p != open_.end()) {
    invoke = p->second;
  }
  // A completion of another f than the open invoke is a lone op of its own.
  if (!invoke || invoke->f != op.f) return pairing;
  if (auto p = open_.find(op.process); p != open_.end() && p->second == invoke) p->second.reset();
  if (const std::string invoked = MarkOf(*invoke); !invoked.empty()) open_faults_.erase(invoked);
  given_ = invoke;
  pairing.invoke = std::move(invoke);
  return pairing;
}

std::vector<std::shared_ptr<const Op>> CompletionPairer::StillOpen() const {
  std::set<const Op*> seen;
  std::vector<std::shared_ptr<const Op>> open;
  for (const auto& [process, invoke] : open_) {
    if (invoke && seen.insert(invoke.get()).second) open.push_back(invoke);
  }
  for (const auto& [mark, invoke] : open_faults_) {
    if (seen.insert(invoke.get()).second) open.push_back(invoke);
  }
  return open;
}

}  // namespace locksmith
