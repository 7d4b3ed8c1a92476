// `locksmith check` end to end on hand-made histories and run directories (no
// servers, no root): a history file and the run directory holding it get the
// same verdict, nothing to judge is unknown on both paths, a last line cut
// short is skipped and said so, flags a run directory would ignore are
// refused, and a live run is not re-judged. A run's history log is read
// as its JSON lines are, and exported back to them. `locksmith report` on them too.
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "cluster/run_registry.h"
#include "history/history.h"
#include "history/history_log.h"
#include "tests/locksmith_process.h"

namespace locksmith::testing {
namespace {

using nlohmann::json;
using std::chrono::seconds;

// A run directory as `locksmith run` leaves it, minus what re-checking
// does not read: config.json (the workload names the checkers) and the
// history.
class RunDir {
 public:
  explicit RunDir(const std::string& history_text) {
    std::ofstream(dir_.path() + "/config.json") << R"({"workload": "mutex"})";
    std::ofstream(history()) << history_text;
  }
  const std::string& path() const { return dir_.path(); }
  std::string history() const { return dir_.path() + "/history.jsonl"; }

 private:
  TempDir dir_;
};

// One line per op, as the recorder writes them.
class Lines {
 public:
  Lines& Add(int64_t process, const std::string& type, const std::string& f, json value = nullptr,
             const std::string& error = "") {
    Op op;
    op.index = next_;
    op.time = 1'000'000 * next_++;
    op.process = process;
    op.f = f;
    op.key = process == kNemesisProcess ? "" : "lock-0";
    op.type = ParseOpType(type).value();
    op.value = std::move(value);
    op.error = error;
    text_ += OpToJsonLine(op) + "\n";
    return *this;
  }
  const std::string& text() const { return text_; }

