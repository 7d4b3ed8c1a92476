#include "reports/report_model.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cmath>
#include <functional>
#include <map>
#include <numeric>
#include <set>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "reports/escape.h"
#include "reports/packed_table.h"
#include "reports/run_summary.h"

namespace locksmith {
namespace {

bool StartsWith(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }
bool IsAcquire(std::string_view f) { return StartsWith(f, "acquire") || f == "lock"; }
bool IsRelease(std::string_view f) { return StartsWith(f, "release") || f == "unlock"; }

// --- Fast JSON output for the big columns ----------------------------------

template <typename T>
void AppendIntArray(std::string* out, std::string_view name, const std::vector<T>& v,
                    bool delta = false) {
  out->push_back('"');
  out->append(name);
  out->append("\":[");
  char buf[24];
  int64_t prev = 0;
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) out->push_back(',');
    int64_t x = static_cast<int64_t>(v[i]);
    int64_t w = delta ? x - prev : x;
    prev = x;
    auto r = std::to_chars(buf, buf + sizeof buf, w);
    out->append(buf, r.ptr);
  }
  out->push_back(']');
}

template <typename T>
std::vector<int64_t> Int64s(const std::vector<T>& v) {
  return std::vector<int64_t>(v.begin(), v.end());
}

// Each value minus the previous one; the first minus `first`.
std::vector<int64_t> Deltas(std::vector<int64_t> v, int64_t first = 0) {
  for (size_t i = v.size(); i-- > 1;) v[i] -= v[i - 1];
  if (!v.empty()) v[0] -= first;
  return v;
}

// "name":"<the packed table>"
void AppendTable(std::string* out, std::string_view name, const std::vector<PackedField>& fields) {
  out->push_back('"');
  out->append(name);
  out->append("\":\"");
  AppendPackedTable(out, fields);
  out->push_back('"');
}

void AppendStringArray(std::string* out, std::string_view name, const std::vector<std::string>& v) {
  out->push_back('"');
  out->append(name);
  out->append("\":");
  nlohmann::json arr = nlohmann::json::array();
  for (const auto& s : v) arr.push_back(s);
  out->append(DumpJson(arr));
}

class Interner {
 public:
  int32_t Id(const std::string& s) {
    auto [it, inserted] = ids_.try_emplace(s, static_cast<int32_t>(names_.size()));
    if (inserted) names_.push_back(s);
    return it->second;
  }
  std::vector<std::string> Take() { return std::move(names_); }

 private:
  std::unordered_map<std::string, int32_t> ids_;
  std::vector<std::string> names_;
};

int64_t Quantile(std::vector<int64_t>* v, double q) {
  if (v->empty()) return -1;
  size_t k = std::min(v->size() - 1, static_cast<size_t>(q * static_cast<double>(v->size())));
  std::nth_element(v->begin(), v->begin() + static_cast<std::ptrdiff_t>(k), v->end());
  return (*v)[k];
}

struct Row {
  int64_t index = 0;
  int64_t completion_index = -1;
  int64_t start = 0;
  int64_t duration = -1;
  int32_t lane = 0, f = 0, key = -1, error = -1;
  OpOutcome outcome = OpOutcome::kPending;
  size_t invoke_pos = 0;  // positions in the history vector
  int64_t completion_pos = -1;
};

OpOutcome OutcomeOf(OpType t) {
  switch (t) {
    case OpType::kOk: return OpOutcome::kOk;
    case OpType::kFail: return OpOutcome::kFail;
    case OpType::kInfo: return OpOutcome::kInfo;
    case OpType::kInvoke: break;
  }
  return OpOutcome::kPending;
}


// Names with a trailing number ("c12", "n3") order by prefix, then number.
bool NaturalLess(const std::string& a, const std::string& b) {
  auto split = [](const std::string& s) {
    size_t i = s.size();
    while (i > 0 && s[i - 1] >= '0' && s[i - 1] <= '9') --i;
    const bool numbered = i < s.size() && s.size() - i < 12;
    return std::make_pair(s.substr(0, i), numbered ? std::stoll(s.substr(i)) : -1LL);
  };
  auto sa = split(a), sb = split(b);
  return sa != sb ? sa < sb : a < b;
}

bool IsClientHost(const std::string& h) {
  return h.size() > 1 && h[0] == 'c' &&
         std::all_of(h.begin() + 1, h.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// "c0-c5 c7": consecutive client hosts as ranges; other names as they are.
std::string CompactNames(std::vector<std::string> names) {
  std::sort(names.begin(), names.end(), NaturalLess);
  std::string out;
  for (size_t i = 0; i < names.size();) {
    size_t j = i;
    if (IsClientHost(names[i]) && names[i].size() < 12) {
      while (j + 1 < names.size() && IsClientHost(names[j + 1]) && names[j + 1].size() < 12 &&
             std::stoll(names[j + 1].substr(1)) == std::stoll(names[j].substr(1)) + 1) {
        ++j;
      }
    }
    out += (out.empty() ? "" : " ") + names[i];
    if (j > i + 1) out += "\xE2\x80\x93" + names[j];  // an en dash
    if (j == i + 1) out += " " + names[j];
    i = j + 1;
  }
  return out;
}

std::string JoinStrings(const std::vector<std::string>& v, const std::string& sep) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : sep) + s;
  return out;
}

std::string StringField(const nlohmann::json& j, const char* name) {
  if (!j.is_object()) return "";
  auto it = j.find(name);
  if (it == j.end() || it->is_null()) return "";
  return it->is_string() ? it->get<std::string>() : DumpJson(*it);
}

const nlohmann::json* NumberField(const nlohmann::json& j, const char* name) {
  if (!j.is_object()) return nullptr;
  auto it = j.find(name);
  return it != j.end() && it->is_number() ? &*it : nullptr;
}

std::string ShortText(std::string s, size_t max) {
  if (s.size() <= max) return s;
  while (max > 0 && (static_cast<unsigned char>(s[max]) & 0xC0) == 0x80) --max;
  return s.substr(0, max) + "\xE2\x80\xA6";
}

