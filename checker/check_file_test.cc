// The public API: the generated Jepsen histories in testdata/ with known
// verdicts, option validation, file errors, our own jsonl histories, and
// the Checker adapter.
#include "checker/check_file.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <unistd.h>

#include "history/testing/history_builder.h"

namespace locksmith {
namespace {

using nlohmann::json;
using testing::HistoryBuilder;

const std::string kTestdata = LOCKSMITH_CHECKER_TESTDATA;

std::string WriteTemp(const std::string& name, const std::string& content) {
  const auto path = std::filesystem::temp_directory_path() /
                    ("locksmith_check_file_test_" + std::to_string(::getpid()) + "_" + name);
  std::ofstream(path) << content;
  return path.string();
}

LinearizabilityOptions Options(const std::string& model) {
  LinearizabilityOptions options;
  options.model = model;
  return options;
}

TEST(CheckFileTest, GeneratedJepsenHistoriesHaveTheirKnownVerdicts) {
  std::ifstream manifest(kTestdata + "/MANIFEST.tsv");
  ASSERT_TRUE(manifest) << "missing " << kTestdata << "/MANIFEST.tsv";
  std::string line;
  int checked = 0, invalid = 0;
  while (std::getline(manifest, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    std::string file, model, verdict;
    fields >> file >> model >> verdict;
    auto result = CheckHistoryFile(kTestdata + "/" + file, Options(model));
    ASSERT_TRUE(result.ok()) << file << ": " << result.error();
    const Validity expected = verdict == "valid" ? Validity::kTrue : Validity::kFalse;
    EXPECT_EQ(result->valid, expected) << file << " with " << model << "\n"
                                       << FormatLinearizabilityVerdict(*result);
    if (expected == Validity::kFalse) {
      ++invalid;
      EXPECT_FALSE(result->anomalies.empty()) << file;
    }
    ++checked;
  }
  EXPECT_GE(checked, 50);
  EXPECT_GE(invalid, 20);
}

TEST(CheckFileTest, OptionErrorsAreOneClearLine) {
  const std::string path = WriteTemp("empty.edn", "[]");
  auto unknown = CheckHistoryFile(path, Options("paxos"));
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.error().find("unknown model \"paxos\""), std::string::npos);
  EXPECT_NE(unknown.error().find("cas-register"), std::string::npos);
  EXPECT_EQ(unknown.error().find('\n'), std::string::npos);

  LinearizabilityOptions with_initial = Options("mutex");
  with_initial.initial = json(1);
  auto no_initial = CheckHistoryFile(path, with_initial);
  ASSERT_FALSE(no_initial.ok());
  EXPECT_NE(no_initial.error().find("no initial value"), std::string::npos);

  LinearizabilityOptions bad_counter = Options("counter");
  bad_counter.initial = json("ten");
  EXPECT_FALSE(CheckHistoryFile(path, bad_counter).ok());

  LinearizabilityOptions bad_format = Options("register");
  bad_format.format = "xml";
  EXPECT_FALSE(CheckHistoryFile(path, bad_format).ok());

  LinearizabilityOptions bad_timeout = Options("register");
  bad_timeout.timeout_s = 0;
  EXPECT_FALSE(CheckHistoryFile(path, bad_timeout).ok());
}

TEST(CheckFileTest, MalformedFileReportsFileAndLine) {
  const std::string path = WriteTemp("bad.edn",
                                     "[{:type :invoke, :f :read, :value nil, :process 0}\n"
                                     " {:type :ok, :f :read, :value [1 2, :process 0}]\n");
  auto result = CheckHistoryFile(path, Options("cas-register"));
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().rfind(path + ":2: ", 0), 0u) << result.error();
}

// Nothing to judge is unknown, never valid: the same rule a run with no
// successful op gets.
TEST(CheckFileTest, HistoriesWithNothingToJudgeAreUnknown) {
  const std::string invoke_line =
      R"({"index":0,"time":1,"process":0,"type":"invoke","f":"acquire","key":"l"})";
  const std::string ok_line =
      R"({"index":1,"time":2,"process":0,"type":"ok","f":"acquire","key":"l"})";
  const std::string fail_line =
      R"({"index":1,"time":2,"process":0,"type":"fail","f":"acquire","key":"l"})";
  const std::string nemesis_line =
      R"({"index":0,"time":1,"process":"nemesis","type":"info","f":"kill"})";
  const std::vector<std::pair<std::string, std::string>> files = {
      {"blank.edn", "\n; nothing\n"},
      {"empty", ""},
      {"completions.jsonl", ok_line + "\n"},
      {"nemesis.jsonl", nemesis_line + "\n"},
      {"failed.jsonl", invoke_line + "\n" + fail_line + "\n"},
      {"pending.jsonl", invoke_line + "\n"}};
  for (const auto& [name, content] : files) {
    auto result = CheckHistoryFile(WriteTemp(name, content), Options("owner-mutex"));
    ASSERT_TRUE(result.ok()) << name << ": " << result.error();
    EXPECT_EQ(result->valid, Validity::kUnknown) << name;
    EXPECT_NE(result->reason.find("no client operation succeeded"), std::string::npos)
        << name << ": " << result->reason;
    EXPECT_NE(FormatLinearizabilityVerdict(*result).find("valid: unknown (no client operation"),
              std::string::npos);
  }
  auto one_ok = CheckHistoryFile(WriteTemp("one.jsonl", invoke_line + "\n" + ok_line + "\n"),
                                 Options("owner-mutex"));
  ASSERT_TRUE(one_ok.ok()) << one_ok.error();
  EXPECT_EQ(one_ok->valid, Validity::kTrue);
}

TEST(CheckFileTest, OnlyOpsTheModelChecksCountAsSomethingToJudge) {
  // The reads the register model checks never completed; an op it ignores did.
  HistoryBuilder b;
  b.Invoke(0, "read").Info(0);
  b.Call(1, "start");
  auto result = CheckLinearizable(b.Build(), Options("register"));
  ASSERT_TRUE(result.ok()) << result.error();
  EXPECT_EQ(result->valid, Validity::kUnknown);
}

TEST(CheckFileTest, ALastLineCutShortIsSkippedAndSaidSo) {
  HistoryBuilder b;
  b.Call(0, "acquire", nullptr, nullptr, "l").Call(0, "release", nullptr, nullptr, "l");
  std::string text;
  for (const Op& op : b.Build()) text += OpToJsonLine(op) + "\n";
  const std::string path = WriteTemp("cut.jsonl", text + R"({"index":4,"time":5,"proc)");
  auto result = CheckHistoryFile(path, Options("owner-mutex"));
  ASSERT_TRUE(result.ok()) << result.error();
  EXPECT_EQ(result->valid, Validity::kTrue);
  EXPECT_EQ(result->stats["skipped_lines"], 1);
  ASSERT_EQ(result->warnings.size(), 1u);
  EXPECT_EQ(result->warnings[0].rfind(path + ":5: skipped 1 line", 0), 0u) << result->warnings[0];
  EXPECT_NE(FormatLinearizabilityVerdict(*result).find("warning: " + path + ":5: skipped 1 line"),
            std::string::npos);

  // The same cut in the middle is an error naming the line.
  const std::string middle =
      WriteTemp("middle.jsonl", R"({"index":4,"time":5,"proc)" "\n" + text);
  auto bad = CheckHistoryFile(middle, Options("owner-mutex"));
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().rfind(middle + ":1: ", 0), 0u) << bad.error();

