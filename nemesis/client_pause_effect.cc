#include "nemesis/client_pause_effect.h"

#include <algorithm>
#include <string>
#include <utility>

#include "backends/client_pauses.h"
#include "base/ceil_millis.h"
#include "history/lock_ops.h"

namespace locksmith {
namespace {

// Who took the stall, as the pause's begin op says.
struct Hit {
  int64_t process = 0;
  std::string key;
  int64_t ms = 0;
  bool in_flight = false;  // inside an acquire or a release (its op in flight)
  bool release = false;    // inside a release whose reply is in flight
};

std::optional<int64_t> IntegerIn(const nlohmann::json& value, const char* name) {
  if (!value.is_object()) return std::nullopt;
  auto it = value.find(name);
  if (it == value.end() || !it->is_number_integer()) return std::nullopt;
  return it->get<int64_t>();
}

// An op of the worker's that is not one of its own ops in sequence: the
// stall's records and the lock events its client reports on its own.
bool Aside(const Op& op) { return op.f == "pause" || IsLockEvent(op); }

bool OfWorker(const Op& op, const Hit& hit) {
  return op.is_client() && op.process == hit.process && !Aside(op);
}

// Where to look for the stall: the pause's invoke (the worker took the
// stall after it), or its completion when it was recorded alone.
size_t InvokeOf(const History& history, size_t done) {
  const Op& completed = history[done];
  for (size_t i = done; i-- > 0;) {
    const Op& op = history[i];
    if (op.is_nemesis() && op.type == OpType::kInvoke && op.f == completed.f &&
        op.fault == completed.fault) {
      return i;
    }
  }
  return done;
}

// The stall's first record: the holder's "pause" invoke, or the in-flight
// "begin" event, of the worker on the key.
std::optional<size_t> StallStart(const History& history, size_t from, const Hit& hit) {
  for (size_t i = from; i < history.size(); ++i) {
    const Op& op = history[i];
    if (!op.is_client() || op.process != hit.process || op.key != hit.key || op.f != "pause") {
      continue;
    }
    if (hit.in_flight ? op.value.is_object() && op.value.value("phase", "") == "begin"
                      : op.type == OpType::kInvoke) {
      return i;
    }
  }
  return std::nullopt;
}

// The ok completion of the acquire whose hold of the key the worker was in
// at `start`; nullopt when it held none (its last acquire of the key
// failed, it released it, or it was inside another op). Re-entries, nested
// in the hold, and ops on other keys (a resource's reads and writes) pass.
std::optional<size_t> HoldAt(const History& history, size_t start, const Hit& hit) {
  constexpr size_t kNone = static_cast<size_t>(-1);
  size_t completion = kNone;  // of the pair whose invoke comes next, going back
  for (size_t i = start; i-- > 0;) {
    const Op& op = history[i];
    if (!OfWorker(op, hit)) continue;
    if (op.type != OpType::kInvoke) {
      completion = i;
      continue;
    }
    if (completion == kNone) return std::nullopt;  // an op was in flight
    const size_t done = std::exchange(completion, kNone);
    if (op.key != hit.key || IsReentry(op)) continue;
    if (IsAcquireOp(op.f)) {
      if (history[done].type == OpType::kOk) return done;
      return std::nullopt;
    }
    if (IsReleaseOp(op.f)) return std::nullopt;
  }
  return std::nullopt;
}

// The invoke of the worker's acquire (or, for a release's stall, release)
// of the key in flight at `start`.
std::optional<size_t> OpInFlight(const History& history, size_t start, const Hit& hit) {
  for (size_t i = start; i-- > 0;) {
    const Op& op = history[i];
    if (!OfWorker(op, hit)) continue;
    const bool aimed = hit.release ? IsReleaseOp(op.f) : IsAcquireOp(op.f);
    if (op.type == OpType::kInvoke && op.key == hit.key && aimed) return i;
    return std::nullopt;
  }
  return std::nullopt;
}

// The worker's first op after `start`: its next invoke after a holder's
// stall, the interrupted acquire's completion after an in-flight one.
std::optional<size_t> NextOp(const History& history, size_t start, const Hit& hit) {
  for (size_t i = start + 1; i < history.size(); ++i) {
    if (OfWorker(history[i], hit)) return i;
  }
  return std::nullopt;
}

// When the stall ended: its end record (the pause's completion, the
// in-flight "end" event), else the worker's next op.
int64_t StallEnd(const History& history, size_t start, size_t next, const Hit& hit) {
  for (size_t i = start + 1; i < next; ++i) {
    const Op& op = history[i];
    if (op.process != hit.process || op.key != hit.key || op.f != "pause") continue;
    if (hit.in_flight ? op.value.is_object() && op.value.value("phase", "") == "end"
                      : op.type != OpType::kInvoke) {
      return op.time;
    }
  }
  return history[next].time;
}

// When the hold begun at history[acquired] stopped being valid, by the
// holder's reckoning, as far as the history tells by `stall_end`: its
// latest lease end up to then, or its lock-lost notice (of its token,
// before the worker's next acquire of the key) at the cut-off it names,
// whichever comes first; nullopt when it records neither.
std::optional<int64_t> ValidUntil(const History& history, size_t acquired, int64_t stall_end,
                                  const Hit& hit) {
  const std::string token = TokenOf(history[acquired]);
  std::optional<int64_t> lease_end, lost;
  for (size_t i = acquired; i < history.size(); ++i) {
    const Op& op = history[i];
    if (!op.is_client() || op.process != hit.process || op.key != hit.key) continue;
    if (i > acquired && op.type == OpType::kInvoke && IsAcquireOp(op.f) && !IsReentry(op)) break;
    if (IsLockLoss(op) && (token.empty() || TokenOf(op).empty() || TokenOf(op) == token)) {
      const int64_t at = CutOffOf(op).value_or(op.time);
      lost = std::min(lost.value_or(at), at);
    } else if (op.time <= stall_end) {
      if (auto end = LeaseEndOf(op)) lease_end = std::max(lease_end.value_or(*end), *end);
    }
  }
  if (lease_end && lost) return std::min(*lease_end, *lost);
  return lease_end ? lease_end : lost;
}

}  // namespace

std::optional<FaultConfirmed> ClientPauseEffect(const History& history, size_t begin_done) {
  if (begin_done >= history.size()) return std::nullopt;
  const Op& begun = history[begin_done];
  const auto process = IntegerIn(begun.value, "process");
  if (!begun.error.empty() || !process) return FaultConfirmed{};  // no worker took the stall
  Hit hit;
  hit.process = *process;
  hit.key = begun.value.value("key", std::string());
  const std::string at = begun.value.value("at", std::string());
  hit.release = at == PausePointName(PausePoint::kReleaseInFlight);
  hit.in_flight = hit.release || at == PausePointName(PausePoint::kInFlight);
  const auto start = StallStart(history, InvokeOf(history, begin_done), hit);
  if (!start) return std::nullopt;
  hit.ms = IntegerIn(begun.value, "ms").value_or(IntegerIn(history[*start].value, "ms").value_or(0));
  const auto hold = hit.in_flight ? OpInFlight(history, *start, hit)
                                  : HoldAt(history, *start, hit);
  if (!hold) return FaultConfirmed{};  // not where the pause aims
  const auto next = NextOp(history, *start, hit);
  if (!next) return std::nullopt;
  FaultConfirmed confirmed;
  confirmed.took_effect = history[*next].time - history[*start].time >= hit.ms * kNsPerMs;
  if (!confirmed.took_effect) return confirmed;
  const int64_t stall_end = StallEnd(history, *start, *next, hit);
  std::optional<int64_t> valid_until;
  if (!hit.in_flight) {
    valid_until = ValidUntil(history, *hold, stall_end, hit);
  } else if (hit.release) {
    // The hold ended at the release's invoke: a stall in its reply's way
    // outlives no lease of its own.
  } else if (auto lease = IntegerIn(history[*hold].value, "lease_ms")) {
    valid_until = history[*hold].time + *lease * kNsPerMs;
  }
  confirmed.past_lease = valid_until && stall_end > *valid_until;
  return confirmed;
}

}  // namespace locksmith
