// Text helpers the fault families share to tell their faults for people
// (FaultLook::describe): fields of an op's value read leniently (a value
// written by an older or a foreign nemesis may lack them or hold other
// types), node and client names in natural order with consecutive clients
// as ranges, offsets and durations with units. Pure; thread-safe.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/text.h"

namespace locksmith {

// JSON text that never throws on invalid UTF-8 (replaced by U+FFFD).
std::string JsonText(const nlohmann::json& j);
// `name` of an object as text: a string as it is, anything else as JSON;
// empty when absent or null.
std::string StringField(const nlohmann::json& j, const char* name);
// `name` of an object when it is a number, else null.
const nlohmann::json* NumberField(const nlohmann::json& j, const char* name);

// "c0", "c12": a client host's name.
bool IsClientHost(const std::string& host);
// "c0–c5 c7 n1": naturally ordered, consecutive client hosts as ranges.
std::string CompactNames(std::vector<std::string> names);
std::string JoinStrings(const std::vector<std::string>& parts, const std::string& separator);
// `text` cut to at most `max` bytes at a UTF-8 boundary, "…" added when cut.
std::string ShortText(std::string text, size_t max);

// "+10 s", "-250 ms", "+1.5 ms": a clock offset with its sign.
std::string FormatOffsetMs(double ms);
// "2.000 s", "12.3 ms", "850 µs": a duration given in milliseconds.
std::string DurationText(double ms);

// " p1 holding lock-2": the client a fault hit, from its value's "process"
// and "key" (each left out when absent).
std::string ClientHitText(const nlohmann::json& value);

}  // namespace locksmith