 private:
  int64_t next_ = 0;
  std::string text_;
};

// locksmith's mutex workload: process 0's release is never sent (the master
// is down), its lease expires and process 1 gets the lock.
std::string ExpiredAfterFailedRelease() {
  const json lease = {{"lease_ms", 2000}};
  return Lines()
      .Add(0, "invoke", "acquire", lease)
      .Add(0, "ok", "acquire", {{"token", "a"}, {"validity_ms", 1999}})
      .Add(0, "invoke", "release", {{"token", "a"}})
      .Add(0, "fail", "release", nullptr, "not sent: connection refused")
      .Add(1, "invoke", "acquire", lease)
      .Add(1, "ok", "acquire", {{"token", "b"}, {"validity_ms", 1999}})
      .Add(1, "invoke", "release", {{"token", "b"}})
      .Add(1, "ok", "release")
      .text();
}

int Check(const std::vector<std::string>& args, std::string* out) {
  TempDir cwd;
  std::vector<std::string> argv{"check"};
  argv.insert(argv.end(), args.begin(), args.end());
  return RunLocksmith(cwd.path(), argv, seconds(60), out);
}

int LineCount(const std::string& text) {
  return static_cast<int>(std::count(text.begin(), text.end(), '\n'));
}

TEST(CheckCliTest, AFailedReleaseThenAnotherAcquireIsValidOnBothPaths) {
  RunDir run(ExpiredAfterFailedRelease());
  std::string out;
  for (const char* model : {"owner-mutex", "mutex"}) {
    EXPECT_EQ(Check({run.history(), "--model", model}, &out), 0) << model << ": " << out;
    EXPECT_NE(out.find("1 failed release(s) counted as leases"), std::string::npos) << out;
  }
  EXPECT_EQ(Check({run.path()}, &out), 0) << out;
  const json results = ReadJson(run.path() + "/results.json");
  EXPECT_EQ(results["valid"], true);
  EXPECT_EQ(results["stats"]["linearizable-owner-mutex"]["stats"]["leases"]["applied"], true);
  // Forced off, the file check calls the expired lease a double grant.
  EXPECT_EQ(Check({run.history(), "--model", "owner-mutex", "--leases", "off"}, &out), 1) << out;
}

TEST(CheckCliTest, NothingToJudgeIsUnknownOnBothPaths) {
  const std::string nemesis_only = Lines().Add(kNemesisProcess, "info", "kill").text();
  const std::string completions_only =
      Lines().Add(0, "ok", "acquire").Add(0, "ok", "release").text();
  const std::string all_failed =
      Lines().Add(0, "invoke", "acquire").Add(0, "fail", "acquire").text();
  for (const std::string& text : {std::string(), nemesis_only, completions_only, all_failed}) {
    RunDir run(text);
    std::string out;
    EXPECT_EQ(Check({run.history(), "--model", "owner-mutex"}, &out), 2) << text << out;
    EXPECT_NE(out.find("valid: unknown (no client operation succeeded"), std::string::npos) << out;
    EXPECT_EQ(Check({run.path()}, &out), 2) << text << out;
    EXPECT_NE(out.find("verdict: UNKNOWN (no client operation succeeded"), std::string::npos)
        << out;
    EXPECT_EQ(ReadJson(run.path() + "/results.json")["valid"], "unknown");
  }
  // An empty file; /dev/null, a device, is not read at all (see hostile_input_test).
  TempDir dir;
  std::ofstream(dir.path() + "/empty.edn").close();
  std::string out;
  EXPECT_EQ(Check({dir.path() + "/empty.edn", "--model", "register"}, &out), 2) << out;
  EXPECT_NE(out.find("no client operation succeeded"), std::string::npos) << out;
}

TEST(CheckCliTest, ALastLineCutShortIsSkippedAndCounted) {
  const std::string whole = ExpiredAfterFailedRelease();
  RunDir run(whole + R"({"f":"acquire","index":8,"ke)");
  std::string out;
  EXPECT_EQ(Check({run.history(), "--model", "owner-mutex"}, &out), 0) << out;
  EXPECT_NE(out.find("warning: " + run.history() + ":9: skipped 1 line"), std::string::npos)
      << out;
  EXPECT_EQ(Check({run.path()}, &out), 0) << out;
  EXPECT_NE(out.find("warning: " + run.history() + ":9: skipped 1 line"), std::string::npos)
      << out;
  const json results = ReadJson(run.path() + "/results.json");
  EXPECT_EQ(results["history"]["skipped_lines"], 1);
  ASSERT_EQ(results["warnings"].size(), 1u) << results.dump();

  // Nothing skipped: said as 0.
  RunDir clean(whole);
  EXPECT_EQ(Check({clean.path()}, &out), 0) << out;
  EXPECT_EQ(out.find("warning"), std::string::npos) << out;
  EXPECT_EQ(ReadJson(clean.path() + "/results.json")["history"]["skipped_lines"], 0);
}

TEST(CheckCliTest, AMalformedLineInTheMiddleIsAnErrorNamingIt) {
  RunDir run(R"({"f":"acquire","index":0,"ke)" "\n" + ExpiredAfterFailedRelease());
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{run.history(), "--model", "owner-mutex"},
        std::vector<std::string>{run.path()}}) {
    std::string out;
    EXPECT_EQ(Check(args, &out), 254) << out;
    EXPECT_EQ(LineCount(out), 1) << out;
    EXPECT_NE(out.find(run.history() + ":1: not valid JSON"), std::string::npos) << out;
  }
  EXPECT_FALSE(std::filesystem::exists(run.path() + "/results.json"));
}

TEST(CheckCliTest, FlagsARunDirectoryWouldIgnoreAreRefused) {
  RunDir run(ExpiredAfterFailedRelease());
  for (const std::vector<std::string>& flag :
       {std::vector<std::string>{"--format", "jsonl"}, {"--initial", "0"}, {"--leases", "off"},
        {"--timeout", "30"}}) {
    std::vector<std::string> args{run.path()};
    args.insert(args.end(), flag.begin(), flag.end());
    std::string out;
    EXPECT_EQ(Check(args, &out), 254) << flag[0] << ": " << out;
    EXPECT_EQ(LineCount(out), 1) << out;
    EXPECT_EQ(out.rfind("locksmith: " + flag[0] + " applies to a history file", 0), 0u) << out;
  }
  EXPECT_FALSE(std::filesystem::exists(run.path() + "/results.json"));
  // With --model the directory stands for its history.jsonl, flags and all.
  std::string out;
  EXPECT_EQ(Check({run.path(), "--model", "owner-mutex", "--format", "jsonl"}, &out), 0) << out;
  EXPECT_EQ(Check({run.path(), "--model", "owner-mutex", "--leases", "off"}, &out), 1) << out;
  EXPECT_EQ(Check({run.history(), "--model", "owner-mutex", "--leases", "sometimes"}, &out), 254)
      << out;
  EXPECT_EQ(LineCount(out), 1) << out;
}

