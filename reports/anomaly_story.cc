#include "reports/anomaly_story.h"

#include <algorithm>
#include <cctype>
#include <tuple>

#include "reports/escape.h"
#include "base/text.h"
#include "reports/op_refs.h"

namespace locksmith {
namespace {

const nlohmann::json kNone;

const nlohmann::json& Member(const nlohmann::json& j, const char* name) {
  if (!j.is_object()) return kNone;
  auto it = j.find(name);
  return it == j.end() ? kNone : *it;
}

const nlohmann::json* Number(const nlohmann::json& j, const char* name) {
  const nlohmann::json& v = Member(j, name);
  return v.is_number() ? &v : nullptr;
}

std::string Text(const nlohmann::json& j, const char* name) {
  const nlohmann::json& v = Member(j, name);
  if (v.is_null()) return "";
  return v.is_string() ? v.get<std::string>() : DumpJson(v);
}

// The model's hold that `acquire` (an op reference) began, into `h`.
bool FromModel(const LockHolds& holds, const nlohmann::json& acquire, StoryHold* h) {
  if (!IsOpRef(acquire)) return false;
  const LockHolds::Hold* hold = holds.ByAcquire(acquire["index"].get<int64_t>());
  if (hold == nullptr) return false;
  h->process = hold->process;
  h->start = hold->start, h->end = hold->end;
  h->lease_end = hold->lease_end;
  h->open = hold->open;
  return true;
}

void TakeProcess(const nlohmann::json& j, StoryHold* h) {
  if (const nlohmann::json& p = Member(j, "process"); p.is_number_integer()) {
    h->process = p.get<int64_t>();
  }
}

// A double holder's holders: the checker's fields win over the model's.
void AddHolders(const nlohmann::json& holders, const LockHolds& model, AnomalyStory* story) {
  for (const auto& holder : holders) {
    if (!holder.is_object()) continue;
    StoryHold h;
    const bool known = FromModel(model, Member(holder, "acquire"), &h);
    TakeProcess(holder, &h);
    auto start = Number(holder, "start"), end = Number(holder, "end");
    if (start && end) {
      h.start = NanosecondsOf(*start), h.end = NanosecondsOf(*end);
    } else if (!known) {
      continue;
    }
    if (auto lease = Number(holder, "lease_end")) h.lease_end = NanosecondsOf(*lease);
    if (auto release = holder.find("release"); release != holder.end() && release->is_null()) {
      h.open = true;
    }
    story->holds.push_back(std::move(h));
  }
}

// The buyers of an inventory or counter anomaly, their read and write as marks.
void AddBuyers(const nlohmann::json& buyers, const LockHolds& model, AnomalyStory* story) {
  for (const auto& buyer : buyers) {
    if (!buyer.is_object()) continue;
    StoryHold h;
    const bool known = FromModel(model, Member(buyer, "hold"), &h);
    TakeProcess(buyer, &h);
    const int64_t read = RefTime(Member(buyer, "read"));
    const int64_t write = RefTime(Member(buyer, "write"));
    const int64_t written = RefTime(Member(buyer, "write_done"));
    if (read >= 0) h.marks.push_back({read, "read " + Text(buyer, "read_value")});
    if (write >= 0) h.marks.push_back({write, "wrote " + Text(buyer, "wrote")});
    if (!known) {
      if (read < 0) continue;
      h.start = read;
      h.end = std::max({read, write, written});
    }
    story->holds.push_back(std::move(h));
  }
}

// When it happened: the overlap's start, a stuck lock's first refusal,
// the op that broke it (a linearizability failure), else its earliest op.
int64_t WhenItHappened(const nlohmann::json& anomaly, const AnomalyStory& story,
                       const std::vector<int64_t>& times) {
  if (story.overlap_start >= 0) return story.overlap_start;
  if (auto from = Number(Member(anomaly, "window"), "from_ms")) {
    return MillisToNs(from->get<double>());
  }
  if (int64_t op = RefTime(Member(anomaly, "op")); op >= 0) return op;
  return times.empty() ? -1 : *std::min_element(times.begin(), times.end());
}

// The processes a model state names ("held by process 5, last fence 9",
// "shared by processes 2, 7"): results.json keeps the state as the model's
// description of it.
std::vector<int64_t> ProcessesNamed(const std::string& state) {
  std::vector<int64_t> processes;
  size_t at = state.find("process");
  if (at == std::string::npos) return processes;
  at = state.find(' ', at);
  while (at != std::string::npos && at + 1 < state.size() && std::isdigit(static_cast<unsigned char>(state[at + 1]))) {
    size_t end = at + 1;
    int64_t p = 0;
    while (end < state.size() && std::isdigit(static_cast<unsigned char>(state[end])) && p < INT64_MAX / 10 - 9) {
      p = p * 10 + (state[end++] - '0');
    }
    processes.push_back(p);
    at = state.compare(end, 2, ", ") == 0 ? end + 1 : std::string::npos;
  }
  return processes;
}

int64_t ProcessOf(const nlohmann::json& ref) {
  const nlohmann::json& p = Member(ref, "process");
  return p.is_number_integer() ? p.get<int64_t>() : -1;
}

// The last op of the order `prefix` by `process`; nullptr when none.
const nlohmann::json* LastBy(const nlohmann::json& prefix, int64_t process) {
  if (process < 0) return nullptr;
  for (auto it = prefix.rbegin(); it != prefix.rend(); ++it) {
    if (IsOpRef(*it) && ProcessOf(*it) == process) return &*it;
  }
  return nullptr;
}

// When the op `ref` names was invoked: by its invoke's index, else its own;
// its reference's time when neither is known.
int64_t InvokeTimeOf(const nlohmann::json& ref, const InvokeTimes& invoke_times) {
  for (const char* name : {"invoke_index", "index"}) {
    const nlohmann::json& i = Member(ref, name);
    if (!i.is_number_integer()) continue;
    if (auto it = invoke_times.find(i.get<int64_t>()); it != invoke_times.end()) return it->second;
  }
  return RefTime(ref);
}

// What a nonlinearizable anomaly's op conflicts with, and the faults in
// effect over the conflict, or the nearest before it and the first after.
StoryConflict TellConflict(const nlohmann::json& anomaly, const std::vector<FaultView>& faults,
                           const InvokeTimes& invoke_times) {
  StoryConflict c;
  const nlohmann::json& op = Member(anomaly, "op");
  if (Text(anomaly, "type") != "nonlinearizable" || !IsOpRef(op) || RefTime(op) < 0) return c;
  const nlohmann::json& prefix = Member(anomaly, "prefix");
  std::vector<const nlohmann::json*> with;
  auto add = [&](const nlohmann::json* ref) {
    if (ref != nullptr && std::find(with.begin(), with.end(), ref) == with.end()) {
      with.push_back(ref);
    }
  };
  if (prefix.is_array()) {
    for (int64_t p : ProcessesNamed(Text(anomaly, "state"))) add(LastBy(prefix, p));
    if (with.empty()) {
      add(LastBy(prefix, ProcessOf(op)));
      if (!prefix.empty() && IsOpRef(prefix.back())) add(&prefix.back());
    }
  }
  c.refuted = op;
  c.to = RefTime(op);
  c.from = std::min(c.to, InvokeTimeOf(op, invoke_times));
  for (const nlohmann::json* ref : with) {
    if (const int64_t t = InvokeTimeOf(*ref, invoke_times); t >= 0) c.from = std::min(c.from, t);
    // A conflicting op may complete after the refuted one (the order found
    // placed a long wait's acquire first): the conflict lasts until it did.
    c.to = std::max(c.to, RefTime(*ref));
    c.with.push_back(*ref);
  }
  std::stable_sort(c.with.begin(), c.with.end(), [](const auto& a, const auto& b) {
    return RefTime(a) < RefTime(b);
  });
  int64_t next_start = INT64_MAX;
  for (size_t i = 0; i < faults.size(); ++i) {
    const FaultView& f = faults[i];
    if (!f.effective) continue;
    const int64_t end = f.point ? f.start : f.end;
    if (f.start <= c.to && end >= c.from) c.during.push_back(static_cast<int64_t>(i));
    if (f.start > c.to && f.start < next_start) {
      next_start = f.start;
      c.next_fault = static_cast<int64_t>(i);
      c.next_gap_ns = f.start - c.to;
    }
  }
  if (c.during.empty()) c.before = ExplainAt(faults, c.from, {});
  return c;
}

// A conflict's drawing: the holds its acquires began, and the fault in
// effect during it (the one begun last), else the nearest before it.
void DrawConflict(const LockHolds& holds, AnomalyStory* story) {
  const StoryConflict& c = story->conflict;
  auto draw = [&](const nlohmann::json& ref) {
    StoryHold h;
    if (FromModel(holds, ref, &h)) story->holds.push_back(std::move(h));
  };
  draw(c.refuted);
  for (const auto& ref : c.with) draw(ref);
  std::stable_sort(story->holds.begin(), story->holds.end(),
                   [](const StoryHold& a, const StoryHold& b) { return a.start < b.start; });
  story->cause = c.before;
  if (!c.during.empty()) story->cause = {c.during.back(), true, 0};
}

}  // namespace

FaultExplanation ExplainAt(const std::vector<FaultView>& faults, int64_t t,
                           const std::vector<int64_t>& processes) {
  FaultExplanation best;
  bool best_hit = false;
  for (size_t i = 0; i < faults.size(); ++i) {
    const FaultView& f = faults[i];
    if (f.point || !f.effective || f.start > t || t > f.end) continue;
    const bool hit = f.process >= 0 && std::find(processes.begin(), processes.end(), f.process) !=
                                           processes.end();
    const FaultView* b = best.fault >= 0 ? &faults[static_cast<size_t>(best.fault)] : nullptr;
    if (b == nullptr || (hit && !best_hit) || (hit == best_hit && f.start >= b->start)) {
      best = {static_cast<int64_t>(i), true, t - f.start};
      best_hit = hit;
    }
  }
  if (best.fault >= 0) return best;
  int64_t last = INT64_MIN;
  for (size_t i = 0; i < faults.size(); ++i) {
    const FaultView& f = faults[i];
    if (!f.effective) continue;
    const int64_t e = f.point ? f.start : f.end;
    if (e <= t && e >= last) {
      last = e;
      best = {static_cast<int64_t>(i), false, t - e};
    }
  }
  return best;
}

std::pair<int64_t, int64_t> OverlapOf(const StoryHold& a, const StoryHold& b) {
  const int64_t s = std::max(a.start, b.start), e = std::min(a.end, b.end);
  if (e <= s) return {-1, -1};
  return {s, e};
}

AnomalyStory TellStory(const nlohmann::json& anomaly, const LockHolds& holds,
                       const std::vector<FaultView>& faults, int64_t end_time,
                       const InvokeTimes& invoke_times) {
  AnomalyStory story;
  if (!anomaly.is_object()) return story;
  const nlohmann::json& holders = Member(anomaly, "holders");
  const nlohmann::json& pairs = Member(anomaly, "overlapping");
  if (holders.is_array()) {
    AddHolders(holders, holds, &story);
  } else if (pairs.is_array() && !pairs.empty() && pairs[0].is_object() &&
             pairs[0].contains("buyers")) {
    AddBuyers(pairs[0]["buyers"], holds, &story);
  }
  std::stable_sort(story.holds.begin(), story.holds.end(),
                   [](const StoryHold& a, const StoryHold& b) { return a.start < b.start; });
  if (const nlohmann::json& span = Member(anomaly, "overlap_ns");
      span.is_array() && span.size() == 2 && span[0].is_number()) {
    story.overlap_start = NanosecondsOf(span[0]);
    story.overlap_end = span[1].is_number() ? NanosecondsOf(span[1]) : end_time;
  } else if (story.holds.size() >= 2) {
    std::tie(story.overlap_start, story.overlap_end) = OverlapOf(story.holds[0], story.holds[1]);
  }
  std::vector<int64_t> times, processes;
  CollectRefTimes(anomaly, &times, &processes);
  for (const auto& h : story.holds) processes.push_back(h.process);
  story.at = WhenItHappened(anomaly, story, times);
  if (story.at < 0) return story;
  story.cause = ExplainAt(faults, story.at, processes);
  story.conflict = TellConflict(anomaly, faults, invoke_times);
  if (story.conflict.to >= 0) DrawConflict(holds, &story);
  for (size_t i = 0; i < faults.size(); ++i) {
    const FaultView& f = faults[i];
    if (!f.point && f.effective && f.start <= story.at && story.at <= f.end) {
      story.active.push_back(static_cast<int64_t>(i));
    }
  }
  return story;
}

}  // namespace locksmith
