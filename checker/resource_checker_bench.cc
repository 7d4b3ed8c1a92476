// resource_checker_bench: check time and peak memory of the inventory,
// counter and fencing checkers on generated histories of 1M events (and
// 100k): `processes` buyers over `keys` items, each purchase acquire, read,
// write, release (8 events), fenced, with a share of info writes and a share
// of overlapping purchases (two buyers read the same stock: lost updates),
// then the final reads. And the rw-cache workload's checkers (rw-cache:
// stale reads; rw-lock: writer overlaps) on a generated cache-aside history:
// 80% readers (cache read; on a miss database read and fill), 20% writers
// (write and invalidate), 0.1% info writes, and 0.5% of the fills stale (the
// value from before the last write: the stale reads after it are found).
// And the lock checkers every workload runs, on the inventory history:
// double-holder and foreign-release. The fences there come from one counter
// for every key (as ZooKeeper's czxids do), the fencing checker's worst case.
// Each case runs in a forked child so its peak RSS
// (getrusage maxrss, the generated history included) is its own; then the
// same history, written to a history.jsonl, is judged again in a fresh child
// as a run directory is, one pass over a JsonlOpStream (CheckStream): its
// peak RSS is what the checker keeps, not the history.
// Usage: resource_checker_bench [--quick]   (quick: 100k events only)
// Not a test: scripts/bench-checker.sh builds it in Release and runs it.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "checker/counter_checker.h"
#include "checker/double_holder.h"
#include "checker/fencing_checker.h"
#include "checker/foreign_release_checker.h"
#include "checker/inventory_checker.h"
#include "checker/rw_cache_checker.h"
#include "history/op_stream.h"

