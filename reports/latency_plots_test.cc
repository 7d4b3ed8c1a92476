#include "reports/latency_plots.h"

#include <gtest/gtest.h>

namespace locksmith {
namespace {

// `n` acquires of process p, each `latency` long, one every 10 ns; the odd
// ones fail.
History Acquires(int n, int64_t latency) {
  History h;
  for (int i = 0; i < n; ++i) {
    Op invoke, done;
    invoke.index = 2 * i, invoke.time = 10 * i, invoke.process = i % 3, invoke.f = "acquire";
    done = invoke;
    done.index = 2 * i + 1, done.time = invoke.time + latency;
    done.type = i % 2 ? OpType::kFail : OpType::kOk;
    h.push_back(invoke), h.push_back(done);
  }
  return h;
}

LatencyPlots Build(const History& h, const LatencyPlots::Options& options) {
  OpNameTables names;
  const auto rows = BuildOpRows(h, ProcessLanes::Build(h, h.back().time), &names);
  return LatencyPlots::Build(h, rows, names.fs.Take(), h.back().time, options);
}

TEST(LatencyPlotsTest, ASummaryPerFAndExactPointsWhenFew) {
  const History h = Acquires(10, 5);
  const LatencyPlots p = Build(h, {});
  ASSERT_EQ(p.latency().count("acquire"), 1u);
  const auto& s = p.latency().at("acquire");
  EXPECT_EQ(s.count, 10);
  EXPECT_EQ(s.by_outcome, (std::array<int64_t, 3>{5, 5, 0}));
  EXPECT_EQ(s.p50, 5);
  EXPECT_EQ(s.max, 5);
  std::string json;
  p.AppendJson(&json);
  const nlohmann::json plots = nlohmann::json::parse("{" + json + "}")["plots"];
  EXPECT_EQ(plots["sc"]["mode"], "raw");
  EXPECT_EQ(plots["sc"]["t"].size(), 10u);
  EXPECT_EQ(plots["q"][0]["f"], "acquire");
}

TEST(LatencyPlotsTest, ADensityGridPastTheRawBudget) {
  LatencyPlots::Options options;
  options.max_raw_scatter_points = 3;
  std::string json;
  Build(Acquires(10, 5), options).AppendJson(&json);
  const nlohmann::json sc = nlohmann::json::parse("{" + json + "}")["plots"]["sc"];
  EXPECT_EQ(sc["mode"], "grid");
  EXPECT_GT(sc["n"].get<int>(), 0);
}

}  // namespace
}  // namespace locksmith
