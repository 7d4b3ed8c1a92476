// External lock clients (--client exec:...) end to end on a real Redis:
// the minimal adapter of docs/exec-clients.md is valid and fast enough
// (>= 1,000 ops in 20 s); programs that break the protocol (a line that is
// not JSON, an exit mid-op, a hang, a 2 MiB line) have that op recorded
// info naming the program and how, the run goes on to its verdict, and
// nothing is left behind; a program that cannot start fails the run at
// set-up with one line and exit 255.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "base/exit_codes.h"
#include "tests/locksmith_process.h"

namespace locksmith::testing {
namespace {

using std::chrono::seconds;

const std::string kSource = LOCKSMITH_SOURCE_DIR;
const std::string kMinimal = kSource + "/adapters/minimal/lock_adapter.py";
const std::string kMisbehaving = kSource + "/tests/exec_programs/misbehaving_adapter.py";

int Count(const History& history, const std::string& f, OpType type) {
  int n = 0;
  for (const Op& op : history) n += op.is_client() && op.f == f && op.type == type;
  return n;
}

TEST(ExecClientTest, TheMinimalAdapterOnRedisIsValidAndFast) {
  FinishedRun f = RunAndLoad({"--backend", "redis", "--client", "exec:" + kMinimal, "--seed", "3",
                              "--time-limit", "20", "--hold", "0-2", "--backoff", "0-2"},
                             seconds(90));
  EXPECT_EQ(f.code, 0) << f.out;
  const int acquires = Count(f.history, "acquire", OpType::kOk) +
                       Count(f.history, "acquire", OpType::kFail);
  EXPECT_GE(acquires + Count(f.history, "release", OpType::kOk), 1000) << f.out;
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
  // The well-behaved clients (4, 5) went on the whole run.
  EXPECT_GT(Count(f.history, "acquire", OpType::kOk), 40);
}

TEST(ExecClientTest, AProgramThatCannotStartFailsTheRunAtSetUp) {
  FinishedRun f = RunAndLoad(
      {"--backend", "redis", "--client", "exec:" + kSource + "/no/such/adapter", "--time-limit",
       "5"},
      seconds(60));
  EXPECT_EQ(f.code, kExitRunFailed) << f.out;
  EXPECT_NE(f.out.find("cannot start"), std::string::npos) << f.out;
}

}  // namespace
}  // namespace locksmith::testing
