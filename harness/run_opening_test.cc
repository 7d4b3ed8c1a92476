// The run's first phase: a seed for a run given none, the directory with
// config.json, a store that cannot be made is bad input, and the run's end
// leaves no secret in a file it wrote.
#include "harness/run_opening.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "base/exit_codes.h"
#include "base/testing/file_text.h"
#include "base/run_secrets.h"
#include "base/testing/temp_dir.h"

namespace locksmith {
namespace {

using testing::FileText;
using testing::TempDir;

TEST(OpenedRunTest, GivesARunWithoutASeedOneAndStoresIt) {
  TempDir store;
  RunConfig config;
  config.store = store.path();
  config.test_name = "opening";
  RunOutcome outcome;
  auto run = OpenedRun::Open(config, outcome);
  ASSERT_NE(run, nullptr) << outcome.error;
  ASSERT_TRUE(config.seed.has_value());
  EXPECT_EQ(outcome.run_dir, run->store().dir);
  auto stored = nlohmann::json::parse(FileText(run->store().File("config.json")));
  EXPECT_EQ(stored["seed"], *config.seed);
  EXPECT_EQ(outcome.config, stored);
}

TEST(OpenedRunTest, AStoreThatCannotBeMadeIsBadInput) {
  TempDir dir;
  const std::string file = dir.path() + "/not-a-directory";
  std::ofstream(file) << "x";
  RunConfig config;
  config.store = file;
  config.seed = 1;
  RunOutcome outcome;
  EXPECT_EQ(OpenedRun::Open(config, outcome), nullptr);
  EXPECT_EQ(outcome.exit_code, kExitBadInput);
  EXPECT_FALSE(outcome.error.empty());
  EXPECT_TRUE(outcome.run_dir.empty());
}

TEST(OpenedRunTest, ItsEndRedactsTheRunsSecretsFromItsFiles) {
  TempDir store;
  RunConfig config;
  config.store = store.path();
  config.seed = 3;
  RunOutcome outcome;
  auto run = OpenedRun::Open(config, outcome);
  ASSERT_NE(run, nullptr) << outcome.error;
  const std::string secret = "opening-test-secret-5d1f";
  AddRunSecret(secret);
  const std::string client_log = run->store().File("client.log");
  std::ofstream(client_log) << "password " << secret << "\n";
  run.reset();
  const std::string text = FileText(client_log);
  EXPECT_EQ(text.find(secret), std::string::npos) << text;
  EXPECT_NE(text.find("password"), std::string::npos);
}

}  // namespace
}  // namespace locksmith
