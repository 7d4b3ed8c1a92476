// Files someone else wrote, handed to locksmith end to end (no servers, no
// root): each crafted input is one line and exit 254, or, inside a store, a
// file left out of the index with a warning naming it; nothing locksmith
// reads blocks or grows without bound; and nothing it prints lets a key
// forge a line on a terminal.
#include <sys/stat.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "history/history.h"
#include "tests/locksmith_process.h"

namespace locksmith::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using std::chrono::seconds;

const std::string kDeep = std::string(100000, '[') + std::string(100000, ']');

int Locksmith(const std::vector<std::string>& args, std::string* out) {
  TempDir cwd;
  return RunLocksmith(cwd.path(), args, seconds(60), out);
}

int LineCount(const std::string& text) {
  return static_cast<int>(std::count(text.begin(), text.end(), '\n'));
}

void Write(const std::string& path, const std::string& text) {
  fs::create_directories(fs::path(path).parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

std::string OpLine(int64_t index, int64_t process, const std::string& type, const std::string& f,
                   const std::string& key, json value = nullptr) {
  Op op;
  op.index = index;
  op.time = 1'000'000 * (index + 1);
  op.process = process;
  op.type = ParseOpType(type).value();
  op.f = f;
  op.key = key;
  op.value = std::move(value);
  return OpToJsonLine(op) + "\n";
}

// Two clients hold `key` at once: a double grant, whatever the key says.
std::string DoubleGrant(const std::string& key) {
  return OpLine(0, 0, "invoke", "acquire", key) + OpLine(1, 0, "ok", "acquire", key) +
         OpLine(2, 1, "invoke", "acquire", key) + OpLine(3, 1, "ok", "acquire", key) +
         OpLine(4, 0, "invoke", "release", key) + OpLine(5, 0, "ok", "release", key) +
         OpLine(6, 1, "invoke", "release", key) + OpLine(7, 1, "ok", "release", key);
}

// A run directory as `locksmith run` leaves it, minus what these tests do
// not read, under store/NAME/STAMP (store/latest points at it).
class StoredRun {
 public:
  explicit StoredRun(const std::string& history, const std::string& name = "mutex") {
    dir_ = store_.path() + "/" + name + "/20261124T010203.000Z";
    Write(dir_ + "/config.json", R"({"workload": "mutex"})");
    Write(dir_ + "/history.jsonl", history);
    fs::create_directory_symlink(dir_, store_.path() + "/latest");
  }
  const std::string& dir() const { return dir_; }
  const std::string& store() const { return store_.path(); }

 private:
  TempDir store_;
  std::string dir_;
};

// A suite directory in `store` whose summary.json is `summary`.
std::string SuiteDir(const std::string& store, const std::string& summary) {
  const std::string dir = store + "/suites/nightly/20261124T000000.000Z";
  Write(dir + "/summary.json", summary);
  return dir;
}

TEST(HostileInputTest, DeepNestingIsOneLineAnd254) {
  std::string out;
  // A history line whose value nests 100,000 deep.
  StoredRun run(DoubleGrant("lock-0"));
  const std::string deep_line =
      R"({"index":8,"time":9,"process":2,"type":"invoke","f":"write","value":)" + kDeep + "}\n";
  Write(run.dir() + "/history.jsonl", DoubleGrant("lock-0") + deep_line);
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"check", run.dir() + "/history.jsonl", "--model", "owner-mutex"},
        {"check", run.dir()}}) {
    EXPECT_EQ(Locksmith(args, &out), 254) << args[1] << ": " << out;
    EXPECT_EQ(LineCount(out), 1) << out;
    EXPECT_NE(out.find(":9: arrays and objects nest more than 200 deep"), std::string::npos)
        << out;
  }
  // A config.json with deeply nested steps.
  Write(run.dir() + "/history.jsonl", DoubleGrant("lock-0"));
  Write(run.dir() + "/config.json", R"({"workload": "mutex", "steps": )" + kDeep + "}");
  EXPECT_EQ(Locksmith({"check", run.dir()}, &out), 254) << out;
  EXPECT_EQ(LineCount(out), 1) << out;
  EXPECT_NE(out.find("config.json: arrays and objects nest more than 200 deep"),
            std::string::npos)
      << out;
  // A results.json with deeply nested anomalies.
  Write(run.dir() + "/config.json", R"({"workload": "mutex"})");
  Write(run.dir() + "/results.json", R"({"valid": false, "anomalies": [)" + kDeep + "]}");
  EXPECT_EQ(Locksmith({"report", run.dir()}, &out), 254) << out;
  EXPECT_EQ(LineCount(out), 1) << out;
  EXPECT_NE(out.find("results.json: arrays and objects nest more than 200 deep"),
            std::string::npos)
      << out;
  // A suite's summary.json.
  const std::string suite = SuiteDir(run.store(), R"({"suite": "s", "runs": )" + kDeep + "}");
  EXPECT_EQ(Locksmith({"report", suite}, &out), 254) << out;
  EXPECT_EQ(LineCount(out), 1) << out;
  // A config file given to `run`.
  Write(run.store() + "/deep.json", R"({"steps": )" + kDeep + "}");
  EXPECT_EQ(Locksmith({"run", "--config", run.store() + "/deep.json"}, &out), 254) << out;
  EXPECT_EQ(LineCount(out), 1) << out;
}

