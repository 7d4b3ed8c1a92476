// checker_bench: check time and peak memory of the linearizability checker
// on generated histories (mutex and cas-register at 10k, 100k and 1M
// events, 5 to 50 processes, with timed-out ops), plus a batch of small
// Jepsen etcd-like cas-register histories full of timeouts. Each case runs
// in a forked child so its peak RSS (getrusage maxrss) is its own.
// Usage: checker_bench [--quick]   (quick: skips the 1M cases)
//        checker_bench --jepsen COUNT EVENTS PROCESSES INFO_RATE STALE_RATE
//        checker_bench --dir DIR [--model M] [--initial JSON] [--timeout S]
//                      [--repeat N] [--expect FILE]
// --dir times the check of every history file in DIR (sorted by name): per
// file the load time and the check time (best of N runs, default 5, so
// small files are not dominated by timer noise), then the average and max
// with the load excluded and included. --expect names a file of lines
// "NAME valid|invalid" (Porcupine's and Knossos's published verdicts, say);
// each file's verdict is then compared and the disagreements counted.
// Not a test: scripts/bench-checker.sh builds it in Release and runs it.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <queue>
#include <random>
#include <string>
#include <vector>

#include "checker/check_file.h"
#include "history/history_file.h"

namespace locksmith {
namespace {

using nlohmann::json;

struct Workload {
  std::string model;  // "mutex", "owner-mutex" or "cas-register"
  size_t events = 0;
  int processes = 0;
  int keys = 0;
  double info_rate = 0;  // share of ops that time out
  // Share of ok reads made stale, to get non-linearizable histories.
  double stale_rate = 0;
};

// Simulates processes doing ops on correct objects: each op takes effect at
// an instant between its invoke and its completion. A timed-out cas-register
// op took effect or not at random; a timed-out acquire did not (a lease
// would expire it) and a timed-out release did. A process whose op timed
// out is replaced by a new process number, as in Jepsen.
class Simulator {
 public:
  Simulator(const Workload& w, uint32_t seed) : w_(w), rng_(seed) {}

  History Run() {
    History history;
    history.reserve(w_.events + 64);
    slots_.resize(w_.processes);
    values_.assign(w_.keys, nullptr);
    holder_.assign(w_.keys, -1);
    for (int s = 0; s < w_.processes; ++s) {
      slots_[s].process = s;
      Schedule(Uniform(0, 10), kStart, s);
    }
    next_process_ = w_.processes;
    while (!events_.empty()) {
      const Event e = events_.top();
      events_.pop();
      Slot& slot = slots_[e.slot];
      switch (e.kind) {
        case kStart:
          if (history.size() + 2 * static_cast<size_t>(w_.processes) >= w_.events) break;
          Invoke(slot, e.time, &history);
          Schedule(e.time + Uniform(1, 30), kEffect, e.slot);
          break;
        case kEffect:
          Effect(slot);
          Schedule(e.time + Uniform(1, 30), kComplete, e.slot);
          break;
        case kComplete:
          Complete(slot, e.time, &history);
          Schedule(e.time + Uniform(0, 20), kStart, e.slot);
          break;
      }
    }
    return history;
  }

 private:
  enum Kind { kStart, kEffect, kComplete };
  struct Event {
    double time;
    uint64_t seq;
    Kind kind;
    int slot;
    bool operator>(const Event& o) const {
      return time != o.time ? time > o.time : seq > o.seq;
    }
  };
  struct Slot {
    int64_t process = 0;
    int held_key = -1;  // mutex: the key this process holds
    Op invoke;
    int key = 0;
    bool timed_out = false;
    bool applied = false;
    OpType outcome = OpType::kOk;
    json result;
  };

  double Uniform(double lo, double hi) { return std::uniform_real_distribution<>(lo, hi)(rng_); }
  int Below(int n) { return static_cast<int>(rng_() % static_cast<uint32_t>(n)); }
  void Schedule(double time, Kind kind, int slot) {
    events_.push(Event{time, seq_++, kind, slot});
  }