// A fault that did nothing: its begin op failed and hit no node or client.
bool Ineffective(const std::string& family, const nlohmann::json& value,
                 const std::string& error) {
  if (error.empty()) return false;
  if (value.is_object()) {
    if (auto n = value.find("nodes"); n != value.end() && n->is_array() && n->empty()) return true;
  }
  if (family == "client-pause" || family == "client-crash") {
    return NumberField(value, "process") == nullptr;
  }
  return false;
}

// Times of every op reference inside `j`, and their processes.
void CollectRefTimes(const nlohmann::json& j, std::vector<int64_t>* times,
                     std::vector<int64_t>* processes) {
  if (IsOpRef(j)) {
    if (auto t = NumberField(j, "time")) times->push_back(t->get<int64_t>());
    if (auto p = j.find("process"); p != j.end() && p->is_number_integer()) {
      processes->push_back(p->get<int64_t>());
    }
  }
  if (j.is_object() || j.is_array()) {
    for (const auto& child : j) CollectRefTimes(child, times, processes);
  }
}

int FamilyRank(const std::string& family) {
  static const char* const kOrder[] = {"kill",         "pause",        "partition",
                                       "clock",        "client-pause", "client-crash",
                                       "failover",     "promotion",    "lock-lost"};
  for (int i = 0; i < static_cast<int>(std::size(kOrder)); ++i) {
    if (family == kOrder[i]) return i;
  }
  return static_cast<int>(std::size(kOrder));
}

}  // namespace

bool IsOpRef(const nlohmann::json& j) {
  if (!j.is_object()) return false;
  auto index = j.find("index");
  auto type = j.find("type");
  auto f = j.find("f");
  return index != j.end() && index->is_number_integer() && type != j.end() && type->is_string() &&
         f != j.end() && f->is_string();
}

void CollectOpIndices(const nlohmann::json& j, std::set<int64_t>* out) {
  if (IsOpRef(j)) out->insert(j["index"].get<int64_t>());
  if (j.is_object() || j.is_array()) {
    for (const auto& child : j) CollectOpIndices(child, out);
  }
}


std::string FormatSeconds(int64_t ns) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f s", static_cast<double>(ns) / 1e9);
  return buf;
}

std::string FormatOffsetMs(double ms) {
  char buf[32];
  const double a = std::fabs(ms);
  if (a >= 1000) {
    std::snprintf(buf, sizeof buf, "%+.3g s", ms / 1000);
  } else if (a >= 1) {
    std::snprintf(buf, sizeof buf, "%+.3g ms", ms);
  } else {
    std::snprintf(buf, sizeof buf, "%+.2f ms", ms);
  }
  return buf;
}

std::string DescribePartition(const nlohmann::json& grudge) {
  if (!grudge.is_object() || grudge.empty()) return "no cuts";
  std::map<std::string, std::set<std::string>> drops;
  std::set<std::string> hosts;
  for (const auto& [host, list] : grudge.items()) {
    hosts.insert(host);
    if (!list.is_array()) continue;
    for (const auto& other : list) {
      if (!other.is_string()) continue;
      drops[host].insert(other.get<std::string>());
      hosts.insert(other.get<std::string>());
    }
  }
  bool symmetric = true;
  for (const auto& [a, set] : drops) {
    for (const auto& b : set) symmetric = symmetric && drops[b].count(a) > 0;
  }
  std::vector<std::string> parts;
  if (!symmetric) {
    for (const auto& [a, set] : drops) {
      if (set.empty()) continue;
      parts.push_back(a + " drops " + CompactNames({set.begin(), set.end()}));
    }
    return "one-way: " + JoinStrings(parts, "; ");
  }
  // Islands of nodes: nodes that still reach each other.
  std::vector<std::string> nodes;
  for (const auto& h : hosts) {
    if (!IsClientHost(h)) nodes.push_back(h);
  }
  std::sort(nodes.begin(), nodes.end(), NaturalLess);
  std::vector<size_t> parent(nodes.size());
  std::iota(parent.begin(), parent.end(), 0);
  std::function<size_t(size_t)> root = [&](size_t x) {
    return parent[x] == x ? x : parent[x] = root(parent[x]);
  };
  for (size_t a = 0; a < nodes.size(); ++a) {
    for (size_t b = a + 1; b < nodes.size(); ++b) {
      if (!drops[nodes[a]].count(nodes[b])) parent[root(b)] = root(a);
    }
  }
  std::map<size_t, std::vector<std::string>> islands;
  for (size_t a = 0; a < nodes.size(); ++a) islands[root(a)].push_back(nodes[a]);
  if (islands.size() > 1) {
    std::vector<std::string> names;
    for (auto& [r, members] : islands) names.push_back(CompactNames(members));
    parts.push_back(JoinStrings(names, " | "));
  }
  // Clients grouped by the hosts they were cut from.
  std::map<std::string, std::vector<std::string>> clients_by_cut;
  for (const auto& [host, set] : drops) {
    if (!IsClientHost(host) || set.empty()) continue;
    clients_by_cut[CompactNames({set.begin(), set.end()})].push_back(host);
  }
  std::vector<std::pair<std::string, std::string>> groups;
  for (auto& [cut, clients] : clients_by_cut) groups.emplace_back(CompactNames(clients), cut);
  std::sort(groups.begin(), groups.end(),
            [](const auto& a, const auto& b) { return a.first.size() < b.first.size(); });
  for (const auto& [clients, cut] : groups) parts.push_back(clients + " cut from " + cut);
  return parts.empty() ? "no cuts" : JoinStrings(parts, "; ");
}