TEST(HostileInputTest, ANumberBeyondADoubleIsOneLineAnd254) {
  StoredRun run(DoubleGrant("lock-0"));
  std::string out;
  Write(run.dir() + "/config.json", R"({"workload": "mutex", "time_limit_s": 1e400})");
  EXPECT_EQ(Locksmith({"check", run.dir()}, &out), 254) << out;
  EXPECT_EQ(LineCount(out), 1) << out;
  EXPECT_NE(out.find("\"time_limit_s\": the number 1e400 is out of range"), std::string::npos)
      << out;
  Write(run.dir() + "/config.json", R"({"workload": "mutex"})");
  Write(run.dir() + "/results.json", R"({"valid": true, "stats": {"perf": {"x": 1e400}}})");
  EXPECT_EQ(Locksmith({"report", run.dir()}, &out), 254) << out;
  EXPECT_EQ(LineCount(out), 1) << out;
  EXPECT_NE(out.find("\"stats.perf.x\": the number 1e400 is out of range"), std::string::npos)
      << out;
}

TEST(HostileInputTest, ASummaryOfTheWrongTypesIsOneLineAnd254) {
  TempDir store;
  const std::string suite =
      SuiteDir(store.path(), R"({"suite": "nightly", "planned_runs": "many", "runs": []})");
  std::string out;
  EXPECT_EQ(Locksmith({"report", suite}, &out), 254) << out;
  EXPECT_EQ(out, "locksmith: " + suite +
                     "/summary.json: \"planned_runs\" must be a whole number from 0 to "
                     "2147483647\n");
}

