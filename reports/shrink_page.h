// shrink.html: what `locksmith shrink` did to an invalid run, as a page:
// the run and the anomaly kind, each of the run's faults kept or removed,
// every candidate with what each of its tries showed (a link to the try's
// report), the time limit before and after, and the result's reproduction
// rate. Built from shrink.json's record alone (harness/shrink_command.h
// writes both); every string from it is escaped. Pure; thread-safe.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace locksmith {

std::string RenderShrinkPage(const nlohmann::json& shrink);

}  // namespace locksmith