std::string DescribeFault(const std::string& f, const std::string& family,
                          const nlohmann::json& value, const std::string& error) {
  std::string out = f;
  auto ms_text = [](double ms) { return FormatDurationNs(ms * 1e6); };
  if (family == "partition") {
    if (value.is_object() && value.contains("grudge")) {
      out += ": " + DescribePartition(value["grudge"]);
    } else if (std::string shape = StringField(value, "shape"); !shape.empty()) {
      out += " (" + shape + ")";
    }
  } else if (family == "clock") {
    if (value.is_object() && value.contains("clocks") && value["clocks"].is_object()) {
      std::vector<std::string> names;
      for (const auto& [node, seen] : value["clocks"].items()) names.push_back(node);
      std::sort(names.begin(), names.end(), NaturalLess);
      std::vector<std::string> offsets;
      for (const auto& node : names) {
        const auto& seen = value["clocks"][node];
        const nlohmann::json* o = NumberField(seen, "observed_offset_ms");
        if (o == nullptr) o = NumberField(seen, "offset_ms");
        offsets.push_back(node + " " + (o ? FormatOffsetMs(o->get<double>()) : "?"));
      }
      // Nodes whose offsets read the same are named together.
      std::vector<std::string> merged;
      for (size_t i = 0; i < offsets.size();) {
        const std::string off = offsets[i].substr(offsets[i].find(' ') + 1);
        std::vector<std::string> same;
        size_t j = i;
        while (j < offsets.size() && offsets[j].substr(offsets[j].find(' ') + 1) == off) {
          same.push_back(offsets[j].substr(0, offsets[j].find(' ')));
          ++j;
        }
        merged.push_back(JoinStrings(same, " ") + " " + off);
        i = j;
      }
      out += " " + JoinStrings(merged, ", ");
    } else if (std::string node = StringField(value, "node"); !node.empty()) {
      out += " " + node;
    }
    auto delta = NumberField(value, "delta_ms"), period = NumberField(value, "period_ms");
    if (delta && period) {
      out += " (\xC2\xB1" + FormatOffsetMs(delta->get<double>()).substr(1) + " every " +
             ms_text(period->get<double>()) + ")";
    }
    if (auto rate = NumberField(value, "rate")) out += " (rate " + DumpJson(*rate) + ")";
  } else if (family == "client-pause" || family == "client-crash") {
    if (auto p = NumberField(value, "process")) out += " p" + DumpJson(*p);
    if (std::string key = StringField(value, "key"); !key.empty()) out += " holding " + key;
    if (auto ms = NumberField(value, "ms"); ms && family == "client-pause") {
      out += " for " + ms_text(ms->get<double>());
    }
  } else if (family == "failover") {
    std::string from = StringField(value, "old"), to = StringField(value, "new");
    if (!from.empty() || !to.empty()) out += " " + from + " \xE2\x86\x92 " + to;
    if (auto after = NumberField(value, "promoted_after_ms")) {
      out += ", promoted after " + ms_text(after->get<double>());
    }
    if (std::string mode = StringField(value, "mode"); !mode.empty()) out += " (" + mode + ")";
  } else if (value.is_object()) {
    if (auto n = value.find("nodes"); n != value.end() && n->is_array()) {
      std::vector<std::string> names;
      for (const auto& x : *n) names.push_back(x.is_string() ? x.get<std::string>() : DumpJson(x));
      out += names.empty() ? std::string(" (no node)") : " " + CompactNames(names);
    } else if (std::string node = StringField(value, "node"); !node.empty()) {
      out += " " + node;
    }
  }
  if (!error.empty()) out += " \xE2\x80\x94 " + error;
  return ShortText(SanitizeUtf8(out), 300);
}

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