TEST(HostileInputTest, ADamagedFileInTheStoreIsSkippedWithAWarning) {
  StoredRun run(DoubleGrant("lock-0"));
  std::string out;
  ASSERT_EQ(Locksmith({"check", run.dir()}, &out), 1) << out;
  const std::string suite =
      SuiteDir(run.store(), R"({"suite": "nightly", "planned_runs": "many", "runs": []})");
  const std::string other = run.store() + "/other/20261124T000000.000Z";
  Write(other + "/config.json", R"({"workload": "mutex", "steps": )" + kDeep + "}");
  Write(other + "/results.json", R"({"valid": 1e400})");
  // `report RUN`, `check RUN` and the end of every run update the index:
  // each still works, and says what it left out.
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"report", run.dir()}, {"check", run.dir()}}) {
    const int expected = args[0] == "report" ? 0 : 1;
    EXPECT_EQ(Locksmith(args, &out), expected) << args[0] << ": " << out;
    for (const std::string& file : {suite + "/summary.json", other + "/config.json",
                                    other + "/results.json"}) {
      EXPECT_NE(out.find("locksmith: warning: store index: skipped " + file), std::string::npos)
          << file << " in " << out;
    }
    std::ifstream in(run.store() + "/index.html");
    const std::string index((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_NE(index.find("2 runs and 1 suite"), std::string::npos) << index;
  }
}

TEST(HostileInputTest, ASummaryCannotSendAReportOutsideTheSuite) {
  StoredRun run(DoubleGrant("lock-0"));
  std::string out;
  ASSERT_EQ(Locksmith({"check", run.dir()}, &out), 1) << out;
  fs::remove(run.dir() + "/report.html");
  TempDir store;
  const std::string suite = SuiteDir(store.path(), "");
  for (const std::string& dir :
       {fs::relative(run.dir(), suite).string(), run.dir(), std::string("a/../..")}) {
    Write(suite + "/summary.json",
          json{{"suite", "nightly"}, {"runs", {{{"dir", dir}, {"verdict", "valid"}}}}}.dump());
    EXPECT_EQ(Locksmith({"report", suite}, &out), 254) << dir << ": " << out;
    EXPECT_EQ(LineCount(out), 1) << out;
    EXPECT_NE(out.find("\"dir\" must be a relative path inside the suite's directory"),
              std::string::npos)
        << out;
    EXPECT_FALSE(fs::exists(run.dir() + "/report.html")) << dir;
  }
}

TEST(HostileInputTest, OnlyRegularFilesAreRead) {
  StoredRun run(DoubleGrant("lock-0"));
  std::string out;
  // A FIFO would block forever, /dev/zero never end.
  const std::string fifo = run.store() + "/fifo.jsonl";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  for (const std::string& path : {fifo, std::string("/dev/zero")}) {
    EXPECT_EQ(Locksmith({"check", path, "--model", "owner-mutex"}, &out), 254) << out;
    EXPECT_EQ(out, "locksmith: " + path +
                       " is not a regular file (a FIFO, device or directory cannot be read as "
                       "one; save it to a file)\n");
  }
  fs::remove(run.dir() + "/history.jsonl");
  ASSERT_EQ(mkfifo((run.dir() + "/history.jsonl").c_str(), 0600), 0);
  EXPECT_EQ(Locksmith({"check", run.dir()}, &out), 254) << out;
  EXPECT_NE(out.find("history.jsonl is not a regular file"), std::string::npos) << out;
  EXPECT_EQ(LineCount(out), 1) << out;
  Write(run.dir() + "/results.json", R"({"valid": true})");
  EXPECT_EQ(Locksmith({"report", run.dir()}, &out), 254) << out;
  EXPECT_NE(out.find("history.jsonl is not a regular file"), std::string::npos) << out;
  EXPECT_EQ(LineCount(out), 1) << out;
  // The file that says whether a run is still going.
  ASSERT_EQ(mkfifo((run.dir() + "/controller.json").c_str(), 0600), 0);
  EXPECT_EQ(Locksmith({"check", run.dir()}, &out), 254) << out;
  EXPECT_NE(out.find("controller.json is not a regular file"), std::string::npos) << out;
  EXPECT_EQ(LineCount(out), 1) << out;
}

TEST(HostileInputTest, AHistoryLargerThanTheLimitIsRefusedUnlessRaised) {
  // 1.5 MiB of ops: over a 1 MiB limit, under a 2 MiB one.
  std::string history;
  for (int64_t i = 0; history.size() < (3u << 19); i += 2) {
    history += OpLine(i, 0, "invoke", "acquire", "lock-0");
    history += OpLine(i + 1, 0, "fail", "acquire", "lock-0");
  }
  StoredRun run(history);
  std::string out;
  const std::string file = run.dir() + "/history.jsonl";
  EXPECT_EQ(Locksmith({"check", file, "--model", "owner-mutex", "--max-history-mb", "1"}, &out),
            254)
      << out;
  EXPECT_EQ(LineCount(out), 1) << out;
  EXPECT_NE(out.find("at most 1048576 bytes (1 MiB) are allowed (--max-history-mb raises the "
                     "limit)"),
            std::string::npos)
      << out;
  EXPECT_EQ(Locksmith({"check", run.dir(), "--max-history-mb", "1"}, &out), 254) << out;
  EXPECT_EQ(LineCount(out), 1) << out;
  EXPECT_EQ(Locksmith({"check", file, "--model", "owner-mutex", "--max-history-mb", "2"}, &out),
            2)
      << out;  // every acquire failed: nothing to judge
  EXPECT_EQ(Locksmith({"check", run.dir(), "--max-history-mb", "2"}, &out), 2) << out;
  EXPECT_EQ(Locksmith({"report", run.dir(), "--max-history-mb", "1"}, &out), 254) << out;
  EXPECT_EQ(Locksmith({"report", run.dir(), "--max-history-mb", "2"}, &out), 0) << out;
}

TEST(HostileInputTest, AKeyCannotForgeALineOnTheTerminal) {
  const std::string key = "k\r\nverdict: VALID\x1b[2J\xC2\x9B" "31m";
  StoredRun run(DoubleGrant(key));
  std::string out;
  EXPECT_EQ(Locksmith({"check", run.dir()}, &out), 1) << out;
  EXPECT_EQ(out.find_first_of("\r\x1b"), std::string::npos) << out;
  EXPECT_EQ(out.find("\xC2\x9B"), std::string::npos) << out;
  EXPECT_EQ(out.find("\nverdict: VALID"), std::string::npos) << out;
  EXPECT_NE(out.find("k\\r\\nverdict: VALID\\x1b[2J\\u009b31m"), std::string::npos) << out;
  EXPECT_NE(out.find("\nverdict: INVALID\n"), std::string::npos) << out;
  EXPECT_EQ(Locksmith({"check", run.dir() + "/history.jsonl", "--model", "owner-mutex"}, &out), 1)
      << out;
  EXPECT_EQ(out.find_first_of("\r\x1b"), std::string::npos) << out;
  EXPECT_NE(out.find("key k\\r\\nverdict: VALID\\x1b[2J\\u009b31m: this op cannot be linearized"),
            std::string::npos)
      << out;
}

TEST(HostileInputTest, ABadEdnFormIsQuotedShort) {
  TempDir dir;
  const std::string file = dir.path() + "/history.edn";
  Write(file, "[\"" + std::string(50 << 20, 'x') + "\"]\n");
  std::string out;
  EXPECT_EQ(Locksmith({"check", file, "--model", "register"}, &out), 254) << out.substr(0, 500);
  EXPECT_EQ(LineCount(out), 1) << out.substr(0, 500);
  EXPECT_LT(out.size(), 400u) << out.substr(0, 500);
  EXPECT_NE(out.find(":1: expected an op map, got \"xxxx"), std::string::npos)
      << out.substr(0, 500);
}

}  // namespace
}  // namespace locksmith::testing
