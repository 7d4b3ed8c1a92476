// External lock clients (--client exec:...) end to end on a real Redis:
// the minimal adapter of docs/exec-clients.md is valid and fast enough
// (>= 1,000 ops in 20 s); programs that break the protocol (a line that is
// not JSON, an exit mid-op, a hang, a 2 MiB line) have that op recorded
// info naming the program and how, the run goes on to its verdict, and
// nothing is left behind; a program that cannot start fails the run at
// set-up with one line and exit 255, and so does one whose handshake fails
// while the others' succeed, or one without fences under --fencing on, with
// every program closed; a program that answers every op info makes at most
// one op per back-off; a SIGKILLed controller takes its programs with it,
// and `locksmith cleanup` their client hosts' namespaces.
#include <gtest/gtest.h>
#include <signal.h>

#include <filesystem>
#include <string>
#include <vector>

#include "base/exit_codes.h"
#include "base/testing/eventually.h"
#include "base/testing/temp_dir.h"
#include "tests/locksmith_process.h"

namespace locksmith::testing {
namespace {

using std::chrono::seconds;

const std::string kSource = LOCKSMITH_SOURCE_DIR;
const std::string kMinimal = kSource + "/adapters/minimal/lock_adapter.py";
const std::string kMisbehaving = kSource + "/tests/exec_programs/misbehaving_adapter.py";
const std::string kFake = kSource + "/backends/testing/exec_programs/fake_adapter.py";

// The lines of `out` that contain `text`.
std::vector<std::string> LinesWith(const std::string& out, const std::string& text) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < out.size()) {
    size_t end = out.find('\n', start);
    if (end == std::string::npos) end = out.size();
    const std::string line = out.substr(start, end - start);
    if (line.find(text) != std::string::npos) lines.push_back(line);
    start = end + 1;
  }
  return lines;
}
// Live processes whose working directory is the run's clients/ folder: its
// lock-client programs.
int ProgramsOf(const std::string& run) {
  int n = 0;
  std::error_code ec;
  for (const auto& proc : std::filesystem::directory_iterator("/proc", ec)) {
    const auto cwd = std::filesystem::read_symlink(proc.path() / "cwd", ec);
    n += !ec && cwd.string() == run + "/clients";
  }
  return n;
}

// The run's client hosts: namespaces lsm-<tag>-client.<i>.
int ClientHostsOf(const std::string& tag) {
  int n = 0;
  std::error_code ec;
  for (const auto& ns : std::filesystem::directory_iterator("/var/run/netns", ec)) {
    n += ns.path().filename().string().rfind("lsm-" + tag + "-client.", 0) == 0;
  }
  return n;
}

// How many ops a second it makes is the benchmarks' (scripts/bench-exec-client.sh);
// here, that every worker acquired and released, however loaded the machine.
TEST(ExecClientTest, TheMinimalAdapterOnRedisIsValid) {
  FinishedRun f = RunAndLoad({"--backend", "redis", "--client", "exec:" + kMinimal, "--seed", "3",
                              "--time-limit", "10", "--hold", "0-2", "--backoff", "0-2"},
                             seconds(90));
  EXPECT_EQ(f.code, 0) << f.out;
  EXPECT_EQ(WorkersWith(f.history, "acquire", OpType::kOk, 10).size(), 10u) << f.out;
  EXPECT_EQ(WorkersWith(f.history, "release", OpType::kOk, 10).size(), 10u) << f.out;
  EXPECT_EQ(Count(f.history, "acquire", OpType::kInfo), 0);
  EXPECT_EQ(f.results["stats"]["double-holder"]["stats"].value("double_holders", -1), 0);
}

TEST(ExecClientTest, MisbehavingProgramsAreInfoNamedAndTheRunGoesOn) {
  FinishedRun f = RunAndLoad({"--backend", "redis", "--client", "exec:" + kMisbehaving,
                              "--seed", "4", "--time-limit", "6", "--concurrency", "6"},
                             seconds(90));
  EXPECT_EQ(f.code, 0) << f.out;
  std::vector<std::string> infos;
  for (const Op& op : f.history) {
    if (op.is_client() && op.type == OpType::kInfo) infos.push_back(op.error);
  }
  for (const std::string says : {"printed a line that is not JSON", "exited",
                                 "did not answer", "wrote a line over 1 MiB"}) {
    int named = 0;
    for (const auto& error : infos) {
      named += error.find(kMisbehaving) != std::string::npos &&
               error.find(says) != std::string::npos;
    }
    EXPECT_GE(named, 1) << says << " in " << nlohmann::json(infos).dump();
    EXPECT_NE(f.log.find(says), std::string::npos) << says;
  }
  // The well-behaved clients (4, 5) went on the whole run: each acquired in
  // its second half too, after the others' programs had misbehaved.
  ASSERT_FALSE(f.history.empty());
  const int64_t half = f.history.front().time + (f.history.back().time - f.history.front().time) / 2;
  History second_half;
  for (const Op& op : f.history) {
    if (op.time >= half) second_half.push_back(op);
  }
  const std::set<int64_t> went_on = WorkersWith(second_half, "acquire", OpType::kOk, 6);
  EXPECT_TRUE(went_on.count(4) && went_on.count(5)) << nlohmann::json(went_on).dump();
}

