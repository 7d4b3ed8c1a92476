#include "reports/stats_html.h"

#include <gtest/gtest.h>

#include <tuple>
#include <vector>

namespace locksmith {
namespace {

TEST(StatsHtmlTest, UnitsFromTheNamesSuffix) {
  EXPECT_EQ(FormatStat("p50_ms", 1.5), "1.5 ms");
  EXPECT_EQ(FormatStat("gap_ns", 850), "850 ns");
  EXPECT_EQ(FormatStat("first_violation_s", 2), "2.000 s");
  EXPECT_EQ(FormatStat("peak_memory_bytes", 3 << 20), "3.0 MiB");
  EXPECT_EQ(FormatStat("availability", 0.25), "25.0%");
  EXPECT_EQ(FormatStat("holds", 1234567), "1,234,567");
  EXPECT_EQ(FormatStat("ok", true), "yes");
  EXPECT_EQ(FormatStat("why", "<b>"), "&lt;b&gt;");
}

// Every stat the checkers emit today (checker/*.cc), its label and a value
// as the report shows it: a duration's unit moves from the label to the
// value and a zero keeps the stat's own unit ("0 ms", never "0 ns"), a rate
// is a number under "per s" (never a duration), a share a percent (never a
// bare fraction), a count whole with separators.
TEST(StatsHtmlTest, EveryStatTheCheckersEmitHasOneUnit) {
  const std::vector<std::tuple<const char*, nlohmann::json, const char*, const char*>> stats = {
      // perf
      {"ops", 1234, "ops", "1,234"},
      {"completed", 1200, "completed", "1,200"},
      {"count", 17, "count", "17"},
      {"p50_ms", 2.25, "p50", "2.25 ms"},
      {"p90_ms", 0.5, "p90", "500 \xC2\xB5s"},
      {"p99_ms", 12.5, "p99", "12.5 ms"},
      {"p999_ms", 1500, "p999", "1.500 s"},
      {"max_ms", 0, "max", "0 ms"},
      {"duration_s", 8.0123, "duration", "8.012 s"},
      {"ops_per_s", 17.285, "ops per s", "17.3"},
      {"ops_per_s", 2345.6, "ops per s", "2,346"},
      // client stats
      {"clients", 5, "clients", "5"},
      {"releases", 40, "releases", "40"},
      // stuck lock
      {"keys", 2, "keys", "2"},
      {"free_windows_with_failures", 0, "free windows with failures", "0"},
      {"longest_refused_ms", 0, "longest refused", "0 ms"},
      {"longest_refused_ms", 2500.25, "longest refused", "2.500 s"},
      {"leases", 3, "leases", "3"},
      {"windows_without_lease", 1, "windows without lease", "1"},
      {"refused_without_a_crash", 1, "refused without a crash", "1"},
      {"longest_refused_without_a_crash_ms", 310, "longest refused without a crash", "310 ms"},
      // double holder
      {"holds", 90, "holds", "90"},
      {"double_holders", 1, "double holders", "1"},
      {"unsafe_grants", 1, "unsafe grants", "1"},
      {"expired_lease_uses", 0, "expired lease uses", "0"},
      {"possible_overlaps", 2, "possible overlaps", "2"},
      {"read_holds", 3, "read holds", "3"},
      {"write_holds", 4, "write holds", "4"},
      {"reader_overlaps", 5, "reader overlaps", "5"},
      {"possible_reader_overlaps", 0, "possible reader overlaps", "0"},
      // foreign release, fencing
      {"ok_releases", 10, "ok releases", "10"},
      {"foreign_releases", 0, "foreign releases", "0"},
      {"fenced_ops", 10, "fenced ops", "10"},
      {"accepted", 9, "accepted", "9"},
      {"rejected", 1, "rejected", "1"},
      {"granted_fences", 10, "granted fences", "10"},
      {"reused_fences", 0, "reused fences", "0"},
      {"stale_writes_accepted", 0, "stale writes accepted", "0"},
      {"fence_ranges_forgotten", 1, "fence ranges forgotten", "1"},
      // inventory, counter, rw-cache
      {"initial", 100, "initial", "100"},
      {"acknowledged", 97, "acknowledged", "97"},
      {"maybe", 2, "maybe", "2"},
      {"rejected_writes", 1, "rejected writes", "1"},
      {"rejected_reads", 0, "rejected reads", "0"},
      {"final_stock", 3, "final stock", "3"},
      {"orders", 97, "orders", "97"},
      {"final", 99, "final", "99"},
      {"reads", 50, "reads", "50"},
      {"stale_reads", 0, "stale reads", "0"},
      {"unknown_values", 0, "unknown values", "0"},
      {"stale_caches", 0, "stale caches", "0"},
      // linearizability
      {"model", "owner-mutex", "model", "owner-mutex"},
      {"pending_ops", 3, "pending ops", "3"},
      {"failed_ops", 4, "failed ops", "4"},
      {"partitions", 2, "partitions", "2"},
      {"partitions_invalid", 1, "partitions invalid", "1"},
      {"partitions_unknown", 0, "partitions unknown", "0"},
      {"segments", 2, "segments", "2"},
      {"independent_keys", 2, "independent keys", "2"},
      {"states_explored", 123456, "states explored", "123,456"},
      {"distinct_keys", 99, "distinct keys", "99"},
      {"time_s", 0.0123, "time", "12.3 ms"},
      {"peak_memory_bytes", 2048, "peak memory", "2.0 KiB"},
      {"ignored_ops", 7, "ignored ops", "7"},
      {"rule", "auto", "rule", "auto"},
      {"applied", 3, "applied", "3"},
      {"failed_releases", 1, "failed releases", "1"},
      {"lock_losses", 0, "lock losses", "0"},
      // availability
      {"attempts", 44, "attempts", "44"},
      {"refused", 1, "refused", "1"},
      {"unanswered", 1, "unanswered", "1"},
      {"in_doubt", 1, "in doubt", "1"},
      {"availability", 0.9546, "availability", "95.5%"},
      {"answered", 0.9546, "answered", "95.5%"},
      {"unanswered_share", 0.0227, "unanswered share", "2.3%"},
      {"in_doubt_share", 0.0227, "in doubt share", "2.3%"},
      {"window", 3, "window", "3"},
      {"family", "kill", "family", "kill"},
      {"begin_ms", 2374.6, "begin", "2.375 s"},
      {"end_ms", nullptr, "end", "\xE2\x80\x93"},
      {"recovery_ms", 67, "recovery", "67 ms"},
  };
  for (const auto& [name, value, label, shown] : stats) {
    EXPECT_EQ(StatLabel(name), label) << name;
    EXPECT_EQ(FormatStat(name, value), shown) << name << " " << value.dump();
  }
}

TEST(StatsHtmlTest, TheValuesOfAPerObjectSayWhatTheyArePer) {
  const nlohmann::json client = {{"clients", 5}, {"round_trips", 70},
                                 {"per_release", {{"round_trips", 3.5}}}};
  const std::string html = RenderStats(client, "", 0);
  EXPECT_NE(html.find("<tr><th>round trips</th><td>3.5 per release</td></tr>"), std::string::npos)
      << html;
  EXPECT_NE(html.find("<tr><th>round trips</th><td>70</td></tr>"), std::string::npos) << html;
}

TEST(StatsHtmlTest, ObjectsOfObjectsAreOneTable) {
  const nlohmann::json per_key = {{"lock-0", {{"holds", 3}, {"p50_ms", 1}}},
                                  {"lock-1", {{"holds", 4}}}};
  const std::string html = RenderStats(per_key, "by_key", 0);
  EXPECT_EQ(html.rfind("<table class=\"grid stats\"><tr><th>by key</th><th>holds</th>"
                       "<th>p50</th></tr>",
                       0),
            0u);
  EXPECT_NE(html.find("<td>lock-1</td><td class=\"n\">4</td><td class=\"n\"></td>"),
            std::string::npos);
}

}  // namespace
}  // namespace locksmith