  bool IsMutex() const { return w_.model != "cas-register"; }

  void Invoke(Slot& slot, double time, History* history) {
    Op op;
    op.index = static_cast<int64_t>(history->size());
    op.time = static_cast<int64_t>(time * 1e6);
    op.process = slot.process;
    op.type = OpType::kInvoke;
    if (IsMutex()) {
      if (slot.held_key >= 0) {
        op.f = "release";
        slot.key = slot.held_key;
      } else {
        op.f = "acquire";
        slot.key = Below(w_.keys);
      }
      op.key = "lock-" + std::to_string(slot.key);
    } else {
      slot.key = Below(w_.keys);
      const int roll = Below(10);
      op.f = roll < 4 ? "read" : roll < 7 ? "write" : "cas";
      const json v = op.f == "read"    ? json(nullptr)
                     : op.f == "write" ? json(Below(5))
                                       : json::array({Below(5), Below(5)});
      op.value = w_.keys > 1 ? json::array({slot.key, v}) : v;
    }
    slot.invoke = op;
    slot.timed_out = Uniform(0, 1) < w_.info_rate;
    slot.applied = false;
    history->push_back(std::move(op));
  }

  void Effect(Slot& slot) {
    const std::string& f = slot.invoke.f;
    slot.outcome = OpType::kOk;
    slot.result = nullptr;
    if (IsMutex()) {
      if (f == "acquire") {
        if (slot.timed_out) return;  // never reached the service
        if (holder_[slot.key] >= 0) {
          slot.outcome = OpType::kFail;
          return;
        }
        holder_[slot.key] = slot.process;
        slot.held_key = slot.key;
      } else {
        holder_[slot.key] = -1;
        slot.held_key = -1;
      }
      return;
    }
    if (slot.timed_out && Below(2) == 0) return;  // lost before it took effect
    json& value = values_[slot.key];
    const json& in = w_.keys > 1 ? slot.invoke.value[1] : slot.invoke.value;
    if (f == "read") {
      slot.result = value;
      if (Uniform(0, 1) < w_.stale_rate && !history_values_.empty()) {
        slot.result = history_values_[history_values_.size() - 1 - Below(
            static_cast<int>(std::min<size_t>(history_values_.size(), 8)))];
      }
    } else if (f == "write") {
      value = in;
    } else if (value == in[0]) {
      value = in[1];
    } else {
      slot.outcome = OpType::kFail;
    }
    if (f != "read") history_values_.push_back(value);
    if (history_values_.size() > 64) history_values_.erase(history_values_.begin());
  }

  void Complete(Slot& slot, double time, History* history) {
    Op op = slot.invoke;
    op.index = static_cast<int64_t>(history->size());
    op.time = static_cast<int64_t>(time * 1e6);
    if (slot.timed_out) {
      op.type = OpType::kInfo;
      op.error = "timed-out";
      slot.process = next_process_++;
      slot.held_key = -1;
    } else {
      op.type = slot.outcome;
      if (!IsMutex() && op.f == "read") {
        op.value = w_.keys > 1 ? json::array({slot.key, slot.result}) : slot.result;
      }
      if (IsMutex() && op.f == "acquire" && op.type == OpType::kOk) {
        op.value = {{"token", std::to_string(op.index)}, {"fence", op.index}};
      }
    }
    history->push_back(std::move(op));
  }

