// report_bench: writes synthetic mutex-workload runs of 10k, 100k and 1M
// history entries (50 workers, 8 keys, a nemesis killing and partitioning)
// and reports how long report.html and junit.xml take and how big they are.
// The nemesis takes turns: kill, partition, clock bump, client pause, each
// window marked and described (results.json's "fault_descriptions") as a
// run marks and describes it, so the fault lanes have work to do.
// Usage: report_bench [--quick] [output dir, default /tmp/locksmith-report-bench]
//        (--quick: 10k and 100k only)
//        report_bench --run-dir DIR   (write the reports of one run)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "checker/checker.h"
#include "history/history.h"
#include "reports/html_report.h"
#include "reports/junit_report.h"

namespace {

using locksmith::History;
using locksmith::Op;
using locksmith::OpType;

// An event-driven mutex simulation: each worker loops acquire (fails while
// the key is held; ~3% time out as info and continue as a new process),
// holds, releases, thinks. Keys stay mutually exclusive, so the page shows
// realistic holds; the synthetic anomalies come from SyntheticResults.
class MutexSimulation {
 public:
  explicit MutexSimulation(uint64_t seed) : rng_(seed) {
    for (int w = 0; w < kWorkers; ++w) {
      workers_.push_back({w, static_cast<int64_t>(unit_(rng_) * kThinkNs), 0, ""});
    }
  }

  // Client ops until there are about `target_ops` (unsorted, unnumbered).
  std::vector<Op> Run(size_t target_ops) {
    ops_.reserve(target_ops + 64);
    while (ops_.size() + 4 < target_ops) {
      auto it = std::min_element(workers_.begin(), workers_.end(),
                                 [](const Worker& a, const Worker& b) { return a.t < b.t; });
      const int64_t lat = static_cast<int64_t>(latency_ms_(rng_) * 1e6) + 50'000;
      if (it->state == 0) {
        Acquire(*it, lat);
      } else {
        Emit(*it, OpType::kInvoke, "release", it->t, nullptr, "");
        Emit(*it, OpType::kOk, "release", it->t + lat / 2, nullptr, "");
        it->state = 0;
        it->t += lat / 2 + static_cast<int64_t>(unit_(rng_) * kThinkNs);
      }
    }
    return std::move(ops_);
  }

  int64_t first_worker_process() const { return workers_[0].process; }

 private:
  static constexpr int kWorkers = 50;
  static constexpr int kKeys = 8;
  // About 1 s of run per 600 ops per 50 workers, like a real local run.
  static constexpr double kThinkNs = 80e6;
  struct Worker {
    int64_t process;
    int64_t t;
    int state = 0;  // 0: next acquire, 1: holding
    std::string key;
  };

  void Emit(const Worker& w, OpType type, const std::string& f, int64_t time,
            nlohmann::json value, std::string error) {
    Op op;
    op.time = time, op.process = w.process, op.type = type, op.f = f, op.key = w.key;
    op.value = std::move(value), op.error = std::move(error);
    ops_.push_back(std::move(op));
  }

  void Acquire(Worker& w, int64_t lat) {
    const int k = static_cast<int>(rng_() % kKeys);
    w.key = "lock-" + std::to_string(k);
    Emit(w, OpType::kInvoke, "acquire", w.t, nlohmann::json{{"lease_ms", 10000}}, "");
    const int64_t done = w.t + lat;
    if (unit_(rng_) < 0.03) {
      Emit(w, OpType::kInfo, "acquire", done, nullptr, "timeout");
      w.process = next_process_++;
      w.t = done + static_cast<int64_t>(unit_(rng_) * kThinkNs);
    } else if (free_at_[static_cast<size_t>(k)] > w.t) {
      Emit(w, OpType::kFail, "acquire", done, nullptr, "lock held");
      w.t = done + static_cast<int64_t>(unit_(rng_) * kThinkNs);
    } else {
      const int64_t hold = static_cast<int64_t>(unit_(rng_) * kThinkNs / 4);
      free_at_[static_cast<size_t>(k)] = done + hold + 2 * lat;
      Emit(w, OpType::kOk, "acquire", done,
           nlohmann::json{{"token", std::to_string(rng_())}, {"fence", ++fence_},
                          {"validity_ms", 9800}},
           "");
      w.state = 1;
      w.t = done + hold;
    }
  }