TEST(ExecClientTest, AProgramThatCannotStartFailsTheRunAtSetUp) {
  FinishedRun f = RunAndLoad(
      {"--backend", "redis", "--client", "exec:" + kSource + "/no/such/adapter", "--time-limit",
       "5"},
      seconds(60));
  EXPECT_EQ(f.code, kExitRunFailed) << f.out;
  EXPECT_NE(f.out.find("cannot start"), std::string::npos) << f.out;
}

// A refusal at set-up: every handshake is checked before the workload, so
// the run ends at once (a hung run would reach the test's timeout) with one
// line naming the client and the problem, exit 255, no op, nothing left
// running (RunAndLoad checks no process of the run is left).
void ExpectRefusedAtSetUp(const std::vector<std::string>& flags, const std::string& says) {
  FinishedRun f = RunAndLoad(flags, seconds(60));
  EXPECT_EQ(f.code, kExitRunFailed) << f.out;
  // One line in the log (the summary's "error:" repeats it, as for any run
  // that fails, and so does the verdict's reason, since the history's closing
  // record says the workload ended in that error), and the program reported
  // nothing else.
  const std::vector<std::string> errors = LinesWith(f.out, " ERROR ");
  ASSERT_EQ(errors.size(), 1u) << f.out;
  EXPECT_EQ(LinesWith(f.out, "pid ").size(), 3u) << f.out;
  EXPECT_EQ(LinesWith(f.out, "verdict: UNKNOWN (the workload ended in an error: ").size(), 1u)
      << f.out;
  EXPECT_NE(errors[0].find(kFake), std::string::npos) << errors[0];
  EXPECT_NE(errors[0].find(says), std::string::npos) << errors[0];
  EXPECT_EQ(f.out.find("workload mutex for"), std::string::npos) << "the workload started";
  int client_ops = 0;
  for (const Op& op : f.history) client_ops += op.is_client();
  EXPECT_EQ(client_ops, 0);
  EXPECT_EQ(ProgramsOf(f.run), 0);
}

TEST(ExecClientTest, FencingOnWithoutFencesIsRefusedAtSetUp) {
  ExpectRefusedAtSetUp({"--backend", "redis", "--client", "exec:" + kFake + " no-fence",
                        "--fencing", "on", "--time-limit", "5"},
                       "gives no fencing token");
}

TEST(ExecClientTest, OneFailedHandshakeAmongGoodOnesIsRefusedAtSetUp) {
  ExpectRefusedAtSetUp({"--backend", "redis", "--client", "exec:" + kFake + " bad-hello 3",
                        "--concurrency", "5", "--time-limit", "5"},
                       "of client 3 printed a line that is not JSON");
}

// A program that answers every op info at once: each info is followed by
// the workload's back-off (here 20 ms), so each worker records at most one
// op per 20 ms of the run (and one in flight at its end).
TEST(ExecClientTest, AProgramAnsweringEveryOpInfoIsBackedOff) {
  constexpr int kWorkers = 2, kSeconds = 3, kBackoffMs = 20;
  FinishedRun f = RunAndLoad({"--backend", "redis", "--client", "exec:" + kFake + " info",
                              "--concurrency", std::to_string(kWorkers), "--time-limit",
                              std::to_string(kSeconds), "--backoff", std::to_string(kBackoffMs)},
                             seconds(60));
  // Nothing succeeded: the verdict is unknown (exit 2), whatever the count.
  EXPECT_EQ(f.code, 2) << f.out;
  const int infos = Count(f.history, "acquire", OpType::kInfo);
  EXPECT_GE(infos, kWorkers);
  EXPECT_LE(infos, kWorkers * (kSeconds * 1000 / kBackoffMs + 1)) << f.out;
  EXPECT_EQ(Count(f.history, "acquire", OpType::kOk), 0);
}

// The programs die with a SIGKILLed controller (PR_SET_PDEATHSIG), and
// `locksmith cleanup` removes the rest of the run.
TEST(ExecClientTest, SigkillThenCleanupLeavesNoProgram) {
  TempDir dir;
  const std::string store = dir.path() + "/store";
  LocksmithProcess run_process(dir.path(), {"run", "--client", "exec:" + kMinimal,
                                            "--time-limit", "120", "--store", "store"});
  ASSERT_TRUE(WaitForOps(store + "/latest", 200, seconds(60)))
      << run_process.Stderr();
  const std::string run = LatestRun(store);
  EXPECT_EQ(ProgramsOf(run), 10) << "the test proves nothing without the programs running";
  EXPECT_EQ(ClientHostsOf(RunTag(run)), 10) << "each program runs on a client host of its own";
  run_process.Signal(SIGKILL);
  ASSERT_TRUE(run_process.Wait(seconds(10)).has_value());
  EXPECT_TRUE(Eventually([&] { return ProgramsOf(run) == 0; }, "the programs die"));
  std::string out;
  EXPECT_EQ(RunLocksmith(dir.path(), {"cleanup", "--tag", RunTag(run)}, seconds(60), &out), 0)
      << out;
  const auto left = Leftovers(RunTag(run), run);
  EXPECT_TRUE(left.empty()) << "left behind: " << left.front();
}

}  // namespace
}  // namespace locksmith::testing