  Workload w_;
  std::mt19937 rng_;
  std::priority_queue<Event, std::vector<Event>, std::greater<Event>> events_;
  uint64_t seq_ = 0;
  std::vector<Slot> slots_;
  std::vector<json> values_;
  std::vector<int64_t> holder_;
  std::vector<json> history_values_;
  int64_t next_process_ = 0;
};

long PeakRssKiB() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss;
}

const char* VerdictName(Validity v) {
  return v == Validity::kTrue ? "valid" : v == Validity::kFalse ? "invalid" : "unknown";
}

// Runs `body` in a child process and relays its one-line report.
template <typename Body>
void InChild(Body body) {
  int fds[2];
  if (pipe(fds) != 0) return;
  std::fflush(stdout);
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    const std::string line = body();
    if (write(fds[1], line.data(), line.size()) < 0) _exit(1);
    _exit(0);
  }
  close(fds[1]);
  std::string out;
  char buffer[4096];
  ssize_t n;
  while ((n = read(fds[0], buffer, sizeof(buffer))) > 0) out.append(buffer, n);
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  std::printf("%s", out.empty() ? "  (case crashed)\n" : out.c_str());
  std::fflush(stdout);
}

std::string RunCase(const Workload& w) {
  const History history = Simulator(w, 42).Run();
  size_t info = 0;
  for (const Op& op : history) info += op.type == OpType::kInfo;
  LinearizabilityOptions options;
  options.model = w.model;
  options.timeout_s = 60;
  const auto start = std::chrono::steady_clock::now();
  auto result = CheckLinearizable(history, options);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  char line[512];
  if (!result) {
    std::snprintf(line, sizeof(line), "  %-13s error: %s\n", w.model.c_str(),
                  result.error().c_str());
    return line;
  }
  std::snprintf(line, sizeof(line),
                "| %-12s | %8zu | %5d | %4d | %5.1f%% | %-7s | %8.3f s | %10llu | %7.1f MiB | "
                "%7.1f MiB |\n",
                w.model.c_str(), history.size(), w.processes, w.keys,
                100.0 * static_cast<double>(info) / static_cast<double>(history.size() / 2),
                VerdictName(result->valid), seconds,
                static_cast<unsigned long long>(result->stats["states_explored"].get<uint64_t>()),
                static_cast<double>(result->stats["peak_memory_bytes"].get<size_t>()) / 1048576.0,
                static_cast<double>(PeakRssKiB()) / 1024.0);
  return line;
}

