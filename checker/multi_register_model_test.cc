// Knossos multi-register histories, written as EDN and checked through the
// real importer and CheckHistoryFile.
#include "checker/multi_register_model.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "checker/check_file.h"

namespace locksmith {
namespace {

using nlohmann::json;

Result<CheckResult> CheckEdn(const std::string& name, const std::string& edn,
                             std::optional<json> initial = std::nullopt) {
  const std::string path =
      (std::filesystem::path(::testing::TempDir()) / ("multi-register-" + name + ".edn"))
          .string();
  std::ofstream(path) << edn;
  LinearizabilityOptions options;
  options.model = "multi-register";
  options.initial = std::move(initial);
  return CheckHistoryFile(path, options);
}

Validity Verdict(const std::string& name, const std::string& edn,
                 std::optional<json> initial = std::nullopt) {
  auto result = CheckEdn(name, edn, std::move(initial));
  EXPECT_TRUE(result.ok()) << result.error();
  return result.ok() ? result->valid : Validity::kUnknown;
}

// Every invoke below carries two micro-ops: a 2-element array, which must
// not be taken for a jepsen.independent [key value] tuple.
TEST(MultiRegisterModelTest, ReadOfNilMatchesAnyValue) {
  const std::string edn = R"(
{:process 0, :type :invoke, :f :txn, :value [[:write :x 1] [:write :y 2]]}
{:process 0, :type :ok, :f :txn, :value [[:write :x 1] [:write :y 2]]}
{:process 1, :type :invoke, :f :txn, :value [[:read :x nil] [:read :y nil]]}
{:process 1, :type :ok, :f :txn, :value [[:read :x nil] [:read :y 2]]}
)";
  auto result = CheckEdn("nil-read", edn);
  ASSERT_TRUE(result.ok()) << result.error();
  EXPECT_EQ(result->valid, Validity::kTrue) << FormatLinearizabilityVerdict(*result);
  EXPECT_EQ(result->stats["independent_keys"], false);
  EXPECT_EQ(result->stats["partitions"], 1);
}

TEST(MultiRegisterModelTest, ReadSeeingHalfOfAnotherTxnIsInvalid) {
  const std::string prefix = R"(
{:process 0, :type :invoke, :f :txn, :value [[:write :x 0] [:write :y 0]]}
{:process 0, :type :ok, :f :txn, :value [[:write :x 0] [:write :y 0]]}
{:process 1, :type :invoke, :f :txn, :value [[:write :x 1] [:write :y 1]]}
{:process 2, :type :invoke, :f :txn, :value [[:read :x nil] [:read :y nil]]}
)";
  const std::string done =
      "{:process 1, :type :ok, :f :txn, :value [[:write :x 1] [:write :y 1]]}\n";
  EXPECT_EQ(Verdict("whole", prefix +
                    "{:process 2, :type :ok, :f :txn, :value [[:read :x 1] [:read :y 1]]}\n" +
                    done),
            Validity::kTrue);
  EXPECT_EQ(Verdict("before", prefix +
                    "{:process 2, :type :ok, :f :txn, :value [[:read :x 0] [:read :y 0]]}\n" +
                    done),
            Validity::kTrue);
  auto half = CheckEdn("half", prefix +
                       "{:process 2, :type :ok, :f :txn, :value [[:read :x 1] [:read :y 0]]}\n" +
                       done);
  ASSERT_TRUE(half.ok()) << half.error();
  EXPECT_EQ(half->valid, Validity::kFalse);
  ASSERT_FALSE(half->anomalies.empty());
  EXPECT_EQ(half->anomalies[0]["model"], "multi-register");
}

TEST(MultiRegisterModelTest, StaleReadIsInvalid) {
  const std::string writes = R"(
{:process 0, :type :invoke, :f :txn, :value [[:write :x 1]]}
{:process 0, :type :ok, :f :txn, :value [[:write :x 1]]}
{:process 0, :type :invoke, :f :txn, :value [[:write :x 2]]}
{:process 0, :type :ok, :f :txn, :value [[:write :x 2]]}
{:process 1, :type :invoke, :f :txn, :value [[:read :x nil]]}
)";
  EXPECT_EQ(Verdict("fresh", writes + "{:process 1, :type :ok, :f :txn, :value [[:read :x 2]]}\n"),
            Validity::kTrue);
  EXPECT_EQ(Verdict("stale", writes + "{:process 1, :type :ok, :f :txn, :value [[:read :x 1]]}\n"),
            Validity::kFalse);
}

