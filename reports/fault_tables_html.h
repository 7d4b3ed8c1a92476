// The report's fault tables: availability (acquire attempts that got the
// lock inside fault windows and outside them, and per window, from the
// availability checker's stats) and the list of faults, each named by its
// lane's badge and told by its label. Pure; thread-safe.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "reports/report_model.h"

namespace locksmith {

// Empty when `stats` are not the availability checker's. Counts from
// results.json may come from anywhere: never trusted to have the right types.
std::string AvailabilityHtml(const nlohmann::json& stats, const ReportModel& model);
std::string FaultsHtml(const ReportModel& model);

}  // namespace locksmith
