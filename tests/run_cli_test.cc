// `locksmith run` flags end to end, where they stop before anything starts
// (no servers, no root): flags are made from every registered module's
// options, help says whose each is and its default, and a flag for a module
// the run does not use is one line and exit 254, also over a config file.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/locksmith_process.h"

namespace locksmith::testing {
namespace {

using std::chrono::seconds;

// Exit code of `locksmith args...` run in `dir`, with stdout and stderr.
int Locksmith(const TempDir& dir, const std::vector<std::string>& args, std::string* out) {
  return RunLocksmith(dir.path(), args, seconds(30), out);
}

TEST(RunCliTest, HelpListsEveryModulesFlagsWithTheirModuleAndDefault) {
  TempDir dir;
  std::string out;
  ASSERT_EQ(Locksmith(dir, {"run", "--help"}, &out), 0) << out;
  for (const char* line : {"--redis-persistence",
                           "[default: none] (backend redis, backend redlock, backend redis-sentinel)",
                           "--restart-delay", "[default: 100] (nemesis kill)", "--hold",
                           "[default: 10-100] (workload mutex)",
                           "[default: 0 for workload mutex, 0.8 for workload rw-cache] (workload "
                           "mutex, workload rw-cache)",
                           "--lease", "--keys", "--backoff",
                           "--concurrency", "--seed", "--config", "--loopback"}) {
    EXPECT_NE(out.find(line), std::string::npos) << line << "\n" << out;
  }
}

// The flag reference of docs/running.md is the binary's own table, between
// its two marker lines: a flag added, removed or reworded in a module's
// declaration fails here until the doc is regenerated.
TEST(RunCliTest, TheFlagReferenceInTheDocsIsTheBinarysOwnTable) {
  TempDir dir;
  std::string table;
  ASSERT_EQ(Locksmith(dir, {"run", "--help-markdown"}, &table), 0) << table;
  const std::string doc = ReadText(LOCKSMITH_SOURCE_DIR "/docs/running.md");
  const std::string begin = "<!-- flags:begin -->\n", end = "<!-- flags:end -->\n";
  const size_t from = doc.find(begin);
  ASSERT_NE(from, std::string::npos) << "docs/running.md has no line " << begin;
  const size_t to = doc.find(end, from);
  ASSERT_NE(to, std::string::npos) << "docs/running.md has no line " << end;
  std::istringstream in_doc(doc.substr(from + begin.size(), to - from - begin.size()));
  std::istringstream in_binary("\n" + table + "\n");
  std::string doc_line, binary_line;
  for (int line = 1;; ++line) {
    const bool more_doc = static_cast<bool>(std::getline(in_doc, doc_line));
    const bool more_binary = static_cast<bool>(std::getline(in_binary, binary_line));
    if (!more_doc && !more_binary) break;
    if (!more_doc) doc_line = "(the table ends)";
    if (!more_binary) binary_line = "(the table ends)";
    if (doc_line == binary_line) continue;
    ADD_FAILURE() << "docs/running.md's flag reference differs from `locksmith run "
                     "--help-markdown` at its line "
                  << line << ":\n  doc:    " << doc_line << "\n  binary: " << binary_line
                  << "\nregenerate it with scripts/gen-flag-doc.sh";
    break;
  }
}

// That table has a row for every flag `run --help` lists: both come from the
// same declarations.
TEST(RunCliTest, TheMarkdownTableHasARowForEveryFlagOfRunHelp) {
  TempDir dir;
  std::string help, table;
  ASSERT_EQ(Locksmith(dir, {"run", "--help"}, &help), 0) << help;
  ASSERT_EQ(Locksmith(dir, {"run", "--help-markdown"}, &table), 0) << table;
  int flags = 0;
  std::istringstream lines(help);
  for (std::string line; std::getline(lines, line);) {
    // "  --flag TYPE   help": the flags this build generates.
    const size_t start = line.find_first_not_of(' ');
    if (start == std::string::npos || line.compare(start, 2, "--") != 0) continue;
    const std::string flag = line.substr(start, line.find_first_of(" ,", start) - start);
    if (flag == "--help" || flag == "--help-all") continue;
    ++flags;
    EXPECT_NE(table.find("\n| `" + flag + "` |"), std::string::npos) << flag << "\n" << table;
  }
  EXPECT_GE(flags, 60) << help;
  EXPECT_EQ(help.find("--help-markdown"), std::string::npos) << "a hidden flag\n" << help;
}

TEST(RunCliTest, AFlagForAModuleTheRunDoesNotUseIsOneLineAnd254) {
  TempDir dir;
  std::string out;
  EXPECT_EQ(Locksmith(dir, {"run", "--restart-delay", "500"}, &out), 254) << out;
  EXPECT_EQ(out,
            "locksmith: --restart-delay (restart_delay_ms) applies to nemesis kill, which this "
            "run does not use\n");
  // Over a config file that does not choose kill either.
  const std::string file = dir.path() + "/scenario.json";
  { std::ofstream(file) << R"({"nemesis": [], "time_limit_s": 5})"; }
  EXPECT_EQ(Locksmith(dir, {"run", "--config", file, "--restart-delay", "5"}, &out), 254) << out;
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 1) << out;
  EXPECT_NE(out.find("applies to nemesis kill"), std::string::npos) << out;
}

// `suite --time-scale` and `--test-count`: every bad value stops the suite
// before its first run, in one line.
TEST(RunCliTest, ASuitesBadTimeScaleOrTestCountIsOneLineAnd254) {
  TempDir dir;
  const std::string quick = LOCKSMITH_SOURCE_DIR "/suites/quick-compare.json";
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--time-scale", "0"}, "--time-scale must be a number above 0 and at most 100"},
      {{"--time-scale", "-0.5"}, "--time-scale must be a number above 0 and at most 100"},
      {{"--time-scale", "101"}, "--time-scale must be a number above 0 and at most 100"},
      {{"--time-scale", "nan"}, "--time-scale must be a number above 0 and at most 100"},
      {{"--time-scale", "fast"}, "--time-scale"},
      {{"--time-scale", "0.5", "--time-limit", "3"}, "give --time-limit or --time-scale, not both"},
      {{"--test-count", "0"}, "--test-count"},
      // quick-compare's 3 s fault interval scaled below its 0.1 s minimum.
      {{"--time-scale", "0.02"}, "cell redis.kill: --nemesis-interval"},
  };
  for (const auto& [flags, says] : cases) {
    std::vector<std::string> args = {"suite", quick, "--store", "store"};
    args.insert(args.end(), flags.begin(), flags.end());
    std::string out;
    EXPECT_EQ(Locksmith(dir, args, &out), 254) << out;
    EXPECT_NE(out.find(says), std::string::npos) << out;
    EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 1) << out;
  }
  EXPECT_FALSE(std::filesystem::exists(dir.path() + "/store"));
}