// Small histories like the etcd ones Jepsen recorded: values 0-4, many
// timeouts, stale reads in every other history.
std::string RunJepsenBatch(int count, size_t min_events, int processes, double info_rate,
                           double stale_rate = 0.2) {
  std::vector<double> times;
  int valid = 0, invalid = 0, unknown = 0;
  size_t events = 0;
  for (int i = 0; i < count; ++i) {
    Workload w{"cas-register", min_events + static_cast<size_t>(i % 51), processes, 1,
               info_rate, i % 2 ? stale_rate : 0.0};
    const History history = Simulator(w, 1000 + static_cast<uint32_t>(i)).Run();
    events += history.size();
    LinearizabilityOptions options;
    options.model = "cas-register";
    const auto start = std::chrono::steady_clock::now();
    auto result = CheckLinearizable(history, options);
    times.push_back(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    if (!result) return "  jepsen-like batch error: " + result.error() + "\n";
    (result->valid == Validity::kTrue    ? valid
     : result->valid == Validity::kFalse ? invalid
                                         : unknown)++;
  }
  double total = 0, worst = 0;
  for (double t : times) {
    total += t;
    worst = std::max(worst, t);
  }
  char line[512];
  std::snprintf(line, sizeof(line),
                "| etcd-like cas-register x%d (avg %zu events, %d procs, %.0f%% timeouts) | %d "
                "valid, %d invalid, %d unknown | avg %.3f ms | max %.3f ms | peak RSS %.1f MiB |\n",
                count, events / static_cast<size_t>(count), processes, 100 * info_rate, valid,
                invalid, unknown,
                1e3 * total / count, 1e3 * worst, static_cast<double>(PeakRssKiB()) / 1024.0);
  return line;
}

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

struct DirOptions {
  std::string dir;
  LinearizabilityOptions check;
  int repeat = 5;
  std::string expect_file;
};

// "NAME valid|invalid" per line; '#' starts a comment.
Result<std::map<std::string, Validity>> LoadExpectations(const std::string& path) {
  std::map<std::string, Validity> expected;
  if (path.empty()) return expected;
  std::ifstream in(path);
  if (!in) return Error{path + ": cannot open the expectations file"};
  std::string name, verdict;
  while (in >> name) {
    if (name[0] == '#') {
      std::getline(in, verdict);
      continue;
    }
    if (!(in >> verdict) || (verdict != "valid" && verdict != "invalid")) {
      return Error{path + ": expected \"NAME valid|invalid\" lines, at " + name};
    }
    expected[name] = verdict == "valid" ? Validity::kTrue : Validity::kFalse;
  }
  return expected;
}

// Times the check of every file in a directory; returns the exit code.
int RunDirectory(const DirOptions& o) {
  auto expected = LoadExpectations(o.expect_file);
  if (!expected) {
    std::fprintf(stderr, "checker_bench: %s\n", expected.error().c_str());
    return 254;
  }
  std::vector<std::filesystem::path> files;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(o.dir, ec)) {
    if (entry.is_regular_file() && entry.path().filename() != "EXPECTED") {
      files.push_back(entry.path());
    }
  }
  if (ec) {
    std::fprintf(stderr, "checker_bench: %s: %s\n", o.dir.c_str(), ec.message().c_str());
    return 254;
  }
  std::sort(files.begin(), files.end());
  std::printf("| file | events | verdict | expected | load ms | check ms | states |\n"
              "|---|---|---|---|---|---|---|\n");
  double check_sum = 0, check_max = 0, total_sum = 0, total_max = 0;
  int checked = 0, agree = 0, disagree = 0, unknown = 0, errors = 0;
  for (const auto& path : files) {
    const std::string name = path.filename().string();
    auto start = std::chrono::steady_clock::now();
    auto history = LoadHistoryFile(path.string(), o.check.format);
    const double load = SecondsSince(start);
    if (!history) {
      std::printf("| %s | - | error: %s | | | | |\n", name.c_str(), history.error().c_str());
      ++errors;
      continue;
    }
    double best = 0;
    Result<CheckResult> result = Error{"not run"};
    for (int run = 0; run < std::max(o.repeat, 1); ++run) {
      start = std::chrono::steady_clock::now();
      result = CheckLinearizable(*history, o.check);
      const double seconds = SecondsSince(start);
      best = run == 0 ? seconds : std::min(best, seconds);
      if (!result || result->valid == Validity::kUnknown) break;  // no point repeating
    }
    if (!result) {
      std::printf("| %s | %zu | error: %s | | | | |\n", name.c_str(), history->size(),
                  result.error().c_str());
      ++errors;
      continue;
    }
    ++checked;
    check_sum += best;
    check_max = std::max(check_max, best);
    total_sum += best + load;
    total_max = std::max(total_max, best + load);
    unknown += result->valid == Validity::kUnknown;
    std::string want = "-";
    if (auto it = expected->find(name); it != expected->end()) {
      want = VerdictName(it->second);
      (it->second == result->valid ? agree : disagree)++;
    }
    std::printf("| %s | %zu | %s | %s | %.3f | %.3f | %llu |\n", name.c_str(), history->size(),
                VerdictName(result->valid), want.c_str(), 1e3 * load, 1e3 * best,
                static_cast<unsigned long long>(result->stats.value("states_explored", 0ull)));
  }
  std::printf("\n%d files checked, %d errors, %d unknown", checked, errors, unknown);
  if (!expected->empty()) std::printf("; %d agree, %d disagree with the expectations", agree,
                                      disagree);
  if (checked > 0) {
    std::printf("\ncheck only:      avg %.3f ms, max %.3f ms (best of %d runs per file)"
                "\nload and check:  avg %.3f ms, max %.3f ms",
                1e3 * check_sum / checked, 1e3 * check_max, std::max(o.repeat, 1),
                1e3 * total_sum / checked, 1e3 * total_max);
  }
  std::printf("\n");
  return errors > 0 || disagree > 0 ? 1 : unknown > 0 ? 2 : 0;
}

}  // namespace
}  // namespace locksmith

