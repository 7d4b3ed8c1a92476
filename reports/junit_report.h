// JUnit XML for CI: one <testsuite> per run, one <testcase> per checker (from
// results.json; see RunResults). An invalid checker gets a <failure> whose
// body lists its anomalies (type, key, op indices, scalar fields); an unknown
// verdict is an <error> (the checker could not decide: CI must not read that
// as a pass). An interrupted run (results.json "interrupted": true) gets an
// "interrupted" property and a <system-out> line in each test case saying
// what the verdict covers. Free functions; thread-safe.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "base/result.h"

namespace locksmith {

// Reads run_dir/results.json (required) and config.json (optional), takes the
// run's duration from the last op of its history if present, and writes
// run_dir/junit.xml.
Status WriteJunitXml(const std::string& run_dir);

Status WriteJunitXml(const nlohmann::json& results, const nlohmann::json& config,
                     const std::string& output_path, double duration_s = 0);
Result<std::string> RenderJunitXml(const nlohmann::json& results, const nlohmann::json& config,
                                   double duration_s = 0);

// A JUnit time: seconds with three decimals, never in exponent form (the
// schema's SUREFIRE_TIME pattern has no exponent); 0.000 for a time that is
// not a positive number.
std::string JunitSeconds(double s);

}  // namespace locksmith