  std::mt19937_64 rng_;
  std::lognormal_distribution<double> latency_ms_{0.0, 0.8};
  std::uniform_real_distribution<double> unit_{0.0, 1.0};
  std::vector<Worker> workers_;
  std::vector<int64_t> free_at_ = std::vector<int64_t>(kKeys, 0);
  std::vector<Op> ops_;
  int64_t next_process_ = kWorkers;
  int64_t fence_ = 0;
};

// One fault of a family, as the nemesis records it: its ops' names and
// values, and the words the run would write for it into results.json.
struct SyntheticFault {
  std::string begin, end;
  nlohmann::json begun, ended;
  std::string text;
};

SyntheticFault FaultOf(const std::string& family, int64_t n, int64_t paused_process) {
  const std::string node = "n" + std::to_string(1 + n % 5);
  if (family == "kill") return {"kill", "restart", {{"nodes", {node}}}, nullptr, "kill " + node};
  if (family == "partition") {
    const std::string client = "c" + std::to_string(n % 50);
    return {"partition", "heal",
            {{"grudge", {{client, {node}}, {node, {client}}}}, {"shape", "auto"}}, nullptr,
            "partition: " + client + " cut from " + node};
  }
  if (family == "clock") {
    return {"clock-bump", "clock-reset",
            {{"clocks", {{node, {{"observed_offset_ms", 60000.4}, {"offset_ms", 60000.0}}}}},
             {"delta_ms", 60000}},
            {{"clocks", {{node, {{"observed_offset_ms", 0.3}, {"offset_ms", 0.0}}}}}},
            "clock-bump " + node + " +60 s"};
  }
  return {"client-pause", "client-resume",
          {{"ms", 2000}, {"process", paused_process}, {"key", "lock-0"}}, nullptr,
          "client-pause p" + std::to_string(paused_process) + " holding lock-0 for 2.000 s"};
}

// The families' looks, as the harness writes them into results.json.
nlohmann::json SyntheticFamilies() {
  return nlohmann::json::parse(R"({
      "kill": {"lane": "kill", "order": 10, "color": "#c62828"},
      "partition": {"lane": "partition", "order": 30, "color": "#ef6c00"},
      "clock": {"lane": "clock", "order": 40, "color": "#00838f"},
      "client-pause": {"lane": "client-pause", "order": 50, "color": "#7b4fc9",
                       "client_mark": "span", "client_ops": ["pause"]}})");
}

struct SyntheticRun {
  History history;
  nlohmann::json fault_descriptions;
};

