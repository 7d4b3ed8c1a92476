#include "reports/report_model.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <numeric>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "reports/escape.h"

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
  // worker continues as a new process (DESIGN.md), so one lane per process
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
    permute(m.hold_key_), permute(m.hold_lane_), permute(m.hold_process_), permute(m.hold_start_), permute(m.hold_end_);
    permute(m.hold_expiry_), permute(m.hold_acquire_index_), permute(m.hold_open_);
  }

  // Fault windows from the marks the run recorded on nemesis ops (rows are
  // in start order): a begin opens its window, the end with the same
  // number closes it; one never closed shades to the end of the run.
  std::map<int64_t, size_t> open_windows;  // window -> index in faults_
  for (const Row& row : rows) {
    const Op& inv = history[row.invoke_pos];
    if (!inv.is_nemesis() || inv.fault.is_null()) continue;
    auto mark = FaultMarkFromJson(inv.fault);
    if (!mark) continue;  // histories are checked on load; a report shows what it can
    const Op* done = row.completion_pos >= 0 ? &history[static_cast<size_t>(row.completion_pos)]
                                             : nullptr;
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
    fault.start = row.start;
    fault.end = m.end_time_;
    fault.open = true;
    const nlohmann::json& value = done != nullptr && !done->value.is_null() ? done->value : inv.value;
    if (!value.is_null()) fault.value = SanitizeUtf8(DumpJson(value));
    open_windows[mark->window] = m.faults_.size();
    m.faults_.push_back(std::move(fault));
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
    std::vector<int64_t> flat;
    flat.reserve(sorted.size() * 4);
    for (auto [cell, count] : sorted) {
      flat.push_back(cell / 3 / yb), flat.push_back(cell / 3 % yb), flat.push_back(cell % 3);
      flat.push_back(count);
    }
    scatter = {{"mode", "grid"}, {"xb", xb}, {"yb", yb}, {"lmin", std::pow(10.0, lo)},
               {"lmax", std::pow(10.0, hi)}, {"c", flat}};
  }
  plots["sc"] = std::move(scatter);
  m.plots_ = std::move(plots);

  m.fs_ = std::move(f_names);
  m.keys_ = keys.Take();
  m.errors_ = errors.Take();
  return m;
}

void ReportModel::AppendJson(std::string* out) const {
  out->reserve(out->size() + start_.size() * 48 + 4096);
  *out += "{\"version\":1,\"t1\":" + std::to_string(end_time_) + ",";
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
  *out += ",\"ops\":{";
  AppendIntArray(out, "i", index_, /*delta=*/true);
  *out += ',';
  AppendIntArray(out, "ci", completion_index_);
  *out += ',';
  AppendIntArray(out, "s", start_, /*delta=*/true);
  *out += ',';
  AppendIntArray(out, "d", duration_);
  *out += ',';
  AppendIntArray(out, "p", lane_);
  *out += ',';
  AppendIntArray(out, "f", f_);
  *out += ',';
  AppendIntArray(out, "k", key_);
  *out += ',';
  AppendIntArray(out, "o", outcome_);
  *out += ',';
  AppendIntArray(out, "e", error_);
  *out += "},\"values\":{";
  AppendIntArray(out, "rows", value_rows_);
  *out += ',';
  AppendStringArray(out, "text", values_);
  *out += std::string(",\"truncated\":") + (values_truncated_ ? "true" : "false");
  *out += "},\"holds\":{";
  AppendIntArray(out, "k", hold_key_);
  *out += ',';
  AppendIntArray(out, "p", hold_lane_);
  *out += ',';
  AppendIntArray(out, "proc", hold_process_);
  *out += ',';
  AppendIntArray(out, "s", hold_start_);
  *out += ',';
  AppendIntArray(out, "e", hold_end_);
  *out += ',';
  AppendIntArray(out, "x", hold_expiry_);
  *out += ',';
  AppendIntArray(out, "a", hold_acquire_index_);
  *out += ',';
  AppendIntArray(out, "open", hold_open_);
  *out += "},\"faults\":";
  nlohmann::json faults = nlohmann::json::array();
  for (const Fault& f : faults_) {
    faults.push_back({{"f", f.f},
                      {"family", f.family},
                      {"s", f.start},
                      {"e", f.end},
                      {"open", f.open},
                      {"value", f.value}});
  }
  *out += DumpJson(faults);
  *out += ",\"plots\":";
  *out += DumpJson(plots_);
  *out += '}';
}

}  // namespace locksmith
