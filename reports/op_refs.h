// Op references in an anomaly of results.json (checker::OpRef: an object
// with an integer "index" and string "type" and "f", often "time" and
// "process"), found at any depth so anomalies of checkers written later are
// covered without knowing their fields. Pure; thread-safe.
#pragma once

#include <cstdint>
#include <set>
#include <vector>

#include <nlohmann/json.hpp>

namespace locksmith {

// True for an op reference.
bool IsOpRef(const nlohmann::json& j);
// Every op index referenced anywhere inside `j`.
void CollectOpIndices(const nlohmann::json& j, std::set<int64_t>* out);
// The times and processes of every op reference inside `j` (those it has).
void CollectRefTimes(const nlohmann::json& j, std::vector<int64_t>* times,
                     std::vector<int64_t>* processes);
// The time of an op reference; -1 when `j` is none or has no time.
int64_t RefTime(const nlohmann::json& j);
// A time in nanoseconds that an anomaly gives (a number, whole or not, of
// any size), saturated to int64's range rather than converted undefinedly.
int64_t NanosecondsOf(const nlohmann::json& number);

}  // namespace locksmith