  auto whole = CheckHistoryFile(WriteTemp("whole.jsonl", text), Options("owner-mutex"));
  ASSERT_TRUE(whole.ok());
  EXPECT_EQ(whole->stats["skipped_lines"], 0);
  EXPECT_TRUE(whole->warnings.empty());
}

TEST(CheckFileTest, HistoryWithNoOpOfTheModelIsAnError) {
  const std::string path = WriteTemp(
      "locks.edn", "{:type :invoke, :f :acquire, :value nil, :process 0}\n");
  auto result = CheckHistoryFile(path, Options("cas-register"));
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.error().find("f seen: acquire"), std::string::npos) << result.error();
}

TEST(CheckFileTest, OwnJsonlLockHistoryPartitionsPerKey) {
  HistoryBuilder b;
  b.Call(0, "acquire", nullptr, json{{"token", "a"}, {"fence", 1}}, "lock-0");
  b.Call(1, "acquire", nullptr, json{{"token", "b"}, {"fence", 1}}, "lock-1");
  b.Invoke(2, "acquire", nullptr, "lock-0").Ok(2, json{{"token", "c"}, {"fence", 2}});
  b.Call(0, "release", nullptr, nullptr, "lock-0");
  std::string text;
  for (const Op& op : b.Build()) text += OpToJsonLine(op) + "\n";
  const std::string path = WriteTemp("history.jsonl", text);
  auto result = CheckHistoryFile(path, Options("owner-mutex"));
  ASSERT_TRUE(result.ok()) << result.error();
  EXPECT_EQ(result->valid, Validity::kFalse);
  ASSERT_EQ(result->anomalies.size(), 1u);
  const json& anomaly = result->anomalies[0];
  EXPECT_EQ(anomaly["key"], "lock-0");
  EXPECT_EQ(anomaly["op"]["process"], 2);
  EXPECT_EQ(anomaly["op"]["key"], "lock-0");
  EXPECT_EQ(anomaly["ops"][0]["index"], 5);
  EXPECT_EQ(result->stats["partitions"], 2);
  const std::string verdict = FormatLinearizabilityVerdict(*result);
  EXPECT_NE(verdict.find("key lock-0"), std::string::npos) << verdict;
  EXPECT_NE(verdict.find("held by process 0"), std::string::npos) << verdict;
}