int main(int argc, char** argv) {
  using locksmith::Workload;
  if (argc >= 3 && std::strcmp(argv[1], "--dir") == 0) {
    locksmith::DirOptions o;
    o.dir = argv[2];
    o.check.model = "cas-register";
    for (int i = 3; i + 1 < argc; i += 2) {
      const std::string flag = argv[i];
      const char* value = argv[i + 1];
      if (flag == "--model") {
        o.check.model = value;
      } else if (flag == "--initial") {
        o.check.initial = nlohmann::json::parse(value, nullptr, false);
        if (o.check.initial->is_discarded()) {
          std::fprintf(stderr, "checker_bench: --initial must be JSON, got %s\n", value);
          return 254;
        }
      } else if (flag == "--timeout") {
        o.check.timeout_s = std::atof(value);
      } else if (flag == "--repeat") {
        o.repeat = std::atoi(value);
      } else if (flag == "--expect") {
        o.expect_file = value;
      } else {
        std::fprintf(stderr, "checker_bench: unknown flag %s\n", flag.c_str());
        return 254;
      }
    }
    if ((argc - 3) % 2 != 0) {
      std::fprintf(stderr, "checker_bench: %s needs a value\n", argv[argc - 1]);
      return 254;
    }
    if (auto valid = locksmith::ValidateLinearizabilityOptions(o.check); !valid) {
      std::fprintf(stderr, "checker_bench: %s\n", valid.error().c_str());
      return 254;
    }
    if (o.expect_file.empty() && std::filesystem::exists(o.dir + "/EXPECTED")) {
      o.expect_file = o.dir + "/EXPECTED";
    }
    return locksmith::RunDirectory(o);
  }
  if (argc == 7 && std::strcmp(argv[1], "--jepsen") == 0) {
    locksmith::InChild([&] {
      return locksmith::RunJepsenBatch(std::atoi(argv[2]), std::strtoul(argv[3], nullptr, 10),
                                       std::atoi(argv[4]), std::atof(argv[5]),
                                       std::atof(argv[6]));
    });
    return 0;
  }
  const bool quick = argc > 1 && std::strcmp(argv[1], "--quick") == 0;
  std::printf(
      "| model        |   events | procs | keys |  info  | verdict |  check time |     states "
      "| engine peak | process peak RSS |\n"
      "|---|---|---|---|---|---|---|---|---|---|\n");
  std::vector<Workload> cases = {
      {"mutex", 10'000, 5, 10, 0.01, 0},
      {"mutex", 100'000, 20, 100, 0.01, 0},
      {"owner-mutex", 100'000, 20, 100, 0.01, 0},
      {"cas-register", 10'000, 5, 1, 0.05, 0},
      {"cas-register", 100'000, 20, 10, 0.05, 0},
  };
  if (!quick) {
    cases.push_back({"mutex", 1'000'000, 50, 100, 0.01, 0});
    cases.push_back({"owner-mutex", 1'000'000, 50, 100, 0.01, 0});
    cases.push_back({"cas-register", 1'000'000, 50, 100, 0.05, 0});
  }
  for (const Workload& w : cases) {
    locksmith::InChild([&] { return locksmith::RunCase(w); });
  }
  std::printf("\n");
  locksmith::InChild([] { return locksmith::RunJepsenBatch(100, 150, 5, 0.25); });
  // Harder than what Jepsen's etcd tests recorded: more processes, more
  // timeouts, longer histories.
  locksmith::InChild([] { return locksmith::RunJepsenBatch(100, 300, 10, 0.4); });
  locksmith::InChild([] { return locksmith::RunJepsenBatch(20, 2000, 20, 0.4); });
  return 0;
}
