#include "harness/trend_cli.h"

#include <iostream>

#include "harness/store_prune.h"
#include "harness/trend_command.h"

namespace locksmith {

TrendCli::TrendCli(CLI::App& app) {
  trend_ = app.add_subcommand(
      "trend",
      "draw a suite's nights side by side into OUT/trend.html (violation rate with its Wilson "
      "interval, grants per second, time to acquire p50 / p99, share in doubt), one row per "
      "cell, newest night on the right, regressions marked; from summary.json files, suite "
      "directories or a store root (every suite it holds), oldest first");
  trend_->add_option("out", trend_out_, "directory to write trend.html into")->required();
  trend_->add_option("inputs", trend_inputs_,
                     "summary.json files or suite directories, oldest first; or a store root")
      ->required();
  compare_ = app.add_subcommand(
      "compare",
      "list the cells of NEW whose verdict, violations or acquire times differ from OLD's "
      "(suite directories or summary.json files); exit 1 when a cell regressed (its "
      "violations rose beyond both Wilson intervals, or it was clean in OLD and is not now), "
      "0 otherwise");
  compare_->add_option("old", compare_old_, "the earlier night's summary or suite directory")
      ->required();
  compare_->add_option("new", compare_new_, "tonight's summary or suite directory")->required();
  compare_->add_flag("--json", compare_json_, "print the changes as JSON");
  CLI::App* store = app.add_subcommand("store", "look after a store: store prune");
  store->require_subcommand(1);
  prune_ = store->add_subcommand(
      "prune",
      "remove old runs' heavy files and old suites' run directories, keeping every summary "
      "(config.json and results.json of a run, a suite's summary.json, junit.xml and "
      "index.html), so the store index and trends still draw every night");
  prune_->add_option("--store", store_root_, "the store root [default: store]");
  prune_->add_option("--keep", keep_, "keep the N newest runs and suites of each name whole")
      ->check(CLI::Range(1, 1000000));
  prune_->add_option("--keep-days", keep_days_, "keep those younger than D days whole")
      ->check(CLI::Range(0.001, 36500.0));
}

std::optional<int> TrendCli::Run() const {
  if (trend_->parsed()) return WriteTrend(trend_out_, trend_inputs_, std::cout, std::cerr);
  if (compare_->parsed()) {
    return CompareSummaries(compare_old_, compare_new_, compare_json_, std::cout, std::cerr);
  }
  if (prune_->parsed()) {
    PruneRule rule;
    if (prune_->count("--keep") > 0) rule.keep = keep_;
    if (prune_->count("--keep-days") > 0) rule.keep_days = keep_days_;
    return PruneStoreCommand(store_root_, rule, std::cout, std::cerr);
  }
  return std::nullopt;
}

}  // namespace locksmith
