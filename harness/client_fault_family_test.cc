// A client-side fault family is a plug-in: this file defines a made-up
// "client-slow" family (a worker's acquire waits before its request is
// sent) -- its worker half (a ClientFaultFamily), its nemesis and its
// registry entry -- and adds it with one line (AddNemesisFamily). Nothing
// else names it: no workload, lock client, mailbox of backends/ or phase of
// the run (harness/run_*.cc). A whole run on fakes (the real lifecycle, schedule,
// workers and fault ledger) then shows it fire in the history and the
// ledger.
#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "backends/client_faults.h"
#include "base/testing/temp_dir.h"
#include "harness/run.h"
#include "harness/run_modules.h"
#include "harness/signal_watcher.h"
#include "harness/testing/fake_run_modules.h"
#include "history/history_file.h"
#include "history/history_log.h"
#include "nemesis/nemesis_registry.h"

namespace locksmith {
namespace {

constexpr int64_t kSlowMs = 30;

// The worker half: the next worker about to send an acquire waits kSlowMs
// and notes it as a lone "slow" op of its process (the acquire is open).
class ClientSlowFaults : public ClientFaultFamily {
 public:
  void Request() {
    std::lock_guard lock(mu_);
    requested_ = true;
    taken_.reset();
  }
  void Cancel() {
    std::lock_guard lock(mu_);
    requested_ = false;
  }
  // The process that took the request, waiting up to `wait`.
  std::optional<int64_t> AwaitTaken(std::chrono::milliseconds wait) {
    std::unique_lock lock(mu_);
    cv_.wait_for(lock, wait, [this] { return taken_.has_value(); });
    requested_ = false;
    return taken_;
  }

  boost::asio::awaitable<ClientFaultEffect> At(ClientFaultPoint point, ClientFaultTarget& target,
                                               const std::string& key) override {
    if (point != ClientFaultPoint::kBeforeAcquire || !Take(target.process())) {
      co_return ClientFaultEffect{};
    }
    target.Note("slow", key, {{"ms", kSlowMs}, {"phase", "begin"}});
    co_await target.Sleep(std::chrono::milliseconds(kSlowMs));
    target.Note("slow", key, {{"ms", kSlowMs}, {"phase", "end"}});
    co_return ClientFaultEffect{};
  }

 private:
  bool Take(int64_t process) {
    std::lock_guard lock(mu_);
    if (!requested_) return false;
    requested_ = false;
    taken_ = process;
    cv_.notify_all();
    return true;
  }

  std::mutex mu_;
  std::condition_variable cv_;
  bool requested_ = false;
  std::optional<int64_t> taken_;
};

// The nemesis half: "client-slow" asks for one slow acquire and is observed
// when a worker took it; "client-slow-end" drops a request nobody took.
class ClientSlowNemesis : public Nemesis {
 public:
  explicit ClientSlowNemesis(ClientSlowFaults& faults) : faults_(faults) {}
  std::vector<std::string> Faults() const override { return {"client-slow", "client-slow-end"}; }
  FaultResult Invoke(const FaultOp& op) override {
    if (op.f == "client-slow-end") {
      faults_.Cancel();
      return {true, nlohmann::json::object(), ""};
    }
    faults_.Request();
    const std::optional<int64_t> process = faults_.AwaitTaken(std::chrono::seconds(2));
    if (!process) return {false, op.value, "no worker acquired within 2 s"};
    FaultResult slowed{true, {{"process", *process}, {"ms", kSlowMs}}, ""};
    slowed.observed = true;
    return slowed;
  }
  std::vector<HealFailure> Teardown() override {
    faults_.Cancel();
    return {};
  }

 private:
  ClientSlowFaults& faults_;
};

struct ClientSlowOptions {
  void Declare(OptionSet&) {}
};

Result<std::unique_ptr<Nemesis>> MakeClientSlowNemesis(const ModuleOptions&,
                                                       const NemesisContext& context) {
  ClientSlowFaults& faults = context.client_faults.Add(std::make_shared<ClientSlowFaults>());
  return std::unique_ptr<Nemesis>(new ClientSlowNemesis(faults));
}

WindowOps ClientSlowWindowOf(const ModuleOptions&) {
  return TimedWindow({"client-slow", nlohmann::json::object()}, {"client-slow-end", nullptr}, 50);
}

std::string DescribeClientSlow(const FaultOp& op) { return op.f; }

const FaultLook kClientSlowLook = {"client-slow",     90,     "#888888", DescribeClientSlow,
                                   ClientMark::kNone, nullptr};

void RegisterClientSlowOnce() {
  if (FindNemesis("client-slow").ok()) return;
  // The one registration line.
  AddNemesisFamily({"client-slow",
                    {"client-slow"},
                    "client-slow-end",
                    MakeOptions<ClientSlowOptions>,
                    MakeClientSlowNemesis,
                    ClientSlowWindowOf,
                    kClientSlowLook,
                    nullptr,
                    nullptr,
                    /*in_all=*/false,
                    nullptr,
                    /*own_lane=*/true});
}

TEST(ClientFaultFamilyTest, AFamilyOfATestsOwnFilesFiresThroughTheWorkersOfARun) {
  RegisterClientSlowOnce();
  testing::TempDir store;
  SignalWatcher signals;
  RunConfig config;
  config.store = store.path();
  config.test_name = "client-slow";
  config.seed = 11;
  config.time_limit_s = 0.8;
  config.concurrency = 3;
  config.nemesis = {"client-slow"};
  config.nemesis_interval_s = 0.2;
  ASSERT_TRUE(config.SelectModules().ok());
  RunModules modules = testing::FakeRunModules();
  modules.make_schedule = DefaultRunModules().make_schedule;  // the seeded schedule
  const RunOutcome outcome = ExecuteRun(config, signals, modules);
  ASSERT_EQ(outcome.exit_code, 0) << outcome.error;

  // The ledger counts it like any family: planned, fired, applied, observed.
  const nlohmann::json& families = outcome.faults["families"];
  ASSERT_EQ(families.size(), 1u) << outcome.faults;
  EXPECT_EQ(families[0]["family"], "client-slow");
  const int planned = families[0]["planned"].get<int>();
  EXPECT_GE(planned, 1) << outcome.faults;
  EXPECT_EQ(families[0]["fired"], planned) << outcome.faults;
  EXPECT_EQ(families[0]["applied"], planned) << outcome.faults;
  EXPECT_EQ(families[0]["observed"], planned) << outcome.faults;

  // Each slow acquire sits inside that worker's acquire, begin then end.
  auto history = LoadHistoryFile(RunHistoryFile(outcome.run_dir), "jsonl", nullptr);
  ASSERT_TRUE(history.ok()) << history.error();
  int begins = 0;
  for (size_t i = 0; i < history->size(); ++i) {
    const Op& op = (*history)[i];
    if (op.f != "slow" || op.value["phase"] != "begin") continue;
    ++begins;
    std::optional<std::string> before, after;  // the process's ops around it
    for (size_t j = i; j-- > 0;) {
      if ((*history)[j].process == op.process) {
        before = (*history)[j].f + ":" + std::string(OpTypeName((*history)[j].type));
        break;
      }
    }
    for (size_t j = i + 1; j < history->size(); ++j) {
      if ((*history)[j].process == op.process && (*history)[j].f != "slow") {
        after = (*history)[j].f;
        break;
      }
    }
    EXPECT_EQ(before, "acquire:invoke");
    EXPECT_EQ(after, "acquire");
  }
  EXPECT_EQ(begins, planned);
}

}  // namespace
}  // namespace locksmith