// A mutex run with a fault every 10 s, the families taking turns, each
// window marked as the run marks it and described as the run describes it:
// kill, partition (a client cut from a node), a clock bump with the offset
// observed, a client pause of worker 0.
SyntheticRun Synthesize(size_t target_ops, uint64_t seed) {
  MutexSimulation simulation(seed);
  std::vector<Op> ops = simulation.Run(target_ops);
  int64_t duration_ns = 0;
  for (const Op& op : ops) duration_ns = std::max(duration_ns, op.time);
  std::map<int64_t, std::string> texts;  // window -> its words
  int64_t window = 0;
  for (int64_t t = 3'000'000'000, n = 0; t + 4'000'000'000 < duration_ns;
       t += 10'000'000'000, ++n, ++window) {
    static const char* const kFamilies[] = {"kill", "partition", "clock", "client-pause"};
    const std::string family = kFamilies[n % 4];
    SyntheticFault fault = FaultOf(family, n, simulation.first_worker_process());
    auto nem = [&](OpType type, const std::string& f, int64_t time, nlohmann::json value,
                   bool begins) {
      Op op;
      op.time = time, op.process = locksmith::kNemesisProcess, op.type = type, op.f = f;
      op.value = std::move(value);
      op.fault = locksmith::FaultMark{window, family, begins}.ToJson();
      ops.push_back(std::move(op));
    };
    nem(OpType::kInvoke, fault.begin, t, nullptr, true);
    nem(OpType::kInfo, fault.begin, t + 20'000'000, fault.begun, true);
    nem(OpType::kInvoke, fault.end, t + 4'000'000'000, nullptr, false);
    nem(OpType::kInfo, fault.end, t + 4'030'000'000, fault.ended, false);
    texts[window] = fault.text;
  }
  std::stable_sort(ops.begin(), ops.end(), [](const Op& a, const Op& b) { return a.time < b.time; });
  nlohmann::json windows = nlohmann::json::array();
  for (size_t i = 0; i < ops.size(); ++i) {
    ops[i].index = static_cast<int64_t>(i);
    if (ops[i].fault.is_null() || ops[i].type != OpType::kInvoke) continue;
    auto mark = locksmith::FaultMarkFromJson(ops[i].fault);
    if (!mark || !mark->begins) continue;
    windows.push_back({{"index", ops[i].index}, {"window", mark->window},
                       {"family", mark->family}, {"text", texts[mark->window]}});
  }
  return {std::move(ops), {{"families", SyntheticFamilies()}, {"windows", windows}}};
}

nlohmann::json SyntheticResults(const History& h, const nlohmann::json& fault_descriptions) {
  nlohmann::json anomalies = nlohmann::json::array();
  // Point a few anomalies at real ops so the page has something to show.
  for (size_t i = 0, n = 0; i < h.size() && n < 3; i += h.size() / 4 + 1) {
    size_t j = i;
    while (j < h.size() && !(h[j].type == OpType::kOk && h[j].f == "acquire")) ++j;
    if (j >= h.size()) break;
    const int64_t t = h[j].time;
    nlohmann::json holders = {
        {{"process", h[j].process}, {"acquire", locksmith::OpRef(h[j])}, {"start", t},
         {"end", t + 40'000'000}, {"lease_end", t + 9'800'000'000}},
        {{"process", h[j].process + 1}, {"start", t - 5'000'000'000}, {"end", t + 1'000'000},
         {"lease_end", t - 200'000'000}}};
    anomalies.push_back({{"type", "double-holder"}, {"key", h[j].key}, {"class", "expired-lease"},
                         {"checker", "double-holder"}, {"holders", holders},
                         {"overlap_ns", {t, t + 1'000'000}},
                         {"ops", {locksmith::OpRef(h[j])}}});
    ++n;
  }
  return {{"valid", false},
          {"anomalies", anomalies},
          {"stats",
           {{"double-holder", {{"valid", false}, {"stats", {{"holds", h.size() / 5}}}}},
            {"perf", {{"valid", true}, {"stats", nlohmann::json::object()}}}}},
          {"fault_descriptions", fault_descriptions}};
}

double Seconds(std::chrono::steady_clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

}  // namespace

int main(int argc, char** argv) {
  // --run-dir DIR: (re)write report.html and junit.xml of an existing run.
  if (argc == 3 && std::string(argv[1]) == "--run-dir") {
    auto t0 = std::chrono::steady_clock::now();
    auto html = locksmith::WriteHtmlReport(argv[2]);
    if (!html) std::fprintf(stderr, "report.html: %s\n", html.error().c_str());
    auto junit = locksmith::WriteJunitXml(argv[2]);
    if (!junit) std::fprintf(stderr, "junit.xml: %s\n", junit.error().c_str());
    std::printf("%.3f s\n", Seconds(std::chrono::steady_clock::now() - t0));
    return html && junit ? 0 : 1;
  }
  bool quick = false;
  std::filesystem::path root = "/tmp/locksmith-report-bench";
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) == "--quick") {
      quick = true;
    } else {
      root = argv[i];
    }
  }
  std::printf("%-8s %12s %12s %12s %12s %10s\n", "ops", "render_s", "from_dir_s",
              "html_MB", "history_MB", "junit_KB");
  for (size_t n : {10'000u, 100'000u, 1'000'000u}) {
    if (quick && n > 100'000u) break;
    const SyntheticRun run = Synthesize(n, 42 + n);
    const History& history = run.history;
    const nlohmann::json results = SyntheticResults(history, run.fault_descriptions);
    const nlohmann::json config = {{"test_name", "bench-" + std::to_string(n)}, {"backend", "redlock"},
                                   {"workload", "mutex"},
                                   {"nemesis", {"kill", "partition", "clock", "client-pause"}},
                                   {"seed", 42 + n}, {"time_limit_s", history.back().time / 1'000'000'000}};
    const auto dir = root / ("ops-" + std::to_string(n));
    std::filesystem::create_directories(dir);
    {
      std::ofstream out(dir / "history.jsonl");
      for (const Op& op : history) out << locksmith::OpToJsonLine(op) << '\n';
      std::ofstream(dir / "results.json") << results.dump();
      std::ofstream(dir / "config.json") << config.dump(2);
    }
    auto t0 = std::chrono::steady_clock::now();
    auto html = locksmith::RenderHtmlReport(history, results, config);
    auto t1 = std::chrono::steady_clock::now();
    if (!html) {
      std::fprintf(stderr, "render failed: %s\n", html.error().c_str());
      return 1;
    }
    auto st = locksmith::WriteHtmlReport(dir.string());
    auto t2 = std::chrono::steady_clock::now();
    if (!st) {
      std::fprintf(stderr, "report failed: %s\n", st.error().c_str());
      return 1;
    }
    if (auto j = locksmith::WriteJunitXml(dir.string()); !j) {
      std::fprintf(stderr, "junit failed: %s\n", j.error().c_str());
      return 1;
    }
    std::printf("%-8zu %12.3f %12.3f %12.2f %12.2f %10.1f\n", history.size(),
                Seconds(t1 - t0), Seconds(t2 - t1),
                static_cast<double>(std::filesystem::file_size(dir / "report.html")) / 1e6,
                static_cast<double>(std::filesystem::file_size(dir / "history.jsonl")) / 1e6,
                static_cast<double>(std::filesystem::file_size(dir / "junit.xml")) / 1e3);
    std::fflush(stdout);
  }
  std::printf("reports under %s\n", root.c_str());
  return 0;
}
