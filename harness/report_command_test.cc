// ReportCommand on a suite run on fakes (no root, no servers): a run's
// report and a suite's pages are written again, the store's index lists the
// suite, and bad input (no directory, a history missing or corrupt) is one
// line and exit 254.
#include "harness/report_command.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "backends/backend_registry.h"
#include "base/testing/temp_dir.h"
#include "harness/signal_watcher.h"
#include "harness/suite_runner.h"
#include "harness/testing/fake_run_modules.h"
#include "history/history.h"
#include "history/history_file.h"
#include "history/history_log.h"

namespace locksmith {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

class ReportCommandTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto suite = ParseSuite(nlohmann::json::parse(R"({"seed": 5,
        "base": {"time_limit_s": 0.2, "concurrency": 3},
        "cells": [{"name": "fine"}, {"name": "broken"}]})"),
                            "pair", SuiteOverrides{std::nullopt, store_.path(), std::nullopt});
    ASSERT_TRUE(suite.ok()) << suite.error();
    SignalWatcher signals;
    std::ostringstream out;
    outcome_ = ExecuteSuite(*suite, signals, testing::FakeRunModules(), out);
    ASSERT_TRUE(outcome_.error.empty()) << outcome_.error;
    ASSERT_EQ(outcome_.record.runs.size(), 2u);
    // The runs' controller is this test process, alive: as a run that ended
    // in another process, without one.
    for (int i = 0; i < 2; ++i) fs::remove(RunDir(i) + "/controller.json");
  }
  std::string RunDir(int i) const { return outcome_.dir + "/" + outcome_.record.runs[i].dir; }

  TempDir store_;
  SuiteOutcome outcome_;
  std::ostringstream out_, err_;
};

TEST_F(ReportCommandTest, TheSuiteWritesTheStoreIndexListingIt) {
  const std::string index = Slurp(store_.path() + "/index.html");
  const std::string suite_rel = fs::relative(outcome_.dir, store_.path()).string();
  EXPECT_NE(index.find("href=\"" + suite_rel + "/index.html\""), std::string::npos) << index;
  EXPECT_NE(index.find("1 invalid"), std::string::npos);
}

TEST_F(ReportCommandTest, WritesARunsReportAgain) {
  const std::string report = RunDir(1) + "/report.html";
  const std::string before = Slurp(report);
  fs::remove(report);
  EXPECT_EQ(RegenerateReports(RunDir(1), out_, err_), 0) << err_.str();
  EXPECT_EQ(Slurp(report), before);
  EXPECT_TRUE(err_.str().empty());
  // A run inside a suite: the suite's directory is no store root.
  EXPECT_FALSE(StoreRootOf(RunDir(1)).has_value());
  EXPECT_EQ(Slurp(outcome_.dir + "/index.html").find("locksmith store"), std::string::npos);
}

// A run written before results.json listed its service's events (its
// history a history.jsonl): `report` draws them as its backend declares them.
TEST_F(ReportCommandTest, AnOlderRunsServiceEventsAreDrawnAsItsBackendDeclaresThem) {
  // Whichever backend's service announces new leaders.
  std::string backend, kind;
  for (const BackendEntry& entry : Backends()) {
    if (entry.service_events == nullptr || !kind.empty()) continue;
    for (const ServiceEventKind& k : entry.service_events().kinds) {
      if (k.new_leader && kind.empty()) backend = entry.name, kind = k.name;
    }
  }
  ASSERT_FALSE(kind.empty()) << "no backend declares a new leader's event";
  const std::string dir = RunDir(0);
  nlohmann::json config = nlohmann::json::parse(Slurp(dir + "/config.json"));
  config["backend"] = backend;
  std::ofstream(dir + "/config.json") << config.dump();
  nlohmann::json results = nlohmann::json::parse(Slurp(dir + "/results.json"));
  ASSERT_FALSE(results.contains("service_events"));  // the fake service declares none
  auto history = LoadHistoryFile(RunHistoryFile(dir), "jsonl", nullptr);
  ASSERT_TRUE(history.ok()) << history.error();
  history->push_back(Op{.index = static_cast<int64_t>(history->size()),
                        .time = history->back().time,
                        .process = kServiceProcess,
                        .type = OpType::kInfo,
                        .f = kind,
                        .value = {{"from", "n1"}, {"to", "n2"}}});
  fs::remove(dir + "/history.bin");
  std::ofstream jsonl(dir + "/history.jsonl");
  for (const Op& op : *history) jsonl << OpToJsonLine(op) << "\n";
  jsonl.close();
  ASSERT_EQ(RegenerateReports(dir, out_, err_), 0) << err_.str();
  EXPECT_NE(Slurp(dir + "/report.html").find("promotion n1 \xE2\x86\x92 n2"), std::string::npos);
}

