#include "checker/client_stats.h"

#include <gtest/gtest.h>

namespace locksmith {
namespace {

Op MakeOp(int64_t process, OpType type, const std::string& f, nlohmann::json value = nullptr) {
  Op op;
  op.process = process;
  op.type = type;
  op.f = f;
  op.value = std::move(value);
  return op;
}

TEST(ClientStatsCheckerTest, SumsTheCountersOfEveryClientAndDividesByOkReleases) {
  History h = {
      MakeOp(0, OpType::kOk, "release"),
      MakeOp(1, OpType::kOk, "release"),
      MakeOp(1, OpType::kFail, "release"),
      MakeOp(0, OpType::kOk, "client-stats", {{"watch_events", 3}, {"sessions", 1}}),
      MakeOp(1, OpType::kOk, "client-stats", {{"watch_events", 5}, {"sessions", 2}}),
      MakeOp(2, OpType::kInvoke, "client-stats", {{"watch_events", 100}}),
  };
  CheckResult r = ClientStatsChecker().Check(h);
  EXPECT_EQ(r.valid, Validity::kTrue);
  EXPECT_EQ(r.stats["clients"], 2);
  EXPECT_EQ(r.stats["releases"], 2);
  EXPECT_EQ(r.stats["watch_events"], 8);
  EXPECT_EQ(r.stats["sessions"], 3);
  EXPECT_DOUBLE_EQ(r.stats["per_release"]["watch_events"].get<double>(), 4.0);
}

TEST(ClientStatsCheckerTest, WithoutCountersTheStatsSayNoClientReported) {
  CheckResult r = ClientStatsChecker().Check({MakeOp(0, OpType::kOk, "release")});
  EXPECT_EQ(r.stats["clients"], 0);
  EXPECT_FALSE(r.stats.contains("per_release"));
}

}  // namespace
}  // namespace locksmith