TEST(CheckFileTest, CheckerAdapterForTheRunLifecycle) {
  auto checker = MakeLinearizabilityChecker(Options("owner-mutex"));
  EXPECT_EQ(checker->Name(), "linearizable-owner-mutex");
  HistoryBuilder b;
  b.Call(0, "acquire", nullptr, nullptr, "l").Call(0, "release", nullptr, nullptr, "l");
  CheckResult ok = checker->Check(b.Build());
  EXPECT_EQ(ok.valid, Validity::kTrue);
  EXPECT_EQ(ok.stats["model"], "owner-mutex");
  EXPECT_GE(ok.stats["states_explored"].get<int64_t>(), 1);
  EXPECT_TRUE(ok.stats.contains("peak_memory_bytes"));
  EXPECT_TRUE(ok.stats.contains("time_s"));

  auto broken = MakeLinearizabilityChecker(Options("nope"));
  CheckResult unknown = broken->Check(b.Build());
  EXPECT_EQ(unknown.valid, Validity::kUnknown);
  EXPECT_NE(unknown.reason.find("unknown model"), std::string::npos);
}

TEST(CheckFileTest, VerdictTextForValidAndUnknown) {
  HistoryBuilder b;
  b.Call(0, "write", 1).Call(1, "read", nullptr, 1);
  auto valid = CheckLinearizable(b.Build(), Options("register"));
  ASSERT_TRUE(valid.ok());
  const std::string text = FormatLinearizabilityVerdict(*valid);
  EXPECT_EQ(text.rfind("valid: true", 0), 0u) << text;
  EXPECT_NE(text.find("model register"), std::string::npos) << text;

  CheckResult unknown;
  unknown.valid = Validity::kUnknown;
  unknown.reason = "time budget exhausted after 10 states";
  EXPECT_EQ(FormatLinearizabilityVerdict(unknown).rfind(
                "valid: unknown (time budget exhausted after 10 states)", 0),
            0u);
}

}  // namespace
}  // namespace locksmith
