#include "checker/perf_stats.h"

#include <gtest/gtest.h>

namespace locksmith {
namespace {

Op MakeOp(int64_t index, int64_t ms, int64_t p, OpType t, const std::string& f) {
  Op op;
  op.index = index;
  op.time = ms * 1'000'000;
  op.process = p;
  op.type = t;
  op.f = f;
  return op;
}

TEST(PerfStatsTest, CountsByTypeAndLatencyPerOutcome) {
  History h{MakeOp(0, 0, 0, OpType::kInvoke, "acquire"), MakeOp(1, 4, 0, OpType::kOk, "acquire"),
            MakeOp(2, 5, 1, OpType::kInvoke, "acquire"), MakeOp(3, 7, 1, OpType::kFail, "acquire"),
            MakeOp(4, 8, 0, OpType::kInvoke, "release"), MakeOp(5, 9, 0, OpType::kInfo, "release"),
            MakeOp(6, 9, kNemesisProcess, OpType::kInfo, "kill"),
            MakeOp(7, 10, 2, OpType::kInvoke, "acquire")};
  auto r = PerfStatsChecker().Check(h);
  EXPECT_EQ(r.valid, Validity::kTrue);
  EXPECT_EQ(r.stats["ops"], 4);
  EXPECT_EQ(r.stats["completed"], 3);
  EXPECT_EQ(r.stats["by_type"]["invoke"], 4);
  EXPECT_EQ(r.stats["by_type"]["ok"], 1);
  EXPECT_EQ(r.stats["by_type"]["fail"], 1);
  EXPECT_EQ(r.stats["by_type"]["info"], 1);
  EXPECT_EQ(r.stats["by_f"]["acquire"]["pending"], 1);
  EXPECT_DOUBLE_EQ(r.stats["latency"]["acquire"]["ok"]["p50_ms"].get<double>(), 4.0);
  EXPECT_DOUBLE_EQ(r.stats["latency"]["acquire"]["fail"]["max_ms"].get<double>(), 2.0);
  EXPECT_EQ(r.stats["latency"]["release"]["info"]["count"], 1);
}

TEST(PerfStatsTest, QuantilesAreNearestRank) {
  History h;
  for (int i = 0; i < 100; ++i) {
    h.push_back(MakeOp(2 * i, 1000 * i, 0, OpType::kInvoke, "acquire"));
    h.push_back(MakeOp(2 * i + 1, 1000 * i + i + 1, 0, OpType::kOk, "acquire"));
  }
  auto r = PerfStatsChecker().Check(h);
  const auto& q = r.stats["latency"]["acquire"]["ok"];
  EXPECT_DOUBLE_EQ(q["p50_ms"].get<double>(), 50.0);
  EXPECT_DOUBLE_EQ(q["p90_ms"].get<double>(), 90.0);
  EXPECT_DOUBLE_EQ(q["p99_ms"].get<double>(), 99.0);
  EXPECT_DOUBLE_EQ(q["max_ms"].get<double>(), 100.0);
}

TEST(PerfStatsTest, EmptyHistoryHasNoRate) {
  auto r = PerfStatsChecker().Check({});
  EXPECT_EQ(r.stats["ops"], 0);
  EXPECT_EQ(r.stats["ops_per_s"], 0.0);
}

}  // namespace
}  // namespace locksmith