namespace locksmith {
namespace {

struct Case {
  // inventory | counter | fencing | rw-cache | rw-lock | double-holder | foreign-release
  std::string checker;
  size_t events = 0;
  int processes = 10;
  int keys = 10;
};

class Builder {
 public:
  void Add(int64_t process, OpType type, const char* f, const std::string& key,
           nlohmann::json value) {
    Op op;
    op.index = static_cast<int64_t>(history.size());
    op.time = op.index * 1000;
    op.process = process;
    op.type = type;
    op.f = f;
    op.key = key;
    op.value = std::move(value);
    history.push_back(std::move(op));
  }
  History history;
};

// Purchases one after another per key (the lock works), a few overlapping
// (the lock failed) and a few info writes; `sells`: inventory orders.
History Generate(const Case& c, bool sells) {
  Builder b;
  b.history.reserve(c.events + 64);
  std::mt19937_64 rng(42);
  std::vector<int64_t> value(static_cast<size_t>(c.keys), sells ? 1'000'000'000 : 0);
  std::vector<std::vector<std::string>> orders(static_cast<size_t>(c.keys));
  int64_t fence = 0;
  int64_t n = 0;
  while (b.history.size() + 8 < c.events) {
    const int k = static_cast<int>(rng() % static_cast<uint64_t>(c.keys));
    const std::string key = "item-" + std::to_string(k);
    const int64_t p = static_cast<int64_t>(rng() % static_cast<uint64_t>(c.processes));
    const int64_t read = value[static_cast<size_t>(k)];
    // More lost updates than info writes could hide: an invalid verdict, so
    // the evidence (pairs of buyers) is built too.
    const bool info = rng() % 1000 == 0;
    const bool overlapped = rng() % 200 == 0;  // its update is lost
    ++fence;
    b.Add(p, OpType::kInvoke, "acquire", key, {{"lease_ms", 1000}});
    b.Add(p, OpType::kOk, "acquire", key, {{"token", "t"}, {"fence", fence}, {"validity_ms", 990}});
    b.Add(p, OpType::kInvoke, "read", key, {{"fence", fence}});
    b.Add(p, OpType::kOk, "read", key, {{"value", read}});
    const int64_t next = sells ? read - 1 : read + 1;
    nlohmann::json w = {{"value", next}, {"read", read}, {"fence", fence}};
    std::string order;
    if (sells) {
      order = "o-" + std::to_string(++n);
      w["order"] = order;
    }
    b.Add(p, OpType::kInvoke, "write", key, std::move(w));
    b.Add(p, info ? OpType::kInfo : OpType::kOk, "write", key, nullptr);
    if (!overlapped) {
      value[static_cast<size_t>(k)] = next;
    }
    if (sells) orders[static_cast<size_t>(k)].push_back(order);
    b.Add(p, OpType::kInvoke, "release", key, {{"token", "t"}});
    b.Add(p, OpType::kOk, "release", key, nullptr);
  }
  for (int k = 0; k < c.keys; ++k) {
    const std::string key = "item-" + std::to_string(k);
    b.Add(1'000'000'000, OpType::kInvoke, "final", key, nullptr);
    nlohmann::json v = {{"value", value[static_cast<size_t>(k)]}};
    if (sells) v["orders"] = orders[static_cast<size_t>(k)];
    b.Add(1'000'000'000, OpType::kOk, "final", key, std::move(v));
  }
  return std::move(b.history);
}

// The rw-cache workload's history: holds one after another per key, readers
// sharing nothing (a reader's hold ends before the next begins), a few
// stale fills (the lock failed) and a few info writes.
History GenerateCache(const Case& c) {
  Builder b;
  b.history.reserve(c.events + 64);
  std::mt19937_64 rng(42);
  const auto keys = static_cast<size_t>(c.keys);
  std::vector<int64_t> db(keys, 0), before(keys, 0);
  std::vector<std::optional<int64_t>> cache(keys);
  constexpr int64_t kStore = 1'000'000'000;
  for (size_t k = 0; k < keys; ++k) {
    const std::string key = "cache-" + std::to_string(k);
    b.Add(kStore, OpType::kInvoke, "init", key, {{"value", 0}});
    b.Add(kStore, OpType::kOk, "init", key, nullptr);
  }
  int64_t fence = 0, written = 0;
  while (b.history.size() + 10 < c.events) {
    const auto k = static_cast<size_t>(rng() % keys);
    const std::string key = "cache-" + std::to_string(k);
    const int64_t p = static_cast<int64_t>(rng() % static_cast<uint64_t>(c.processes));
    const bool reader = rng() % 5 != 0;
    ++fence;
    b.Add(p, OpType::kInvoke, "acquire", key,
          {{"lease_ms", 1000}, {"mode", reader ? "read" : "write"}});
    b.Add(p, OpType::kOk, "acquire", key, {{"token", "t"}, {"fence", fence}, {"validity_ms", 990}});
    if (!reader) {
      const int64_t v = ++written;
      b.Add(p, OpType::kInvoke, "write", key, {{"value", v}, {"fence", fence}});
      b.Add(p, rng() % 1000 == 0 ? OpType::kInfo : OpType::kOk, "write", key, nullptr);
      before[k] = db[k];
      db[k] = v;
      cache[k].reset();
    } else {
      b.Add(p, OpType::kInvoke, "read", key, {{"fence", fence}});
      if (cache[k]) {
        b.Add(p, OpType::kOk, "read", key, {{"value", *cache[k]}, {"hit", true}});
      } else {
        b.Add(p, OpType::kOk, "read", key, {{"value", nullptr}, {"hit", false}});
        const bool stale = rng() % 200 == 0;
        const int64_t v = stale ? before[k] : db[k];
        b.Add(p, OpType::kInvoke, "read-db", key, {{"fence", fence}});
        b.Add(p, OpType::kOk, "read-db", key, {{"value", v}});
        b.Add(p, OpType::kInvoke, "fill", key, {{"value", v}, {"fence", fence}});
        b.Add(p, OpType::kOk, "fill", key, nullptr);
        cache[k] = v;
      }
    }
    b.Add(p, OpType::kInvoke, "release", key,
          {{"token", "t"}, {"mode", reader ? "read" : "write"}});
    b.Add(p, OpType::kOk, "release", key, nullptr);
  }
  for (size_t k = 0; k < keys; ++k) {
    const std::string key = "cache-" + std::to_string(k);
    b.Add(kStore, OpType::kInvoke, "final", key, nullptr);
    b.Add(kStore, OpType::kOk, "final", key,
          {{"value", db[k]}, {"cache", cache[k] ? nlohmann::json(*cache[k]) : nullptr}});
  }
  return std::move(b.history);
}

std::unique_ptr<Checker> MakeChecker(const std::string& name) {
  if (name == "inventory") return std::make_unique<InventoryChecker>(1'000'000'000);
  if (name == "counter") return std::make_unique<CounterChecker>();
  if (name == "fencing") return std::make_unique<FencingChecker>();
  if (name == "rw-cache") return std::make_unique<RwCacheChecker>();
  if (name == "rw-lock") return std::make_unique<DoubleHolderChecker>(1000, HoldModes::kReadWrite);
  if (name == "double-holder") return std::make_unique<DoubleHolderChecker>();
  return std::make_unique<ForeignReleaseChecker>();
}

const char* ValidityName(Validity v) {
  return v == Validity::kTrue ? "valid" : v == Validity::kFalse ? "invalid" : "unknown";
}

History GenerateFor(const Case& c) {
  const bool cache = c.checker == "rw-cache" || c.checker == "rw-lock";
  return cache ? GenerateCache(c) : Generate(c, c.checker == "inventory");
}

// The history in memory, checked whole; written to `jsonl` for StreamCase.
void RunCase(const Case& c, const std::string& jsonl) {
  const auto g0 = std::chrono::steady_clock::now();
  History h = GenerateFor(c);
  const double gen_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - g0).count();
  struct rusage before {};
  getrusage(RUSAGE_SELF, &before);
  std::unique_ptr<Checker> checker = MakeChecker(c.checker);
  const auto t0 = std::chrono::steady_clock::now();
  CheckResult r = checker->Check(h);
  const double check_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  struct rusage after {};
  getrusage(RUSAGE_SELF, &after);
  std::printf("%-15s %8zu events %3d procs %3d keys  check %6.3f s  (generate %5.2f s)  "
              "peak RSS %6.0f MiB (history alone %6.0f MiB)  %s, %zu anomalies\n",
              c.checker.c_str(), h.size(), c.processes, c.keys, check_s, gen_s,
              static_cast<double>(after.ru_maxrss) / 1024.0,
              static_cast<double>(before.ru_maxrss) / 1024.0, ValidityName(r.valid),
              r.anomalies.size());
  std::fflush(stdout);
  if (std::FILE* out = std::fopen(jsonl.c_str(), "w")) {
    for (const Op& op : h) std::fprintf(out, "%s\n", OpToJsonLine(op).c_str());
    std::fclose(out);
  }
}

// The same history read from its history.jsonl in one pass.
void StreamCase(const Case& c, const std::string& jsonl) {
  auto stream = JsonlOpStream::Open(jsonl);
  if (!stream) {
    std::printf("%s\n", stream.error().c_str());
    return;
  }
  std::unique_ptr<Checker> checker = MakeChecker(c.checker);
  const auto t0 = std::chrono::steady_clock::now();
  auto r = CheckStream(*checker, **stream);
  const double check_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  struct rusage after {};
  getrusage(RUSAGE_SELF, &after);
  if (!r) {
    std::printf("%s\n", r.error().c_str());
    return;
  }
  std::printf("%-15s the same history streamed from history.jsonl: read and check %6.3f s  "
              "peak RSS %6.0f MiB  %s, %zu anomalies\n",
              (c.checker + " (jsonl)").c_str(), check_s,
              static_cast<double>(after.ru_maxrss) / 1024.0, ValidityName(r->valid),
              r->anomalies.size());
  std::fflush(stdout);
}

// Runs `body` in a forked child and waits for it.
template <typename Body>
void InChild(Body body) {
  const pid_t pid = fork();
  if (pid == 0) {
    body();
    std::_Exit(0);
  }
  int status = 0;
  waitpid(pid, &status, 0);
}

}  // namespace
}  // namespace locksmith

int main(int argc, char** argv) {
  const bool quick = argc > 1 && std::strcmp(argv[1], "--quick") == 0;
  std::vector<locksmith::Case> cases;
  for (size_t events : {size_t{100'000}, size_t{1'000'000}}) {
    if (quick && events > 100'000) continue;
    for (const char* checker : {"inventory", "counter", "fencing", "rw-cache", "rw-lock",
                                "double-holder", "foreign-release"}) {
      cases.push_back({checker, events, 10, 10});
    }
  }
  char dir[] = "/tmp/resource-bench-XXXXXX";
  if (mkdtemp(dir) == nullptr) return 1;
  const std::string jsonl = std::string(dir) + "/history.jsonl";
  for (const auto& c : cases) {
    locksmith::InChild([&] { locksmith::RunCase(c, jsonl); });
    locksmith::InChild([&] { locksmith::StreamCase(c, jsonl); });
    unlink(jsonl.c_str());
  }
  rmdir(dir);
  return 0;
}
