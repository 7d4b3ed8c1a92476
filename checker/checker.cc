#include "checker/checker.h"

#include <thread>
#include <unordered_map>

#include "checker/pass_worker.h"

namespace locksmith {

nlohmann::json ValidityToJson(Validity v) {
  switch (v) {
    case Validity::kTrue: return true;
    case Validity::kFalse: return false;
    case Validity::kUnknown: return "unknown";
  }
  return "unknown";
}

Result<Validity> ValidityFromJson(const nlohmann::json& j) {
  if (j.is_boolean()) return j.get<bool>() ? Validity::kTrue : Validity::kFalse;
  if (j.is_string() && j.get<std::string>() == "unknown") return Validity::kUnknown;
  return Error{"\"valid\" must be true, false or \"unknown\""};
}

Validity MergeValidity(Validity a, Validity b) {
  if (a == Validity::kFalse || b == Validity::kFalse) return Validity::kFalse;
  if (a == Validity::kUnknown || b == Validity::kUnknown) return Validity::kUnknown;
  return Validity::kTrue;
}

int ExitCodeFor(Validity v) {
  switch (v) {
    case Validity::kTrue: return 0;
    case Validity::kFalse: return 1;
    case Validity::kUnknown: return 2;
  }
  return 2;
}

nlohmann::json CheckResult::ToJson() const {
  nlohmann::json j;
  j["valid"] = ValidityToJson(valid);
  j["anomalies"] = anomalies;
  j["stats"] = stats;
  if (!reason.empty()) j["reason"] = reason;
  if (!warnings.empty()) j["warnings"] = warnings;
  if (!summary.empty()) j["summary"] = summary;
  return j;
}

void NothingToJudgeTracker::Observe(const Op& op) {
  // Pairs as PairCompletions does, but stops at the first op that counts:
  // in any real history that is a few ops in.
  if (found_ || !op.is_client()) return;
  if (op.type == OpType::kInvoke) {
    open_[op.process] = op;
    return;
  }
  auto it = open_.find(op.process);
  if (it == open_.end() || it->second.f != op.f) return;
  const bool counts = op.type == OpType::kOk && (!judged_ || judged_(it->second));
  open_.erase(it);
  if (!counts) return;
  found_ = true;
  open_.clear();
}

std::string NothingToJudgeTracker::Reason() const {
  if (found_) return "";
  // "no client operation succeeded" is what runs have always said; keep it.
  return "no client operation succeeded: no op has both an invoke and an ok completion, so "
         "there is nothing to judge";
}

void NothingToJudgeTracker::Apply(CheckResult& result) const {
  if (result.valid == Validity::kFalse) return;
  std::string reason = Reason();
  if (reason.empty()) return;
  result.valid = Validity::kUnknown;
  result.reason = std::move(reason);
}

std::string NothingToJudge(const History& history,
                           const std::function<bool(const Op& invoke)>& judged) {
  NothingToJudgeTracker tracker(judged);
  for (const Op& op : history) {
    tracker.Observe(op);
    if (tracker.Reason().empty()) return "";
  }
  return tracker.Reason();
}

void ApplyNothingToJudge(const History& history, CheckResult& result,
                         const std::function<bool(const Op& invoke)>& judged) {
  if (result.valid == Validity::kFalse) return;
  std::string reason = NothingToJudge(history, judged);
  if (reason.empty()) return;
  result.valid = Validity::kUnknown;
  result.reason = std::move(reason);
}

CheckResult Checker::CheckHistory(const History& history) const {
  std::unique_ptr<CheckPass> pass = Start();
  for (const Op& op : history) pass->Observe(op);
  return pass->Finish();
}

namespace {

// Keeps every op for a checker that judges them all at once. `history` is
// the pass's own copy, or one a CompositeChecker's pass shares.
class WholeHistoryPass : public CheckPass {
 public:
  WholeHistoryPass(const WholeHistoryChecker& checker, const History* shared)
      : checker_(checker), shared_(shared) {}
  void Observe(const Op& op) override {
    if (shared_ == nullptr) own_.push_back(op);
  }
  void Take(Op&& op) override {
    if (shared_ == nullptr) own_.push_back(std::move(op));
  }
  CheckResult Finish() override { return checker_.CheckWhole(shared_ ? *shared_ : own_); }

 private:
  const WholeHistoryChecker& checker_;
  const History* shared_;
  History own_;
};

// A checker that judges the composite's kept copy of the history at the end.
class KeptHistoryPass : public CheckPass {
 public:
  KeptHistoryPass(const Checker& checker, const History* kept) : checker_(checker), kept_(kept) {}
  void Observe(const Op&) override {}
  CheckResult Finish() override { return checker_.Check(*kept_); }