TEST(RunCliTest, ModuleFlagsAreCheckedLikeTheirConfigKeys) {
  TempDir dir;
  std::string out;
  EXPECT_EQ(Locksmith(dir, {"run", "--nemesis", "kill", "--restart-delay", "soon"}, &out), 254);
  EXPECT_EQ(out, "locksmith: --restart-delay must be a whole number, not \"soon\"\n");
  EXPECT_EQ(Locksmith(dir, {"run", "--nemesis", "kill", "--restart-delay", "-5"}, &out), 254);
  EXPECT_EQ(out, "locksmith: --restart-delay must be 0 to 3600000\n");
  EXPECT_EQ(Locksmith(dir, {"run", "--nemesis", "net-loss", "--loss-probability", "0"}, &out),
            254);
  EXPECT_EQ(out, "locksmith: --loss-probability must be more than 0 and at most 1\n");
  EXPECT_EQ(Locksmith(dir, {"run", "--nemesis", "net-loss", "--loss-probability", "1.5"}, &out),
            254);
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 1) << out;
  EXPECT_EQ(Locksmith(dir, {"run", "--lease", "0"}, &out), 254);
  EXPECT_EQ(out, "locksmith: --lease must be 1 to 86400000\n");
  EXPECT_EQ(Locksmith(dir, {"run", "--redis-persistence", "sometimes"}, &out), 254);
  EXPECT_EQ(out,
            "locksmith: --redis-persistence must be one of none, everysec, always, not "
            "\"sometimes\"\n");
  // A file's key for a module a flag chooses applies to it: its bad value is
  // then an error like any other.
  const std::string file = dir.path() + "/scenario.json";
  { std::ofstream(file) << R"({"restart_delay_ms": -1})"; }
  EXPECT_EQ(Locksmith(dir, {"run", "--config", file, "--nemesis", "kill"}, &out), 254);
  EXPECT_EQ(out, "locksmith: --restart-delay must be 0 to 3600000\n");
  { std::ofstream(file) << R"({"no_such_key": 1})"; }
  EXPECT_EQ(Locksmith(dir, {"run", "--config", file}, &out), 254);
  EXPECT_NE(out.find("unknown config key \"no_such_key\""), std::string::npos) << out;
}