ReportModel ReportModel::Build(const History& history, const nlohmann::json& results,
                               const Options& options) {
  ReportModel m;
  for (const Op& op : history) {
    m.end_time_ = std::max(m.end_time_, op.time);
    auto& c = m.counts_[op.f];
    ++c[static_cast<size_t>(op.type)];
  }

  // Lanes: the nemesis first (fault ops read best above the clients), then
  // client lanes. A process whose op ended info never runs again and its
  // worker continues as a new process (as in Jepsen), so one lane per process
  // would leave hundreds of mostly empty lanes; instead processes whose lives
  // do not overlap share a lane, preferring the lane freed most recently
  // (that is usually the same worker).
  struct Life {
    int64_t first = INT64_MAX, last = 0;
  };
  std::map<int64_t, Life> lives;
  std::unordered_map<int64_t, bool> waiting;  // process -> has an open invoke
  bool has_nemesis = false;
  for (const Op& op : history) {
    if (op.is_nemesis()) {
      has_nemesis = true;
      continue;
    }
    Life& life = lives[op.process];
    life.first = std::min(life.first, op.time);
    life.last = std::max(life.last, op.time);
    waiting[op.process] = op.type == OpType::kInvoke;
  }
  for (auto& [p, life] : lives) {
    if (waiting[p]) life.last = m.end_time_;  // never completed: busy to the end
  }
  std::vector<std::pair<int64_t, int64_t>> by_start;  // (first, process)
  for (const auto& [p, life] : lives) by_start.emplace_back(life.first, p);
  std::sort(by_start.begin(), by_start.end());
  std::set<std::pair<int64_t, int32_t>> free_lanes;  // (free since, lane)
  std::vector<std::vector<int64_t>> lane_members;
  std::unordered_map<int64_t, int32_t> packed;
  for (const auto& [first, p] : by_start) {
    auto it = free_lanes.lower_bound({first, INT32_MIN});
    int32_t lane;
    if (it == free_lanes.begin()) {
      lane = static_cast<int32_t>(lane_members.size());
      lane_members.emplace_back();
    } else {
      --it;
      lane = it->second;
      free_lanes.erase(it);
    }
    lane_members[static_cast<size_t>(lane)].push_back(p);
    free_lanes.insert({lives[p].last, lane});
  }
  // Order lanes by their lowest process so p0, p1, ... read top-down.
  std::vector<size_t> lane_order(lane_members.size());
  std::iota(lane_order.begin(), lane_order.end(), 0);
  auto lowest = [&](size_t l) {
    return *std::min_element(lane_members[l].begin(), lane_members[l].end());
  };
  std::sort(lane_order.begin(), lane_order.end(),
            [&](size_t a, size_t b) { return lowest(a) < lowest(b); });
  std::unordered_map<int64_t, int32_t> lane_of;
  if (has_nemesis) {
    lane_of[kNemesisProcess] = 0;
    m.lane_labels_.push_back("nemesis");
    m.lane_process_.push_back(kNemesisProcess);
  }
  for (size_t l : lane_order) {
    const auto lane = static_cast<int32_t>(m.lane_labels_.size());
    const auto& members = lane_members[l];
    std::string label = members.front() == kSentinelProcess
                            ? std::string("sentinel")
                            : "p" + std::to_string(members.front());
    if (members.size() > 1) label += " +" + std::to_string(members.size() - 1);
    m.lane_labels_.push_back(label);
    m.lane_process_.push_back(members.front());
    for (int64_t p : members) {
      lane_of[p] = lane;
      m.segment_lane_.push_back(lane);
      m.segment_process_.push_back(p);
      m.segment_start_.push_back(lives[p].first);
    }
  }

  // Rows: one per invoke with its completion; a completion without invoke
  // (e.g. a Jepsen-style lone :info) is a zero-length row of its own.
  const std::vector<int64_t> completion_of = PairCompletions(history);
  std::vector<bool> paired(history.size(), false);
  for (int64_t c : completion_of) {
    if (c >= 0) paired[static_cast<size_t>(c)] = true;
  }
  Interner fs, keys, errors;
  std::vector<Row> rows;
  rows.reserve(history.size() / 2 + 16);
  for (size_t i = 0; i < history.size(); ++i) {
    const Op& op = history[i];
    if (op.type != OpType::kInvoke && paired[i]) continue;
    Row r;
    r.index = op.index;
    r.start = op.time;
    r.lane = lane_of[op.process];
    r.f = fs.Id(op.f);
    r.invoke_pos = i;
    const Op* done = nullptr;
    if (op.type == OpType::kInvoke) {
      if (completion_of[i] >= 0) {
        r.completion_pos = completion_of[i];
        done = &history[static_cast<size_t>(completion_of[i])];
        r.completion_index = done->index;
        r.duration = std::max<int64_t>(0, done->time - op.time);
        r.outcome = OutcomeOf(done->type);
      }
    } else {
      done = &op;
      r.duration = 0;
      r.outcome = OutcomeOf(op.type);
    }
    const std::string& key = !op.key.empty() || done == nullptr ? op.key : done->key;
    if (!key.empty()) r.key = keys.Id(key);
    if (done != nullptr && !done->error.empty()) r.error = errors.Id(done->error);
    rows.push_back(r);
  }
  std::stable_sort(rows.begin(), rows.end(),
                   [](const Row& a, const Row& b) { return a.start < b.start; });

  std::set<int64_t> anomaly_ops;
  if (results.is_object()) {
    if (auto it = results.find("anomalies"); it != results.end()) CollectOpIndices(*it, &anomaly_ops);
  }
  const size_t n = rows.size();
  m.index_.reserve(n), m.completion_index_.reserve(n), m.start_.reserve(n);
  m.duration_.reserve(n), m.lane_.reserve(n), m.f_.reserve(n), m.key_.reserve(n);
  m.error_.reserve(n), m.outcome_.reserve(n);
  const bool all_values = n <= options.max_values;
  for (size_t r = 0; r < n; ++r) {
    const Row& row = rows[r];
    m.index_.push_back(row.index);
    m.completion_index_.push_back(row.completion_index < 0 ? -1
                                                           : row.completion_index - row.index);
    m.start_.push_back(row.start);
    m.duration_.push_back(row.duration);
    m.lane_.push_back(row.lane);
    m.f_.push_back(row.f);
    m.key_.push_back(row.key);
    m.error_.push_back(row.error);
    m.outcome_.push_back(static_cast<uint8_t>(row.outcome));

    const Op& inv = history[row.invoke_pos];
    const Op* done = row.completion_pos >= 0 ? &history[static_cast<size_t>(row.completion_pos)]
                                             : nullptr;
    const nlohmann::json& value =
        done != nullptr && !done->value.is_null() ? done->value : inv.value;
    if (value.is_null()) continue;
    const bool keep = all_values || inv.is_nemesis() || anomaly_ops.count(row.index) ||
                      (done != nullptr && anomaly_ops.count(done->index));
    if (!keep) {
      m.values_truncated_ = true;
      continue;
    }
    m.value_rows_.push_back(static_cast<int64_t>(r));
    std::string text = DumpJson(value);
    if (text.size() > 2000) text = text.substr(0, 2000) + "…";
    m.values_.push_back(SanitizeUtf8(text));
  }

  // Holds: [acquire ok, release invoke] per process and key, like the
  // double-holder checker. A hold never released runs to the end (open).
  struct OpenHold {
    int64_t start, expiry, acquire_index;
  };
  std::map<std::pair<int64_t, std::string>, OpenHold> open;
  auto close_hold = [&](const std::pair<int64_t, std::string>& pk, const OpenHold& h, int64_t end,
                        bool is_open) {
    m.hold_key_.push_back(keys.Id(pk.second));
    m.hold_lane_.push_back(lane_of[pk.first]);
    m.hold_process_.push_back(pk.first);
    m.hold_start_.push_back(h.start);
    m.hold_end_.push_back(std::max(h.start, end));
    m.hold_expiry_.push_back(h.expiry);
    m.hold_acquire_index_.push_back(h.acquire_index);
    m.hold_open_.push_back(is_open ? 1 : 0);
  };
  for (const Op& op : history) {
    if (!op.is_client() || op.key.empty()) continue;
    auto pk = std::make_pair(op.process, op.key);
    if (op.type == OpType::kOk && IsAcquire(op.f)) {
      if (auto it = open.find(pk); it != open.end()) {
        close_hold(pk, it->second, op.time, true);
        open.erase(it);
      }
      int64_t expiry = -1;
      if (op.value.is_object()) {
        auto v = op.value.find("validity_ms");
        if (v != op.value.end() && v->is_number()) {
          expiry = op.time + static_cast<int64_t>(v->get<double>() * 1e6);
        }
      }
      open[pk] = OpenHold{op.time, expiry, op.index};
    } else if (op.type == OpType::kInvoke && IsRelease(op.f)) {
      if (auto it = open.find(pk); it != open.end()) {
        close_hold(pk, it->second, op.time, false);
        open.erase(it);
      }
    }
  }
  for (const auto& [pk, h] : open) close_hold(pk, h, m.end_time_, true);
  {
    std::vector<size_t> order(m.hold_start_.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return m.hold_start_[a] < m.hold_start_[b]; });
    auto permute = [&](auto& v) {
      auto copy = v;
      for (size_t i = 0; i < order.size(); ++i) v[i] = copy[order[i]];
    };
    permute(m.hold_key_), permute(m.hold_lane_), permute(m.hold_process_);
    permute(m.hold_start_), permute(m.hold_end_);
    permute(m.hold_expiry_), permute(m.hold_acquire_index_), permute(m.hold_open_);
  }

  // Fault windows from the marks the run recorded on nemesis ops (rows are
  // in start order): a begin opens its window, the end with the same
  // number closes it; one never closed shades to the end of the run.
  std::map<int64_t, size_t> open_windows;  // window -> index in faults_
  std::vector<Fault> events;
  for (const Row& row : rows) {
    const Op& inv = history[row.invoke_pos];
    const Op* done = row.completion_pos >= 0 ? &history[static_cast<size_t>(row.completion_pos)]
                                             : nullptr;
    const nlohmann::json& value =
        done != nullptr && !done->value.is_null() ? done->value : inv.value;
    const std::string& error = done != nullptr ? done->error : inv.error;
    // Point events: Sentinel promotions, and locks a client was told it lost.
    if (inv.is_sentinel() && inv.f == "+switch-master") {
      const std::string from = StringField(value, "from"), to = StringField(value, "to");
      const std::string sentinel = StringField(value, "sentinel");
      // Each sentinel reports the same promotion: one event names them all.
      const std::string promotion = "promotion " + from + " \xE2\x86\x92 " + to + ", seen by";
      if (!events.empty() && events.back().family == "promotion" &&
          events.back().label.rfind(promotion, 0) == 0 &&
          row.start - events.back().start < 10'000'000'000) {
        if (!sentinel.empty()) events.back().label += " " + sentinel;
        continue;
      }
      Fault e;
      e.f = inv.f, e.family = "promotion", e.start = e.end = row.start, e.point = true;
      e.value = SanitizeUtf8(DumpJson(value));
      e.label = SanitizeUtf8(promotion + " " + sentinel);
      events.push_back(std::move(e));
      continue;
    }
    if (inv.is_client() && inv.f == "lock-lost") {
      Fault e;
      e.f = inv.f, e.family = "lock-lost", e.start = e.end = row.start, e.point = true;
      e.process = inv.process;
      if (!value.is_null()) e.value = SanitizeUtf8(DumpJson(value));
      e.label = ShortText(SanitizeUtf8("p" + std::to_string(inv.process) + " lost " + inv.key +
                                       (error.empty() ? "" : ": " + error)),
                          300);
      events.push_back(std::move(e));
      continue;
    }
    if (!inv.is_nemesis() || inv.fault.is_null()) continue;
    auto mark = FaultMarkFromJson(inv.fault);
    if (!mark) continue;  // histories are checked on load; a report shows what it can
    if (!mark->begins) {
      if (auto it = open_windows.find(mark->window); it != open_windows.end()) {
        Fault& fault = m.faults_[it->second];
        fault.end = row.duration >= 0 ? row.start + row.duration : row.start;
        fault.open = false;
        open_windows.erase(it);
      }
      continue;
    }
    Fault fault;
    fault.f = inv.f;
    fault.family = mark->family;
    fault.window = mark->window;
    fault.start = row.start;
    fault.end = m.end_time_;
    fault.open = true;
    if (!value.is_null()) fault.value = SanitizeUtf8(DumpJson(value));
    fault.label = DescribeFault(inv.f, mark->family, value, error);
    fault.effective = !Ineffective(mark->family, value, error);
    if (auto p = NumberField(value, "process");
        p && (mark->family == "client-pause" || mark->family == "client-crash")) {
      fault.process = p->get<int64_t>();
    }
    open_windows[mark->window] = m.faults_.size();
    m.faults_.push_back(std::move(fault));
  }
  for (auto& e : events) m.faults_.push_back(std::move(e));
  {
    std::set<std::pair<int, std::string>> lanes;
    for (const Fault& f : m.faults_) lanes.insert({FamilyRank(f.family), f.family});
    for (const auto& [rank, family] : lanes) m.fault_lanes_.push_back(family);
    for (const Fault& f : m.faults_) {
      m.fault_lane_.push_back(static_cast<int32_t>(
          std::find(m.fault_lanes_.begin(), m.fault_lanes_.end(), f.family) -
          m.fault_lanes_.begin()));
    }
  }

  // Clock offsets per node, as the clock nemesis observed them on its ops.
  {
    std::map<std::string, ClockSeries, decltype(&NaturalLess)> series(&NaturalLess);
    for (const Op& op : history) {
      if (!op.is_nemesis() || op.type == OpType::kInvoke || !op.value.is_object()) continue;
      auto clocks = op.value.find("clocks");
      if (clocks == op.value.end() || !clocks->is_object()) continue;
      for (const auto& [node, seen] : clocks->items()) {
        const nlohmann::json* o = NumberField(seen, "observed_offset_ms");
        if (o == nullptr) continue;
        ClockSeries& s = series[node];
        if (s.time.empty() && op.time > 0) s.time.push_back(0), s.offset_ms.push_back(0);
        s.node = node;
        s.time.push_back(op.time);
        s.offset_ms.push_back(o->get<double>());
      }
    }
    for (auto& [node, s] : series) m.clocks_.push_back(std::move(s));
  }

  // The resource's reads and writes (inventory, counter): read and final
  // values when they completed, writes at their completion (or invoke when
  // they never completed), init's value.
  for (const Row& row : rows) {
    const Op& inv = history[row.invoke_pos];
    if (inv.key.empty() || inv.type != OpType::kInvoke) continue;
    uint8_t kind;
    if (inv.f == "read") kind = 0;
    else if (inv.f == "write") kind = 1;
    else if (inv.f == "init") kind = 2;
    else if (inv.f == "final") kind = 3;
    else continue;
    const Op* done = row.completion_pos >= 0 ? &history[static_cast<size_t>(row.completion_pos)]
                                             : nullptr;
    const nlohmann::json& source = kind == 0 || kind == 3 ? (done ? done->value : inv.value)
                                                          : inv.value;
    const nlohmann::json* v = NumberField(source, "value");
    if (v == nullptr || !v->is_number_integer()) continue;
    m.res_key_.push_back(keys.Id(inv.key));
    m.res_lane_.push_back(row.lane);
    m.res_time_.push_back(done != nullptr ? done->time : inv.time);
    m.res_value_.push_back(v->get<int64_t>());
    m.res_kind_.push_back(kind);
    m.res_outcome_.push_back(static_cast<uint8_t>(row.outcome));
  }
  {
    std::vector<size_t> order(m.res_time_.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return m.res_time_[a] < m.res_time_[b]; });
    auto permute = [&](auto& v) {
      auto copy = v;
      for (size_t i = 0; i < order.size(); ++i) v[i] = copy[order[i]];
    };
    permute(m.res_key_), permute(m.res_lane_), permute(m.res_time_), permute(m.res_value_);
    permute(m.res_kind_), permute(m.res_outcome_);
  }
  for (size_t j = 0; j < m.hold_acquire_index_.size(); ++j) {
    m.hold_by_acquire_.emplace(m.hold_acquire_index_[j], j);
  }

  // Latency by f, and the plots.
  const int nb = std::max(1, options.plot_buckets);
  const double span = static_cast<double>(std::max<int64_t>(1, m.end_time_));
  const double bucket_ns = span / nb;
  auto bucket_of = [&](int64_t t) {
    return std::clamp(static_cast<int>(static_cast<double>(t) / bucket_ns), 0, nb - 1);
  };
  std::vector<std::string> f_names = fs.Take();
  const size_t nf = f_names.size();
  std::vector<std::vector<int64_t>> by_f(nf);
  std::vector<std::vector<std::vector<int64_t>>> by_f_bucket(nf);
  std::array<std::vector<int64_t>, 3> throughput;
  for (auto& t : throughput) t.assign(static_cast<size_t>(nb), 0);
  int64_t lmin = INT64_MAX, lmax = 0;
  size_t completed = 0;
  for (const Row& row : rows) {
    if (!history[row.invoke_pos].is_client() || row.outcome == OpOutcome::kPending) continue;
    ++completed;
    const auto o = static_cast<size_t>(row.outcome);
    ++throughput[o][static_cast<size_t>(bucket_of(row.start + row.duration))];
    const auto fi = static_cast<size_t>(row.f);
    by_f[fi].push_back(row.duration);
    if (by_f_bucket[fi].empty()) by_f_bucket[fi].resize(static_cast<size_t>(nb));
    by_f_bucket[fi][static_cast<size_t>(bucket_of(row.start))].push_back(row.duration);
    auto& s = m.latency_[f_names[fi]];
    ++s.count;
    ++s.by_outcome[o];
    lmin = std::min(lmin, row.duration);
    lmax = std::max(lmax, row.duration);
  }
  for (size_t fi = 0; fi < nf; ++fi) {
    if (by_f[fi].empty()) continue;
    auto& v = by_f[fi];
    auto& s = m.latency_[f_names[fi]];
    s.mean_ns = std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
    std::sort(v.begin(), v.end());
    auto q = [&](double p) {
      return v[std::min(v.size() - 1, static_cast<size_t>(p * static_cast<double>(v.size())))];
    };
    s.p50 = q(0.5), s.p90 = q(0.9), s.p99 = q(0.99), s.p999 = q(0.999), s.max = v.back();
  }

  nlohmann::json plots;
  plots["n"] = nb;
  plots["bucket_ns"] = bucket_ns;
  plots["tp"] = {{"ok", throughput[0]}, {"fail", throughput[1]}, {"info", throughput[2]}};
  nlohmann::json quantiles = nlohmann::json::array();
  for (size_t fi = 0; fi < nf; ++fi) {
    if (by_f_bucket[fi].empty()) continue;
    nlohmann::json series{{"f", f_names[fi]}};
    std::vector<int64_t> p50, p95, p99, mx;
    for (auto& bucket : by_f_bucket[fi]) {
      p50.push_back(Quantile(&bucket, 0.5));
      p95.push_back(Quantile(&bucket, 0.95));
      p99.push_back(Quantile(&bucket, 0.99));
      mx.push_back(bucket.empty() ? -1 : *std::max_element(bucket.begin(), bucket.end()));
    }
    series["p50"] = p50, series["p95"] = p95, series["p99"] = p99, series["max"] = mx;
    quantiles.push_back(std::move(series));
  }
  plots["q"] = std::move(quantiles);

  // Latency scatter: exact points when few, else counts on a log-latency grid
  // (outliers stay visible, unlike random sampling).
  nlohmann::json scatter;
  if (completed <= options.max_raw_scatter_points) {
    std::vector<int64_t> t, l, o;
    for (const Row& row : rows) {
      if (!history[row.invoke_pos].is_client() || row.outcome == OpOutcome::kPending) continue;
      t.push_back(row.start), l.push_back(row.duration), o.push_back(static_cast<int>(row.outcome));
    }
    scatter = {{"mode", "raw"}, {"t", t}, {"l", l}, {"o", o}};
  } else {
    const int xb = std::max(1, options.scatter_x_bins), yb = std::max(1, options.scatter_y_bins);
    const double lo = std::log10(static_cast<double>(std::max<int64_t>(1, lmin)));
    const double hi = std::max(lo + 1e-9, std::log10(static_cast<double>(std::max<int64_t>(1, lmax))));
    std::unordered_map<int64_t, int64_t> cells;
    for (const Row& row : rows) {
      if (!history[row.invoke_pos].is_client() || row.outcome == OpOutcome::kPending) continue;
      int x = std::clamp(static_cast<int>(static_cast<double>(row.start) / span * xb), 0, xb - 1);
      double ll = std::log10(static_cast<double>(std::max<int64_t>(1, row.duration)));
      int y = std::clamp(static_cast<int>((ll - lo) / (hi - lo) * yb), 0, yb - 1);
      int64_t cell = (static_cast<int64_t>(x) * yb + y) * 3 + static_cast<int>(row.outcome);
      ++cells[cell];
    }
    std::vector<std::pair<int64_t, int64_t>> sorted(cells.begin(), cells.end());
    std::sort(sorted.begin(), sorted.end());
    // A packed table of (cell minus the previous cell, count minus 1);
    // a cell is (x * yb + y) * 3 + outcome.
    std::vector<int64_t> cell_delta, count_less_one;
    int64_t previous = 0;
    for (auto [cell, count] : sorted) {
      cell_delta.push_back(cell - previous), count_less_one.push_back(count - 1);
      previous = cell;
    }
    std::string packed;
    AppendPackedTable(&packed, {{&cell_delta, false}, {&count_less_one, false}});
    scatter = {{"mode", "grid"}, {"xb", xb}, {"yb", yb}, {"lmin", std::pow(10.0, lo)},
               {"lmax", std::pow(10.0, hi)}, {"n", sorted.size()}, {"cells", packed}};
  }
  plots["sc"] = std::move(scatter);
  m.plots_ = std::move(plots);

  m.fs_ = std::move(f_names);
  m.keys_ = keys.Take();
  m.errors_ = errors.Take();
  return m;
}