TEST(MultiRegisterModelTest, MicroOpsApplyInOrderWithinATxn) {
  EXPECT_EQ(Verdict("own-write", R"(
{:process 0, :type :invoke, :f :txn, :value [[:write :x 3] [:read :x nil] [:write :x 4]]}
{:process 0, :type :ok, :f :txn, :value [[:write :x 3] [:read :x 3] [:write :x 4]]}
{:process 0, :type :invoke, :f :txn, :value [[:read :x nil]]}
{:process 0, :type :ok, :f :txn, :value [[:read :x 4]]}
)"),
            Validity::kTrue);
  EXPECT_EQ(Verdict("not-yet", R"(
{:process 0, :type :invoke, :f :txn, :value [[:read :x nil] [:write :x 3]]}
{:process 0, :type :ok, :f :txn, :value [[:read :x 3] [:write :x 3]]}
)"),
            Validity::kFalse);
}

TEST(MultiRegisterModelTest, TimedOutTxnMayHaveHappenedWhole) {
  const std::string edn = R"(
{:process 0, :type :invoke, :f :txn, :value [[:write :x 1] [:write :y 1]]}
{:process 0, :type :info, :f :txn, :value [[:write :x 1] [:write :y 1]]}
{:process 1, :type :invoke, :f :txn, :value [[:read :x nil] [:read :y nil]]}
)";
  EXPECT_EQ(Verdict("info-seen",
                    edn + "{:process 1, :type :ok, :f :txn, :value [[:read :x 1] [:read :y 1]]}\n",
                    json{{"x", 0}, {"y", 0}}),
            Validity::kTrue);
  EXPECT_EQ(Verdict("info-half",
                    edn + "{:process 1, :type :ok, :f :txn, :value [[:read :x 1] [:read :y 0]]}\n",
                    json{{"x", 0}, {"y", 0}}),
            Validity::kFalse);
}

TEST(MultiRegisterModelTest, InitialObjectAndIntegerRegisterNames) {
  const std::string edn = R"(
{:process 0, :type :invoke, :f :txn, :value [[:read 1 nil] [:read :y nil]]}
{:process 0, :type :ok, :f :txn, :value [[:read 1 5] [:read :y 6]]}
)";
  EXPECT_EQ(Verdict("initial", edn, json{{"1", 5}, {"y", 6}}), Validity::kTrue);
  EXPECT_EQ(Verdict("no-initial", edn), Validity::kFalse);
  EXPECT_FALSE(CheckEdn("bad-initial", edn, json(3)).ok());
}

TEST(MultiRegisterModelTest, IndependentTxnsArePartitionedPerKey) {
  // [key txn] tuples, each txn a single micro-op: value[1] is a txn.
  const std::string edn = R"(
{:process 0, :type :invoke, :f :txn, :value [1 [[:write :x 1]]]}
{:process 0, :type :ok, :f :txn, :value [1 [[:write :x 1]]]}
{:process 1, :type :invoke, :f :txn, :value [2 [[:read :x nil]]]}
)";
  auto fresh = CheckEdn(
      "independent", edn + "{:process 1, :type :ok, :f :txn, :value [2 [[:read :x nil]]]}\n");
  ASSERT_TRUE(fresh.ok()) << fresh.error();
  EXPECT_EQ(fresh->valid, Validity::kTrue);
  EXPECT_EQ(fresh->stats["independent_keys"], true);
  EXPECT_EQ(fresh->stats["partitions"], 2);
  // Key 2 never saw key 1's write.
  EXPECT_EQ(Verdict("independent-leak",
                    edn + "{:process 1, :type :ok, :f :txn, :value [2 [[:read :x 1]]]}\n"),
            Validity::kFalse);
}

TEST(MultiRegisterModelTest, MalformedTxnIsRefusedWithOneLine) {
  auto result = CheckEdn("malformed", R"(
{:process 0, :type :invoke, :f :txn, :value [[:increment :x 1]]}
{:process 0, :type :ok, :f :txn, :value [[:increment :x 1]]}
)");
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.error().find("micro-ops"), std::string::npos) << result.error();
}

TEST(MultiRegisterModelTest, TxnShape) {
  EXPECT_TRUE(MultiRegisterModel::IsTxn(json::parse(R"([["read", "x", null]])")));
  EXPECT_TRUE(MultiRegisterModel::IsTxn(json::array()));
  EXPECT_FALSE(MultiRegisterModel::IsTxn(json::parse(R"(["write", "y", 2])")));
  EXPECT_FALSE(MultiRegisterModel::IsTxn(json::parse(R"([["read", "x"]])")));
}

}  // namespace
}  // namespace locksmith