TEST(RunCliTest, TheScenarioLibraryIsListedAndRunByName) {
  TempDir dir;
  std::string out;
  ASSERT_EQ(Locksmith(dir, {"scenarios"}, &out), 0) << out;
  EXPECT_NE(out.find("redis-client-pause-past-lease  (predicts two holders at once: "
                     "expired-lease-use; debate row 1)"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("redis-kill-fsync-always"), std::string::npos) << out;
  EXPECT_EQ(Locksmith(dir, {"run", "--scenario", "nope"}, &out), 254);
  EXPECT_NE(out.find("unknown scenario \"nope\" (known: etcd-client-pause-past-lease, "),
            std::string::npos)
      << out;
  EXPECT_EQ(Locksmith(dir, {"run", "--scenario", "../README"}, &out), 254) << out;
  const std::string file = dir.path() + "/x.json";
  std::ofstream(file) << "{}";
  EXPECT_EQ(Locksmith(dir, {"run", "--scenario", "redis-kill-fsync-always", "--config", file},
                      &out),
            254);
  EXPECT_NE(out.find("give --scenario or --config, not both"), std::string::npos) << out;
}

TEST(RunCliTest, ABadScenarioStepIsOneLineAndExit254) {
  TempDir dir;
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"([{"at_ms": 1000, "f": "meteor"}])", "\"steps\": step 1: unknown fault \"meteor\""},
      {R"([{"at_ms": 1000, "f": "kill", "value": {"target": "n1,,n2"}}])", "step 1: target"},
      {R"([{"at_ms": 5000, "f": "kill"}, {"at_ms": 10, "f": "restart"}])", "in the past"},
      {R"([{"at_ms": "soon", "f": "kill"}])", "\"at_ms\" must be whole milliseconds"},
  };
  for (const auto& [steps, expected] : cases) {
    const std::string file = dir.path() + "/steps.json";
    std::ofstream(file) << R"({"time_limit_s": 10, "steps": )" << steps << "}";
    std::string out;
    EXPECT_EQ(Locksmith(dir, {"run", "--config", file}, &out), 254) << steps << ": " << out;
    EXPECT_NE(out.find(expected), std::string::npos) << out;
    EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 1) << out;
  }
}

TEST(RunCliTest, ReadersWithAClientWithoutSharedLocksAreOneLineAndExit254) {
  TempDir dir;
  std::string out;
  EXPECT_EQ(Locksmith(dir, {"run", "--backend", "zookeeper", "--client", "zk-fair",
                            "--read-fraction", "0.5"},
                      &out),
            254)
      << out;
  EXPECT_NE(out.find("--read-fraction 0.5 takes shared (read) locks, which client zk-fair does "
                     "not have (on backend zookeeper: --client zk-rw)"),
            std::string::npos)
      << out;
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 1) << out;
}

}  // namespace
}  // namespace locksmith::testing
