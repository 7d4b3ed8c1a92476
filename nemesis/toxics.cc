#include "nemesis/toxics.h"

#include <algorithm>

#include "base/result.h"

namespace locksmith {
namespace {

constexpr int64_t kMaxBandwidthKbs = 10'000'000;

Result<std::string> ChoiceField(const nlohmann::json& value, const char* key,
                                const std::vector<std::string>& choices) {
  if (!value.is_object() || !value.contains(key)) return choices.front();
  const auto& field = value.at(key);
  if (field.is_string() &&
      std::find(choices.begin(), choices.end(), field.get<std::string>()) != choices.end()) {
    return field.get<std::string>();
  }
  return Error{std::string("\"") + key + "\" must be one of " + JoinNames(choices) + ", not " +
               field.dump()};
}

Result<int64_t> IntegerField(const nlohmann::json& value, const char* key, int64_t max) {
  if (!value.is_object() || !value.contains(key)) return int64_t{0};
  const auto& field = value.at(key);
  if (!field.is_number_integer() || field.get<int64_t>() < 0 || field.get<int64_t>() > max) {
    return Error{std::string("\"") + key + "\" must be a whole number from 0 to " +
                 std::to_string(max) + ", not " + field.dump()};
  }
  return field.get<int64_t>();
}

nlohmann::json OneWayJson(const Toxics& t) {
  return {{"latency_ms", t.latency_ms},
          {"jitter_ms", t.jitter_ms},
          {"bandwidth_kbs", t.bandwidth_kbs},
          {"stall", t.stall}};
}

}  // namespace

std::vector<std::string> SlowModes() { return {"delay", "stall", "reset"}; }
std::vector<std::string> SlowDirections() { return {"both", "upstream", "downstream"}; }

Result<LinkToxics> ToxicsFromJson(const nlohmann::json& value) {
  auto mode = ChoiceField(value, "mode", SlowModes());
  if (!mode) return Error{mode.error()};
  auto direction = ChoiceField(value, "direction", SlowDirections());
  if (!direction) return Error{direction.error()};
  auto latency = IntegerField(value, "latency_ms", kMaxToxicDelayMs);
  if (!latency) return Error{latency.error()};
  auto jitter = IntegerField(value, "jitter_ms", kMaxToxicDelayMs);
  if (!jitter) return Error{jitter.error()};
  auto bandwidth = IntegerField(value, "bandwidth_kbs", kMaxBandwidthKbs);
  if (!bandwidth) return Error{bandwidth.error()};
  if (*jitter > *latency) {
    return Error{"\"jitter_ms\" (" + std::to_string(*jitter) + ") must be at most \"latency_ms\" (" +
                 std::to_string(*latency) + ")"};
  }
  LinkToxics toxics;
  if (*mode == "reset") {
    toxics.reset = true;
    return toxics;
  }
  Toxics one_way;
  one_way.stall = *mode == "stall";
  if (!one_way.stall) {
    if (*latency == 0 && *bandwidth == 0) {
      return Error{"a delay needs \"latency_ms\" or \"bandwidth_kbs\" above 0"};
    }
    one_way.latency_ms = *latency;
    one_way.jitter_ms = *jitter;
    one_way.bandwidth_kbs = *bandwidth;
  }
  if (*direction != "downstream") toxics.upstream = one_way;
  if (*direction != "upstream") toxics.downstream = one_way;
  return toxics;
}

nlohmann::json ToxicsJson(const LinkToxics& toxics) {
  return {{"upstream", OneWayJson(toxics.upstream)},
          {"downstream", OneWayJson(toxics.downstream)},
          {"reset", toxics.reset}};
}

std::chrono::steady_clock::time_point DeliveryTime(const Toxics& toxics, size_t bytes,
                                                   std::chrono::steady_clock::time_point read_at,
                                                   std::chrono::steady_clock::time_point previous,
                                                   std::mt19937_64& rng) {
  using std::chrono::microseconds;
  int64_t delay_us = toxics.latency_ms * 1000;
  if (toxics.jitter_ms > 0) {
    std::uniform_int_distribution<int64_t> jitter(-toxics.jitter_ms * 1000,
                                                  toxics.jitter_ms * 1000);
    delay_us = std::max<int64_t>(0, delay_us + jitter(rng));
  }
  // The chunk starts out once it is due and the one before it has gone; a
  // bandwidth cap then takes bytes / (KB/s * 1000) seconds to send it.
  const auto start = std::max(read_at + microseconds(delay_us), previous);
  const int64_t send_us =
      toxics.bandwidth_kbs > 0 ? static_cast<int64_t>(bytes) * 1000 / toxics.bandwidth_kbs : 0;
  return start + microseconds(send_us);
}

}  // namespace locksmith