 private:
  const Checker& checker_;
  const History* kept_;
};

// Every checker's pass fed the same ops; the results merged as
// CompositeChecker says.
class CompositePass : public CheckPass {
 public:
  // `given`: the whole history when it is already in memory (not copied).
  CompositePass(const std::vector<std::unique_ptr<Checker>>& checkers, const History* given) {
    const History* whole_history = given != nullptr ? given : &kept_;
    bool any_whole = given != nullptr;
    for (const auto& checker : checkers) {
      any_whole |= dynamic_cast<const WholeHistoryChecker*>(checker.get()) != nullptr;
    }
    keep_all_ = any_whole && given == nullptr;
    // (hardware_concurrency reads sysfs: asked once.)
    two_threads_ = !keep_all_ && checkers.size() >= 2 && std::thread::hardware_concurrency() >= 2;
    for (const auto& checker : checkers) {
      names_.push_back(checker->Name());
      if (const auto* whole = dynamic_cast<const WholeHistoryChecker*>(checker.get())) {
        passes_.push_back(std::make_unique<WholeHistoryPass>(*whole, whole_history));
      } else if (any_whole && checker->PrefersKeptHistory()) {
        passes_.push_back(std::make_unique<KeptHistoryPass>(*checker, whole_history));
      } else {
        passes_.push_back(checker->Start());
      }
    }
  }
  void Observe(const Op& op) override {
    Flush();
    if (worker_) worker_->Wait();
    for (auto& pass : passes_) pass->Observe(op);
    if (keep_all_) kept_.push_back(op);
  }
  // Ops taken are judged in batches on two threads (see Flush), when there
  // are two cores and no copy of every op to keep.
  void Take(Op&& op) override {
    if (!two_threads_) {
      for (auto& pass : passes_) pass->Observe(op);
      if (keep_all_) kept_.push_back(std::move(op));
      return;
    }
    std::vector<Op>& batch = batches_[filling_];
    if (batch.empty()) batch.resize(kBatchOps);
    // The reader gets an op judged before back, to read the next one into.
    std::swap(batch[filled_++], op);
    if (filled_ == kBatchOps) Flush();
  }
  CheckResult Finish() override;

 private:
  static constexpr size_t kBatchOps = 1024;

  // The batch being filled through every pass: half of the passes (every
  // other one) on a worker's thread, the rest on this one, at the same
  // time. The worker may still be at it while the other batch fills and
  // this thread's passes judge that one: a thread the machine's other
  // work holds up a moment does not stop the other at once.
  void Flush();

  std::vector<std::string> names_;
  std::vector<std::unique_ptr<CheckPass>> passes_;
  bool keep_all_ = false;
  bool two_threads_ = false;  // whether Take judges in batches on two threads
  History kept_;  // the ops, when a checker needs them all at once
  std::vector<Op> batches_[2];
  size_t filling_ = 0;  // the batch ops taken go to, not yet judged: [0, filled_)
  size_t filled_ = 0;
  std::unique_ptr<PassWorker> worker_;  // once a batch is judged
};

void CompositePass::Flush() {
  if (filled_ == 0) return;
  if (!worker_) {
    std::vector<CheckPass*> theirs;
    for (size_t i = 0; i < passes_.size(); i += 2) theirs.push_back(passes_[i].get());
    worker_ = std::make_unique<PassWorker>(std::move(theirs));
  }
  worker_->Wait();  // the other batch, which fills next
  const std::vector<Op>& batch = batches_[filling_];
  worker_->Start(&batch, filled_);
  for (size_t i = 0; i < filled_; ++i) {
    for (size_t p = 1; p < passes_.size(); p += 2) passes_[p]->Observe(batch[i]);
  }
  filling_ ^= 1;
  filled_ = 0;
}

CheckResult CompositePass::Finish() {
  Flush();
  if (worker_) worker_->Wait();
  worker_.reset();
  CheckResult merged;
  std::vector<std::string> reasons;
  for (size_t i = 0; i < passes_.size(); ++i) {
    const std::string& name = names_[i];
    CheckResult r = passes_[i]->Finish();
    merged.valid = MergeValidity(merged.valid, r.valid);
    for (auto anomaly : r.anomalies) {
      anomaly["checker"] = name;
      merged.anomalies.push_back(std::move(anomaly));
    }
    if (!r.reason.empty()) reasons.push_back(name + ": " + r.reason);
    for (const auto& warning : r.warnings) merged.warnings.push_back(warning);
    merged.stats[name] = r.ToJson();
    merged.stats[name].erase("anomalies");
  }
  for (size_t i = 0; i < reasons.size(); ++i) {
    merged.reason += (i ? "; " : "") + reasons[i];
  }
  return merged;
}

}  // namespace

std::unique_ptr<CheckPass> WholeHistoryChecker::Start() const {
  return std::make_unique<WholeHistoryPass>(*this, nullptr);
}

CompositeChecker::CompositeChecker(std::vector<std::unique_ptr<Checker>> checkers)
    : checkers_(std::move(checkers)) {}

std::unique_ptr<CheckPass> CompositeChecker::Start() const {
  return std::make_unique<CompositePass>(checkers_, nullptr);
}

CheckResult CompositeChecker::CheckHistory(const History& history) const {
  CompositePass pass(checkers_, &history);
  for (const Op& op : history) pass.Observe(op);
  return pass.Finish();
}

Result<CheckResult> CheckStream(const Checker& checker, OpStream& stream) {
  std::unique_ptr<CheckPass> pass = checker.Start();
  Op op;
  while (true) {
    auto more = stream.Next(&op);
    if (!more) return Error{more.error()};
    if (!*more) break;
    pass->Take(std::move(op));
  }
  return pass->Finish();
}

Op RefOnly(const Op& op) {
  Op ref;
  ref.index = op.index;
  ref.time = op.time;
  ref.process = op.process;
  ref.type = op.type;
  ref.f = op.f;
  ref.key = op.key;
  return ref;
}

nlohmann::json OpRef(const Op& op) {
  nlohmann::json j{{"index", op.index}, {"time", op.time}, {"type", OpTypeName(op.type)},
                   {"f", op.f}};
  j["process"] = ProcessJson(op.process);
  if (!op.key.empty()) j["key"] = op.key;
  return j;
}

}  // namespace locksmith