AnomalyStory ReportModel::StoryOf(const nlohmann::json& anomaly) const {
  AnomalyStory story;
  if (!anomaly.is_object()) return story;
  // The model's hold that an acquire reference opened, if any.
  auto hold_of = [&](const nlohmann::json& ref) -> const size_t* {
    if (!IsOpRef(ref)) return nullptr;
    auto it = hold_by_acquire_.find(ref["index"].get<int64_t>());
    return it == hold_by_acquire_.end() ? nullptr : &it->second;
  };
  auto from_model = [&](StoryHold* h, const nlohmann::json& acquire) {
    const size_t* j = hold_of(acquire);
    if (j == nullptr) return false;
    h->process = hold_process_[*j];
    h->start = hold_start_[*j], h->end = hold_end_[*j];
    h->lease_end = hold_expiry_[*j];
    h->open = hold_open_[*j] != 0;
    return true;
  };
  auto ref_time = [](const nlohmann::json& ref) -> int64_t {
    const nlohmann::json* t = IsOpRef(ref) ? NumberField(ref, "time") : nullptr;
    return t ? t->get<int64_t>() : -1;
  };
  if (auto holders = anomaly.find("holders"); holders != anomaly.end() && holders->is_array()) {
    for (const auto& holder : *holders) {
      if (!holder.is_object()) continue;
      StoryHold h;
      const bool known = from_model(&h, holder.value("acquire", nlohmann::json()));
      if (auto p = holder.find("process"); p != holder.end() && p->is_number_integer()) {
        h.process = p->get<int64_t>();
      }
      auto start = NumberField(holder, "start"), end = NumberField(holder, "end");
      if (start && end) {
        h.start = start->get<int64_t>(), h.end = end->get<int64_t>();
      } else if (!known) {
        continue;
      }
      if (auto lease = NumberField(holder, "lease_end")) h.lease_end = lease->get<int64_t>();
      if (auto release = holder.find("release"); release != holder.end() && release->is_null()) {
        h.open = true;
      }
      story.holds.push_back(std::move(h));
    }
  } else if (auto pairs = anomaly.find("overlapping");
             pairs != anomaly.end() && pairs->is_array() && !pairs->empty() &&
             (*pairs)[0].is_object() && (*pairs)[0].contains("buyers")) {
    for (const auto& buyer : (*pairs)[0]["buyers"]) {
      if (!buyer.is_object()) continue;
      StoryHold h;
      const bool known = from_model(&h, buyer.value("hold", nlohmann::json()));
      if (auto p = buyer.find("process"); p != buyer.end() && p->is_number_integer()) {
        h.process = p->get<int64_t>();
      }
      const int64_t read = ref_time(buyer.value("read", nlohmann::json()));
      const int64_t write = ref_time(buyer.value("write", nlohmann::json()));
      const int64_t written = ref_time(buyer.value("write_done", nlohmann::json()));
      if (read >= 0) h.marks.push_back({read, "read " + StringField(buyer, "read_value")});
      if (write >= 0) h.marks.push_back({write, "wrote " + StringField(buyer, "wrote")});
      if (!known) {
        if (read < 0) continue;
        h.start = read;
        h.end = std::max({read, write, written});
      }
      story.holds.push_back(std::move(h));
    }
  }
  std::stable_sort(story.holds.begin(), story.holds.end(),
                   [](const StoryHold& a, const StoryHold& b) { return a.start < b.start; });
  if (auto span = anomaly.find("overlap_ns");
      span != anomaly.end() && span->is_array() && span->size() == 2 && (*span)[0].is_number()) {
    story.overlap_start = (*span)[0].get<int64_t>();
    story.overlap_end = (*span)[1].is_number() ? (*span)[1].get<int64_t>() : end_time_;
  } else if (story.holds.size() >= 2) {
    std::tie(story.overlap_start, story.overlap_end) = OverlapOf(story.holds[0], story.holds[1]);
  }
  std::vector<int64_t> times, processes;
  CollectRefTimes(anomaly, &times, &processes);
  static const nlohmann::json kNone;
  auto window = anomaly.find("window");
  for (const auto& h : story.holds) processes.push_back(h.process);
  if (story.overlap_start >= 0) {
    story.at = story.overlap_start;
  } else if (auto from = NumberField(window != anomaly.end() ? *window : kNone, "from_ms")) {
    story.at = static_cast<int64_t>(from->get<double>() * 1e6);  // a stuck lock's refusals
  } else if (auto op = anomaly.find("op"); op != anomaly.end() && ref_time(*op) >= 0) {
    story.at = ref_time(*op);  // the op that broke it (a linearizability failure)
  } else if (!times.empty()) {
    story.at = *std::min_element(times.begin(), times.end());
  }
  if (story.at < 0) return story;
  story.cause = ExplainAt(faults_, story.at, processes);
  for (size_t i = 0; i < faults_.size(); ++i) {
    const Fault& f = faults_[i];
    if (!f.point && f.effective && f.start <= story.at && story.at <= f.end) {
      story.active.push_back(static_cast<int64_t>(i));
    }
  }
  return story;
}