// The controller recorded in the directory is this test process, which is
// alive: to `check` the run is still going.
// check RUN_DIR rebuilds the workload from config.json, its own options
// included: a stored option is read and checked, and an unknown workload
// or option is one line, not a crash.
TEST(CheckCliTest, ARunDirectorysWorkloadIsBuiltFromItsStoredOptions) {
  RunDir run(ExpiredAfterFailedRelease());
  std::string out;
  for (const auto& [config, error] : std::vector<std::pair<std::string, std::string>>{
           {R"({"workload": "mutex", "lease_ms": 0})", "--lease must be 1 to 86400000"},
           {R"({"workload": "bank"})", "config.json: --workload must be one of mutex"},
           {R"({"workload": "mutex", "shoe_size": 3})", "unknown config key \"shoe_size\""}}) {
    { std::ofstream(run.path() + "/config.json") << config; }
    EXPECT_EQ(Check({run.path()}, &out), 254) << config << ": " << out;
    EXPECT_NE(out.find(error), std::string::npos) << config << ": " << out;
    EXPECT_EQ(LineCount(out), 1) << out;
  }
  // An old run's config.json lists keys of modules it did not use.
  { std::ofstream(run.path() + "/config.json") << R"({"workload": "mutex", "lease_ms": 2000,
        "nemesis": [], "restart_delay_ms": 100, "redis_persistence": "none"})"; }
  EXPECT_EQ(Check({run.path()}, &out), 0) << out;
}

TEST(CheckCliTest, ARunWhoseControllerIsAliveIsNotRejudged) {
  RunDir run(ExpiredAfterFailedRelease());
  ASSERT_TRUE(WriteRunController(run.path()).ok());
  std::string out;
  EXPECT_EQ(Check({run.path()}, &out), 254) << out;
  EXPECT_EQ(LineCount(out), 1) << out;
  EXPECT_NE(out.find("still running (locksmith pid " + std::to_string(getpid()) + ")"),
            std::string::npos)
      << out;
  EXPECT_FALSE(std::filesystem::exists(run.path() + "/results.json"));
  EXPECT_EQ(Check({run.history(), "--model", "owner-mutex"}, &out), 0) << out;

  std::ofstream(run.path() + "/" + kRunControllerFile) << "{broken";
  EXPECT_EQ(Check({run.path()}, &out), 254) << out;
  EXPECT_NE(out.find("controller.json is malformed"), std::string::npos) << out;
}

// `locksmith report DIR` on the same hand-made run directories: the report
// is written again from the files (nothing re-judged), the store's index
// too when the directory sits in a store, and bad input is one line and 254.
int Report(const std::string& dir, std::string* out) {
  TempDir cwd;
  return RunLocksmith(cwd.path(), {"report", dir}, seconds(60), out);
}

