// Toxics: what a relay on a slow link does to the bytes it carries, as
// Toxiproxy names them: added latency with jitter, a bandwidth cap, a stall
// (bytes held until the heal: a timeout), and a reset of the connections.
// Each direction of a connection has its own: upstream is what the side
// that opened it sends, downstream the answers. Plain data and pure
// functions (the relay, nemesis/toxic_relay.h, applies them); thread-safe.
#pragma once

#include <chrono>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/result.h"

namespace locksmith {

// The most latency or jitter a toxic adds, in ms.
inline constexpr int64_t kMaxToxicDelayMs = 60000;

// One direction's toxics.
struct Toxics {
  int64_t latency_ms = 0;     // added to every chunk
  int64_t jitter_ms = 0;      // each chunk's latency varies by up to this, either way
  int64_t bandwidth_kbs = 0;  // KB/s (1000 bytes); 0: no cap
  bool stall = false;         // nothing passes until the toxics are cleared

  bool Harmless() const {
    return latency_ms == 0 && jitter_ms == 0 && bandwidth_kbs == 0 && !stall;
  }
  bool operator==(const Toxics&) const = default;
};

// A link's toxics: both directions, and whether its connections are reset.
struct LinkToxics {
  Toxics upstream;
  Toxics downstream;
  bool reset = false;  // every connection through the relay is reset (RST)

  bool operator==(const LinkToxics&) const = default;
};

std::vector<std::string> SlowModes();       // delay, stall, reset
std::vector<std::string> SlowDirections();  // both, upstream, downstream

// The toxics a net-slow value asks for: {"mode": "delay" | "stall" |
// "reset", "direction": "both" | "upstream" | "downstream", "latency_ms",
// "jitter_ms", "bandwidth_kbs"} (absent: delay, both, 0). An error names the
// field that is not one of its values or out of its bounds (latency and
// jitter at most 60000 ms, jitter at most the latency; bandwidth 0 or 1 to
// 10^7 KB/s). A delay mode with neither latency nor bandwidth is an error:
// it would slow nothing.
Result<LinkToxics> ToxicsFromJson(const nlohmann::json& value);
// {"upstream": {...}, "downstream": {...}, "reset": bool}: what was applied.
nlohmann::json ToxicsJson(const LinkToxics& toxics);

// When a chunk of `bytes` read at `read_at` leaves the relay, given when the
// chunk before it left (`previous`, time_point{} for none): the latency plus
// a jitter drawn from `rng` uniformly in [-jitter, +jitter] (never below no
// delay), but not before `previous` (bytes keep their order), and then the
// time the bandwidth cap takes to send it. Ignores `stall`.
// Pure but for `rng`.
std::chrono::steady_clock::time_point DeliveryTime(const Toxics& toxics, size_t bytes,
                                                   std::chrono::steady_clock::time_point read_at,
                                                   std::chrono::steady_clock::time_point previous,
                                                   std::mt19937_64& rng);

}  // namespace locksmith