void ReportModel::AppendJson(std::string* out) const {
  out->reserve(out->size() + start_.size() * 16 + hold_start_.size() * 24 + 65536);
  *out += "{\"version\":2,\"t1\":" + std::to_string(end_time_) + ",";
  AppendStringArray(out, "lanes", lane_labels_);
  *out += ',';
  AppendIntArray(out, "lane_process", lane_process_);
  *out += ",\"segments\":{";
  AppendIntArray(out, "lane", segment_lane_);
  *out += ',';
  AppendIntArray(out, "process", segment_process_);
  *out += ',';
  AppendIntArray(out, "s", segment_start_);
  *out += "},";
  AppendStringArray(out, "fs", fs_);
  *out += ',';
  AppendStringArray(out, "keys", keys_);
  *out += ',';
  AppendStringArray(out, "errors", errors_);
  // Each row's f, key, outcome and error as one "kind" (few distinct).
  std::map<std::array<int32_t, 4>, int32_t> kind_of;
  std::vector<int64_t> kinds;
  std::array<std::vector<int32_t>, 4> kind_columns;
  kinds.reserve(start_.size());
  for (size_t r = 0; r < start_.size(); ++r) {
    const std::array<int32_t, 4> k = {f_[r], key_[r], outcome_[r], error_[r]};
    auto [it, added] = kind_of.try_emplace(k, static_cast<int32_t>(kind_of.size()));
    if (added) {
      for (size_t c = 0; c < 4; ++c) kind_columns[c].push_back(k[c]);
    }
    kinds.push_back(it->second);
  }
  *out += ",\"kinds\":{";
  AppendIntArray(out, "f", kind_columns[0]);
  *out += ',';
  AppendIntArray(out, "k", kind_columns[1]);
  *out += ',';
  AppendIntArray(out, "o", kind_columns[2]);
  *out += ',';
  AppendIntArray(out, "e", kind_columns[3]);
  // Starts from the first one on, which needs no sign then (sorted).
  const int64_t t0 = start_.empty() ? 0 : start_.front();
  *out += "},\"ops\":{\"n\":" + std::to_string(start_.size()) + ",\"t0\":" + std::to_string(t0) + ',';
  {
    // What the first frame draws, then what hovering and clicks need.
    const std::vector<int64_t> start = Deltas(start_, t0), lane = Int64s(lane_);
    std::vector<int64_t> duration = duration_;
    for (int64_t& d : duration) ++d;  // -1 (never completed) as 0
    AppendTable(out, "rows",
                {{&start, false}, {&duration, false}, {&lane, false}, {&kinds, false}});
    *out += ',';
    const std::vector<int64_t> index = Deltas(index_);
    AppendTable(out, "ids", {{&index, true}, {&completion_index_, true}});
  }
  *out += "},\"values\":{";
  AppendIntArray(out, "rows", value_rows_);
  *out += ',';
  AppendStringArray(out, "text", values_);
  *out += std::string(",\"truncated\":") + (values_truncated_ ? "true" : "false");
  const int64_t h0 = hold_start_.empty() ? 0 : hold_start_.front();
  *out += "},\"holds\":{\"n\":" + std::to_string(hold_start_.size()) + ",\"t0\":" + std::to_string(h0) + ',';
  {
    const std::vector<int64_t> key = Int64s(hold_key_), lane = Int64s(hold_lane_);
    const std::vector<int64_t> start = Deltas(hold_start_, h0);
    std::vector<int64_t> length(hold_start_.size()), lease(hold_start_.size());
    for (size_t j = 0; j < hold_start_.size(); ++j) {
      length[j] = hold_end_[j] - hold_start_[j];
      lease[j] = hold_expiry_[j] - hold_start_[j];
    }
    lease = Deltas(std::move(lease));
    AppendTable(out, "rows",
                {{&key, false}, {&lane, false}, {&start, false}, {&length, false}, {&lease, true}});
    *out += ',';
    const std::vector<int64_t> acquire = Deltas(hold_acquire_index_), open = Int64s(hold_open_);
    AppendTable(out, "ids", {{&acquire, true}, {&open, false}});
  }
  *out += "},\"faults\":";
  nlohmann::json faults = nlohmann::json::array();
  for (size_t i = 0; i < faults_.size(); ++i) {
    const Fault& f = faults_[i];
    faults.push_back({{"f", f.f},
                      {"family", f.family},
                      {"lane", fault_lane_[i]},
                      {"s", f.start},
                      {"e", f.end},
                      {"open", f.open},
                      {"point", f.point},
                      {"ok", f.effective},
                      {"proc", f.process},
                      {"label", f.label},
                      {"value", f.value}});
  }
  *out += DumpJson(faults);
  *out += ',';
  AppendStringArray(out, "fault_lanes", fault_lanes_);
  *out += ",\"clocks\":";
  nlohmann::json clocks = nlohmann::json::array();
  for (const auto& c : clocks_) {
    clocks.push_back({{"node", c.node}, {"t", c.time}, {"ms", c.offset_ms}});
  }
  *out += DumpJson(clocks);
  *out += ",\"res\":{";
  AppendIntArray(out, "k", res_key_);
  *out += ',';
  AppendIntArray(out, "p", res_lane_);
  *out += ',';
  AppendIntArray(out, "t", res_time_, /*delta=*/true);
  *out += ',';
  AppendIntArray(out, "v", res_value_);
  *out += ',';
  AppendIntArray(out, "kind", res_kind_);
  *out += ',';
  AppendIntArray(out, "o", res_outcome_);
  *out += '}';
  *out += ",\"plots\":";
  *out += DumpJson(plots_);
  *out += '}';
}

}  // namespace locksmith
