#include "checker/availability.h"

#include <algorithm>
#include <cstdio>
#include <deque>
#include <map>
#include <optional>

#include "checker/completion_pairer.h"

namespace locksmith {
namespace {

// An acquire's invoke may be recorded before the fault op whose window it
// falls in (the clients and the nemesis stamp their ops as they go): an
// attempt is classified once the history is this far past its invoke.
constexpr int64_t kSettleNs = int64_t{10} * 1'000'000'000;

struct Window {
  std::string family;
  int64_t begin = 0;                   // the begin op's invoke
  std::optional<int64_t> begun;        // its completion
  std::optional<int64_t> end;          // the end op's completion
  int64_t attempts = 0, ok = 0;
  std::optional<int64_t> recovered;    // first ok acquire invoked after `begun`
  int64_t recovered_by = 0;            // that acquire's invoke index
};

// A completed acquire, waiting for the windows around it to be known.
struct Attempt {
  int64_t invoked_at = 0;
  int64_t invoke_index = 0;
  int64_t done_at = 0;
  bool ok = false, refused = false, unanswered = false;
};

double Ms(int64_t ns) { return static_cast<double>(ns) / 1e6; }

nlohmann::json Share(int64_t ok, int64_t attempts) {
  if (attempts == 0) return nullptr;
  return static_cast<double>(ok) / static_cast<double>(attempts);
}

std::string Percent(int64_t ok, int64_t attempts) {
  if (attempts == 0) return "-";
  char text[16];
  std::snprintf(text, sizeof text, "%.1f%%",
                100.0 * static_cast<double>(ok) / static_cast<double>(attempts));
  return text;
}

// A failed acquire whose wait ended with no answer on the lock.
bool GaveUpUnanswered(const Op& completion) {
  if (!completion.value.is_object()) return false;
  auto it = completion.value.find("gave_up");
  return it != completion.value.end() && *it == "unanswered";
}

class AvailabilityPass : public CheckPass {
 public:
  void Observe(const Op& op) override;
  CheckResult Finish() override;

 private:
  void OnFaultOp(const Op& op);
  // Counts `a` in every window open at its invoke, or outside them all.
  void Classify(const Attempt& a);

  CompletionPairer pairer_{false};
  std::map<int64_t, Window> windows_;
  std::deque<Attempt> waiting_;  // in completion order
  int64_t last_ = 0;             // the latest op time so far
  int64_t inside_ = 0, inside_ok_ = 0, outside_ = 0, outside_ok_ = 0;
  int64_t inside_refused_ = 0, outside_refused_ = 0;
  int64_t inside_unanswered_ = 0, outside_unanswered_ = 0;
};

void AvailabilityPass::OnFaultOp(const Op& op) {
  auto mark = FaultMarkFromJson(op.fault);
  if (!mark) return;
  Window& w = windows_[mark->window];
  if (mark->begins) {
    if (op.type == OpType::kInvoke) {
      w.family = mark->family;
      w.begin = op.time;
    } else {
      w.begun = op.time;
    }
  } else if (op.type != OpType::kInvoke) {
    w.end = op.time;
  }
}

void AvailabilityPass::Observe(const Op& op) {
  last_ = std::max(last_, op.time);
  const CompletionPairer::Pairing pairing = pairer_.Observe(op);
  if (op.is_nemesis() && op.fault.is_object()) OnFaultOp(op);
  const Op* invoke = pairing.invoke.get();
  if (invoke != nullptr && invoke->is_client() && invoke->f == "acquire") {
    const bool refused = op.type == OpType::kFail;
    waiting_.push_back({invoke->time, invoke->index, op.time, op.type == OpType::kOk, refused,
                        refused && GaveUpUnanswered(op)});
  }
  while (!waiting_.empty() && waiting_.front().invoked_at + kSettleNs < last_) {
    Classify(waiting_.front());
    waiting_.pop_front();
  }
}

void AvailabilityPass::Classify(const Attempt& a) {
  // A window not ended yet is open until the history's end, which is past
  // any invoke.
  auto open_at = [](const Window& w, int64_t t) {
    return t >= w.begin && (!w.end || t <= *w.end);
  };
  bool in_any = false;
  for (auto& [n, w] : windows_) {
    if (!open_at(w, a.invoked_at)) continue;
    in_any = true;
    ++w.attempts;
    w.ok += a.ok;
    const bool first = !w.recovered || a.invoke_index < w.recovered_by;
    if (a.ok && w.begun && a.invoked_at >= *w.begun && first) {
      w.recovered = a.done_at;
      w.recovered_by = a.invoke_index;
    }
  }
  (in_any ? inside_ : outside_) += 1;
  (in_any ? inside_ok_ : outside_ok_) += a.ok;
  (in_any ? inside_refused_ : outside_refused_) += a.refused;
  (in_any ? inside_unanswered_ : outside_unanswered_) += a.unanswered;
}

CheckResult AvailabilityPass::Finish() {
  for (const Attempt& a : waiting_) Classify(a);
  waiting_.clear();
  CheckResult result;
  nlohmann::json per_window = nlohmann::json::array();
  for (const auto& [n, w] : windows_) {
    per_window.push_back({{"window", n},
                          {"family", w.family},
                          {"begin_ms", Ms(w.begin)},
                          {"end_ms", w.end ? nlohmann::json(Ms(*w.end)) : nlohmann::json()},
                          {"attempts", w.attempts},
                          {"ok", w.ok},
                          {"availability", Share(w.ok, w.attempts)},
                          {"recovery_ms", w.recovered ? nlohmann::json(Ms(*w.recovered - w.begin))
                                                      : nlohmann::json()}});
  }
  // A fail is a definite no (held by another, or never sent); an acquire in
  // doubt got no answer in time: "answered" tells a busy lock or a refused
  // connection from a service that went silent.
  // Of the fails, those whose wait ended with no answer on the lock (the
  // workload says so: "gave_up": "unanswered") tell an outage from a lock
  // that stayed busy for the whole wait.
  auto part = [](int64_t attempts, int64_t ok, int64_t refused, int64_t unanswered) {
    return nlohmann::json{{"attempts", attempts},
                          {"ok", ok},
                          {"refused", refused},
                          {"unanswered", unanswered},
                          {"in_doubt", attempts - ok - refused},
                          {"availability", Share(ok, attempts)},
                          {"answered", Share(ok + refused, attempts)},
                          {"unanswered_share", Share(unanswered, attempts)},
                          {"in_doubt_share", Share(attempts - ok - refused, attempts)}};
  };
  result.stats = {
      {"inside_faults", part(inside_, inside_ok_, inside_refused_, inside_unanswered_)},
      {"outside_faults", part(outside_, outside_ok_, outside_refused_, outside_unanswered_)},
      {"windows", per_window}};
  result.summary = "acquires ok " + Percent(inside_ok_, inside_) + " inside faults, " +
                   Percent(outside_ok_, outside_) + " outside";
  return result;
}

}  // namespace

std::unique_ptr<CheckPass> AvailabilityChecker::Start() const {
  return std::make_unique<AvailabilityPass>();
}

}  // namespace locksmith
