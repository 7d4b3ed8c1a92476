#include "checker/availability.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <optional>

namespace locksmith {
namespace {

struct Window {
  std::string family;
  int64_t begin = 0;                   // the begin op's invoke
  std::optional<int64_t> begun;        // its completion
  std::optional<int64_t> end;          // the end op's completion
  int64_t attempts = 0, ok = 0;
  std::optional<int64_t> recovered;    // first ok acquire invoked after `begun`
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

// The fault windows of `history` by number, from their marked ops; `last`
// gets the history's latest op time.
std::map<int64_t, Window> WindowsOf(const History& history, int64_t& last) {
  std::map<int64_t, Window> windows;
  for (const Op& op : history) {
    last = std::max(last, op.time);
    if (!op.is_nemesis() || !op.fault.is_object()) continue;
    auto mark = FaultMarkFromJson(op.fault);
    if (!mark) continue;
    Window& w = windows[mark->window];
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
  return windows;
}

}  // namespace

CheckResult AvailabilityChecker::CheckWhole(const History& history) const {
  CheckResult result;
  int64_t last = 0;
  std::map<int64_t, Window> windows = WindowsOf(history, last);
  auto open_at = [&](const Window& w, int64_t t) {
    return t >= w.begin && t <= w.end.value_or(last);
  };

  int64_t inside = 0, inside_ok = 0, outside = 0, outside_ok = 0;
  int64_t inside_refused = 0, outside_refused = 0;
  int64_t inside_unanswered = 0, outside_unanswered = 0;
  const auto completion_of = PairCompletions(history);
  for (size_t i = 0; i < history.size(); ++i) {
    const Op& op = history[i];
    if (!op.is_client() || op.type != OpType::kInvoke || op.f != "acquire") continue;
    if (completion_of[i] < 0) continue;
    const bool ok = history[completion_of[i]].type == OpType::kOk;
    const bool refused = history[completion_of[i]].type == OpType::kFail;
    const bool unanswered = refused && GaveUpUnanswered(history[completion_of[i]]);
    bool in_any = false;
    for (auto& [n, w] : windows) {
      if (!open_at(w, op.time)) continue;
      in_any = true;
      ++w.attempts;
      w.ok += ok;
      if (ok && w.begun && op.time >= *w.begun && !w.recovered) {
        w.recovered = history[completion_of[i]].time;
      }
    }
    (in_any ? inside : outside) += 1;
    (in_any ? inside_ok : outside_ok) += ok;
    (in_any ? inside_refused : outside_refused) += refused;
    (in_any ? inside_unanswered : outside_unanswered) += unanswered;
  }

  nlohmann::json per_window = nlohmann::json::array();
  for (const auto& [n, w] : windows) {
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
  result.stats = {{"inside_faults", part(inside, inside_ok, inside_refused, inside_unanswered)},
                  {"outside_faults",
                   part(outside, outside_ok, outside_refused, outside_unanswered)},
                  {"windows", per_window}};
  result.summary = "acquires ok " + Percent(inside_ok, inside) + " inside faults, " +
                   Percent(outside_ok, outside) + " outside";
  return result;
}

}  // namespace locksmith