TEST(CheckCliTest, ReportWritesARunsReportAgainFromItsFiles) {
  RunDir run(ExpiredAfterFailedRelease());
  std::string out;
  ASSERT_EQ(Check({run.path()}, &out), 0) << out;
  const std::string report = run.path() + "/report.html";
  ASSERT_TRUE(std::filesystem::remove(report));
  const auto results_time = std::filesystem::last_write_time(run.path() + "/results.json");
  EXPECT_EQ(Report(run.path(), &out), 0) << out;
  EXPECT_EQ(out, "report: " + report + "\n");  // not in a store: no index
  std::ifstream in(report);
  const std::string html((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_EQ(std::filesystem::last_write_time(run.path() + "/results.json"), results_time);

  // In a store (ROOT/NAME/STAMP and ROOT/latest): the store's index lists it.
  TempDir store;
  const std::string dir = store.path() + "/kill/20261124T010203.000Z";
  std::filesystem::create_directories(store.path() + "/kill");
  std::filesystem::rename(run.path(), dir);
  std::filesystem::create_directory_symlink(dir, store.path() + "/latest");
  EXPECT_EQ(Report(store.path() + "/latest", &out), 0) << out;
  EXPECT_NE(out.find("store index: " + store.path() + "/index.html"), std::string::npos) << out;
  std::ifstream index_file(store.path() + "/index.html");
  const std::string index((std::istreambuf_iterator<char>(index_file)),
                          std::istreambuf_iterator<char>());
  EXPECT_NE(index.find("href=\"kill/20261124T010203.000Z/report.html\""), std::string::npos);
  std::filesystem::rename(dir, run.path());  // for RunDir's clean-up
}

TEST(CheckCliTest, ReportOnBadInputIsOneLineAnd254) {
  std::string out;
  EXPECT_EQ(Report("/nonexistent/run", &out), 254) << out;
  EXPECT_EQ(out, "locksmith: no such directory: /nonexistent/run\n");

  RunDir run(ExpiredAfterFailedRelease());
  ASSERT_EQ(Check({run.path()}, &out), 0) << out;
  // A line in the middle that is not JSON.
  { std::ofstream(run.history(), std::ios::app) << "{\"index\": oops}\n{}\n"; }
  EXPECT_EQ(Report(run.path(), &out), 254) << out;
  EXPECT_EQ(LineCount(out), 1) << out;
  EXPECT_NE(out.find("history.jsonl: line 9: not valid JSON"), std::string::npos) << out;
  std::filesystem::remove(run.history());
  EXPECT_EQ(Report(run.path(), &out), 254) << out;
  EXPECT_EQ(LineCount(out), 1) << out;
  EXPECT_NE(out.find("history"), std::string::npos) << out;
  std::filesystem::remove(run.path() + "/results.json");
  EXPECT_EQ(Report(run.path(), &out), 254) << out;
  EXPECT_NE(out.find("is not a run directory"), std::string::npos) << out;
  EXPECT_EQ(LineCount(out), 1) << out;
}

// The JSON lines `text` as a run's history log, closed as a run closes it
// (or not: cut right after its last op).
std::string AsLog(const std::string& text, bool closed = true) {
  HistoryLogEncoder encoder;
  std::string bytes(kHistoryLogMagic);
  const History history = ParseHistoryJsonl(text).value();
  for (const Op& op : history) encoder.Encode(op, &bytes);
  if (closed) encoder.EncodeClosing(HistoryClosing{.ended = kEndedTimeLimit}, &bytes);
  return bytes;
}

// The closing line `export` writes after the ops of `text`.
std::string ClosingLineOf(const std::string& text, const std::string& ended = kEndedTimeLimit,
                          const std::string& detail = "") {
  const int64_t ops = static_cast<int64_t>(ParseHistoryJsonl(text).value().size());
  return ClosingLine(HistoryClosing{ended, detail, ops, 0}) + "\n";
}

TEST(HistoryLogCliTest, ARunsLogIsJudgedCheckedAndExportedAsItsJsonLines) {
  RunDir run(ExpiredAfterFailedRelease());
  const std::string log = run.path() + "/history.bin";
  std::ofstream(log, std::ios::binary) << AsLog(ExpiredAfterFailedRelease());
  std::filesystem::remove(run.history());
  std::string out;
  EXPECT_EQ(Check({run.path()}, &out), 0) << out;
  EXPECT_EQ(Check({log, "--model", "owner-mutex"}, &out), 0) << out;
  TempDir cwd;
  const std::string exported = cwd.path() + "/exported.jsonl";
  ASSERT_EQ(RunLocksmith(cwd.path(), {"export", run.path(), "-o", exported}, seconds(60), &out), 0)
      << out;
  // The ops, then the log's closing record as a closing line.
  const std::string lines = ExpiredAfterFailedRelease() + ClosingLineOf(ExpiredAfterFailedRelease());
  EXPECT_EQ(ReadText(exported), lines);
  // JSON lines export as themselves.
  const std::string again = cwd.path() + "/again.jsonl";
  ASSERT_EQ(RunLocksmith(cwd.path(), {"export", exported, "-o", again}, seconds(60), &out), 0);
  EXPECT_EQ(ReadText(again), lines);
  // Exported JSON lines judged in a run directory say they are whole.
  std::filesystem::remove(log);
  std::ofstream(run.history()) << lines;
  EXPECT_EQ(Check({run.path()}, &out), 0) << out;
  EXPECT_EQ(Check({run.history(), "--model", "owner-mutex"}, &out), 0) << out;
}

// A run's log that stops after a whole record, with no closing record, may
// have lost any number of ops after it: unknown, in one line. Its JSON
// lines say so too; JSON lines with no closing line (from elsewhere) are
// judged as they are.
TEST(HistoryLogCliTest, ALogCutAtARecordBoundaryIsUnknownAndItsExportSaysSo) {
  RunDir run(ExpiredAfterFailedRelease());
  std::string out;
  EXPECT_EQ(Check({run.path()}, &out), 0) << out;
  const std::string log = run.path() + "/history.bin";
  std::ofstream(log, std::ios::binary) << AsLog(ExpiredAfterFailedRelease(), /*closed=*/false);
  std::filesystem::remove(run.history());
  EXPECT_EQ(Check({run.path()}, &out), 2) << out;
  const std::string line = "history cut short: " + log + " ends after record ";
  EXPECT_NE(out.find("verdict: UNKNOWN (" + line), std::string::npos) << out;
  EXPECT_NE(out.find(" without its closing record)"), std::string::npos) << out;
  EXPECT_EQ(out.find("warning"), std::string::npos) << out;  // nothing was torn
  // The file alone is judged as given.
  EXPECT_EQ(Check({log, "--model", "owner-mutex"}, &out), 0) << out;
  TempDir cwd;
  const std::string exported = cwd.path() + "/exported.jsonl";
  ASSERT_EQ(RunLocksmith(cwd.path(), {"export", run.path(), "-o", exported}, seconds(60), &out),
            0)
      << out;
  std::filesystem::remove(log);
  std::filesystem::copy_file(exported, run.history());
  EXPECT_EQ(Check({run.path()}, &out), 2) << out;
  EXPECT_NE(out.find("verdict: UNKNOWN (" + line), std::string::npos) << out;
  // A closing line that counts other ops than the lines hold is not whole either.
  std::ofstream(run.history(), std::ios::trunc)
      << ExpiredAfterFailedRelease() << ClosingLine(HistoryClosing{kEndedTimeLimit, "", 99, 0});
  EXPECT_EQ(Check({run.path()}, &out), 2) << out;
  EXPECT_NE(out.find("closing record counts 99 ops"), std::string::npos) << out;
}

TEST(HistoryLogCliTest, ALogCutShortIsReadToItsLastWholeRecordAndSaysSo) {
  RunDir run("");
  const std::string log = run.path() + "/history.bin";
  const std::string bytes = AsLog(ExpiredAfterFailedRelease(), /*closed=*/false);
  std::ofstream(log, std::ios::binary) << bytes.substr(0, bytes.size() - 2);
  std::string out;
  EXPECT_NE(Check({log, "--model", "owner-mutex"}, &out), 254) << out;
  EXPECT_NE(out.find(log + ": record "), std::string::npos) << out;
  EXPECT_NE(out.find("skipped 1 record"), std::string::npos) << out;
  TempDir cwd;
  ASSERT_EQ(RunLocksmith(cwd.path(), {"export", log}, seconds(60), &out), 0) << out;
  EXPECT_EQ(LineCount(out), 7 + 1 + 1) << out;  // seven ops, the closing line and the warning
  EXPECT_NE(out.find("{\"closing\":{\"detail\":\"history cut short: " + log + " ends after record "),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("\"ended\":\"cut-short\",\"faults\":0,\"ops\":7}}\n"), std::string::npos)
      << out;
}

TEST(HistoryLogCliTest, ADamagedLogIsOneLineAndBadInput) {
  RunDir run("");
  const std::string log = run.path() + "/history.bin";
  std::string bytes = AsLog(ExpiredAfterFailedRelease());
  bytes[kHistoryLogMagic.size() + 2] ^= 0x20;
  std::ofstream(log, std::ios::binary) << bytes;
  std::string out;
  EXPECT_EQ(Check({log, "--model", "owner-mutex"}, &out), 254) << out;
  EXPECT_EQ(LineCount(out), 1) << out;
  EXPECT_NE(out.find(log + ": record 1 (byte 8): its checksum does not match"), std::string::npos)
      << out;
  EXPECT_EQ(Check({run.path()}, &out), 254) << out;
  EXPECT_EQ(LineCount(out), 1) << out;
  TempDir cwd;
  EXPECT_EQ(RunLocksmith(cwd.path(), {"export", run.path()}, seconds(60), &out), 254) << out;
  EXPECT_EQ(LineCount(out), 1) << out;
  // A log of another version of the format is named as such.
  bytes = AsLog(ExpiredAfterFailedRelease());
  bytes[kHistoryLogMagic.size() - 1] = '\x07';
  std::ofstream(log, std::ios::binary | std::ios::trunc) << bytes;
  EXPECT_EQ(Check({log, "--model", "owner-mutex"}, &out), 254) << out;
  EXPECT_EQ(LineCount(out), 1) << out;
  EXPECT_NE(out.find("a history log of version 7"), std::string::npos) << out;
}

}  // namespace
}  // namespace locksmith::testing