TEST_F(ReportCommandTest, WritesEveryRunsReportAndTheSuitesPagesAgain) {
  const std::string junit = Slurp(outcome_.dir + "/junit.xml");
  for (const char* page : {"/index.html", "/junit.xml", "/summary.json"}) {
    fs::remove(outcome_.dir + page);
  }
  fs::remove(RunDir(0) + "/report.html");
  fs::remove(RunDir(1) + "/report.html");
  fs::remove(store_.path() + "/index.html");
  // summary.json is read back: write it again first, as the suite left it.
  std::ofstream(outcome_.dir + "/summary.json") << SuiteSummaryJson(outcome_.record).dump(2);
  EXPECT_EQ(RegenerateReports(outcome_.dir, out_, err_), 0) << err_.str();
  EXPECT_TRUE(fs::exists(RunDir(0) + "/report.html"));
  EXPECT_TRUE(fs::exists(RunDir(1) + "/report.html"));
  EXPECT_EQ(Slurp(outcome_.dir + "/junit.xml"), junit);
  const std::string index = Slurp(outcome_.dir + "/index.html");
  EXPECT_NE(index.find("href=\"" + outcome_.record.runs[1].dir + "/report.html\""),
            std::string::npos);
  EXPECT_EQ(StoreRootOf(outcome_.dir), fs::canonical(store_.path()).string());
  EXPECT_TRUE(fs::exists(store_.path() + "/index.html"));
  EXPECT_NE(out_.str().find("2 run reports written"), std::string::npos) << out_.str();
}

// A run from before results.json described its faults: its report tells
// them all the same.
TEST_F(ReportCommandTest, AnOlderRunsFaultsAreDescribedForItsReport) {
  Op kill;
  kill.index = 0, kill.process = kNemesisProcess, kill.type = OpType::kInfo, kill.f = "kill";
  kill.value = {{"nodes", {"n2"}}};
  kill.fault = FaultMark{0, "kill", true}.ToJson();
  fs::remove(RunDir(0) + "/" + kRunHistoryLog);  // a run from before the log, too
  std::ofstream(RunDir(0) + "/history.jsonl") << OpToJsonLine(kill) << "\n";
  std::ofstream(RunDir(0) + "/results.json") << R"({"valid": true})";
  ASSERT_EQ(RegenerateReports(RunDir(0), out_, err_), 0) << err_.str();
  const std::string report = Slurp(RunDir(0) + "/report.html");
  EXPECT_NE(report.find("<span class=\"fam fam-kill\">kill</span></td><td class=\"n\">0.000 s"),
            std::string::npos);
  EXPECT_NE(report.find("kill n2"), std::string::npos);
  EXPECT_NE(report.find(".fam-kill{background:"), std::string::npos);
  EXPECT_EQ(Slurp(RunDir(0) + "/results.json"), R"({"valid": true})");
}

TEST_F(ReportCommandTest, BadInputIsOneLineAndExit254) {
  auto one_line = [&](const std::string& dir, const std::string& says) {
    std::ostringstream out, err;
    EXPECT_EQ(RegenerateReports(dir, out, err), 254) << dir;
    const std::string text = err.str();
    EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 1) << text;
    EXPECT_NE(text.find(says), std::string::npos) << text;
  };
  one_line(store_.path() + "/nowhere", "no such directory");
  one_line(RunDir(0) + "/config.json", "is not a directory");
  one_line(store_.path(), "is not a run directory");
  {
    // A byte changed inside the log's first record.
    std::fstream log(RunDir(0) + "/" + kRunHistoryLog, std::ios::in | std::ios::out);
    log.seekp(static_cast<std::streamoff>(kHistoryLogMagic.size() + 2));
    log.put('#');
  }
  one_line(RunDir(0), "history.bin: record 1 (byte 8): its checksum does not match");
  fs::remove(RunDir(1) + "/" + kRunHistoryLog);
  one_line(RunDir(1), "history");
  // A suite whose run lost its history: the tables are still written, the exit says so.
  one_line(outcome_.dir, "2 of 2 run reports could not be written");
  std::ofstream(outcome_.dir + "/summary.json") << "{\"suite\": 3}";
  one_line(outcome_.dir, "summary.json: \"suite\" must be a string");
  std::ofstream(outcome_.dir + "/summary.json") << "{\"suite\": \"s\"}";
  one_line(outcome_.dir, "not a suite summary");
}

// Links planted inside a store are refused with one line: a run's
// results.json linked to a private file (its contents would land in a
// report anyone may read), and a suite's run directory linked elsewhere
// (its report would be written there).
TEST_F(ReportCommandTest, LinksInsideTheStoreAreRefusedWithOneLine) {
  auto refused = [&](const std::string& dir, const std::string& link) {
    std::ostringstream out, err;
    EXPECT_EQ(RegenerateReports(dir, out, err), 254) << dir;
    const std::string text = err.str();
    EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 1) << text;
    EXPECT_NE(text.find(link + " is a symbolic link"), std::string::npos) << text;
  };
  TempDir outside;
  const std::string private_results = outside.path() + "/private.json";
  fs::copy_file(RunDir(0) + "/results.json", private_results);
  fs::permissions(private_results, fs::perms::owner_read | fs::perms::owner_write);
  fs::remove(RunDir(0) + "/results.json");
  fs::create_symlink(private_results, RunDir(0) + "/results.json");
  fs::remove(RunDir(0) + "/report.html");
  refused(RunDir(0), RunDir(0) + "/results.json");
  EXPECT_FALSE(fs::exists(RunDir(0) + "/report.html"));
  fs::remove(RunDir(0) + "/results.json");
  fs::copy_file(private_results, RunDir(0) + "/results.json");

  fs::rename(RunDir(1), outside.path() + "/run");
  fs::remove(outside.path() + "/run/report.html");
  fs::create_directory_symlink(outside.path() + "/run", RunDir(1));
  refused(outcome_.dir, RunDir(1));
  EXPECT_FALSE(fs::exists(outside.path() + "/run/report.html"));
  refused(RunDir(1), RunDir(1));  // named itself
}

}  // namespace
}  // namespace locksmith
