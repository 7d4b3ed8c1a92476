#include "nemesis/clock_nemesis.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <thread>

#include "base/ceil_millis.h"

namespace locksmith {
namespace st = shim_time;
namespace {

// An observed offset within this much of the predicted one confirms it
// (plus half the round trip of the TIME command): the shim applies a change
// within 1 ms, TIME has microseconds.
constexpr int64_t kToleranceNs = 25 * kNsPerMs;
constexpr std::chrono::milliseconds kObservePoll{5};

double Ms(int64_t ns) { return std::round(static_cast<double>(ns) / 1000.0) / 1000.0; }

Result<int64_t> IntegerField(const nlohmann::json& value, const char* key, int64_t min,
                             int64_t max) {
  const std::string named = std::string("\"") + key + "\"";
  if (!value.is_object() || !value.contains(key) || !value[key].is_number_integer()) {
    return Error{"needs an integer " + named};
  }
  const int64_t v = value[key].get<int64_t>();
  if (v < min || v > max) {
    return Error{named + " must be " + std::to_string(min) + " to " + std::to_string(max)};
  }
  return v;
}

}  // namespace

std::vector<std::string> ClockModes() { return {"bump", "strobe", "drift"}; }

void ClockOptions::Declare(OptionSet& set) {
  set.Choice("clock_mode", "--clock-mode", &mode, ClockModes(),
             "what a clock fault does: bump (one jump), strobe (jumps back and forth), "
             "drift (a faster or slower clock)");
  set.Integer("clock_delta_ms", "--clock-delta", &delta_ms, -kMaxClockDeltaMs, kMaxClockDeltaMs,
              "ms a clock bump moves the clock (negative: back), or a strobe's amplitude");
  set.Integer("clock_period_ms", "--clock-period", &period_ms, int64_t{2}, kMaxClockPeriodMs,
              "ms of one strobe period (+delta for half, -delta for the other half)");
  set.Number("clock_rate", "--clock-rate", &rate, 0.0, 1000.0,
             "speed of a drifting clock (2: twice as fast, 0.5: half, 0: stopped)");
  set.Integer("clock_hold_ms", "--clock-hold", &hold_ms, int64_t{0}, kMaxClockPeriodMs,
              "ms a clock fault lasts before the reset, at most until the next fault");
  set.Integer("clock_observe_timeout_ms", "--clock-observe-timeout", &observe_timeout_ms,
              int64_t{0}, int64_t{60'000},
              "ms a clock op waits for the node's clock (Redis TIME) to show the change");
}

std::string ClocklessReason(LockService& service) {
  if (Capability<HasClocks>(service) != nullptr) return "";
  return "backend " + service.Backend() + " cannot show its nodes' clocks";
}

Result<std::unique_ptr<Nemesis>> MakeClockNemesis(const ClockOptions& options,
                                                  LockService& service) {
  if (std::string why = ClocklessReason(service); !why.empty()) return Error{why};
  auto* clocks = Capability<HasClocks>(service);
  const std::vector<std::string> nodes = service.Nodes();
  for (const auto& node : nodes) {
    Host* host = clocks->NodeHost(node);
    if (host == nullptr) return Error{"clock nemesis: no host for node " + node};
    if (!ClockController::Installed(*host)) {
      return Error{"clock nemesis: the clock shim is not installed on host " + host->Name() +
                   " (ClockController::Install before the servers start)"};
    }
  }
  return std::unique_ptr<Nemesis>(new ClockNemesis(
      *clocks, nodes, std::chrono::milliseconds(options.observe_timeout_ms)));
}

int64_t ClockNemesis::SystemWallClockNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

ClockNemesis::ClockNemesis(HasClocks& clocks, std::vector<std::string> nodes,
                           std::chrono::milliseconds observe_timeout, WallClock now)
    : clocks_(clocks),
      nodes_(std::move(nodes)),
      observe_timeout_(observe_timeout),
      now_(std::move(now)) {}

Result<std::vector<std::string>> ClockNemesis::Targets(const nlohmann::json& value) const {
  std::vector<std::string> targets;
  if (value.is_object() && value.contains("node")) {
    if (!value["node"].is_string()) return Error{"\"node\" must be a node name"};
    targets.push_back(value["node"].get<std::string>());
  } else if (value.is_object() && value.contains("nodes")) {
    if (!value["nodes"].is_array()) return Error{"\"nodes\" must be a list of node names"};
    for (const auto& n : value["nodes"]) {
      if (!n.is_string()) return Error{"\"nodes\" must be a list of node names"};
      targets.push_back(n.get<std::string>());
    }
  } else {
    targets = nodes_;
  }
  for (const auto& t : targets) {
    if (std::find(nodes_.begin(), nodes_.end(), t) == nodes_.end()) {
      return Error{"no node " + t + " (nodes: " + JoinNames(nodes_) + ")"};
    }
  }
  if (targets.empty()) return Error{"no node to change the clock of"};
  return targets;
}

Result<ClockController*> ClockNemesis::ControllerOf(const std::string& node) {
  Host* host = clocks_.NodeHost(node);
  if (host == nullptr) return Error{"no host for node " + node};
  auto& controller = controllers_[host->Name()];
  if (!controller) controller = std::make_unique<ClockController>(*host);
  return controller.get();
}

FaultResult ClockNemesis::Invoke(const FaultOp& op) {
  const int64_t now = now_();
  // How the op changes a host's parameters; reset removes the file instead.
  std::function<st::ClockParams(const st::ClockParams&)> change;
  if (op.f == "clock-bump") {
    auto delta = IntegerField(op.value, "delta_ms", -kMaxClockDeltaMs, kMaxClockDeltaMs);
    if (!delta) return {false, op.value, op.f + " " + delta.error()};
    change = [d = *delta * kNsPerMs](const st::ClockParams& p) { return st::Bumped(p, d); };
  } else if (op.f == "clock-strobe") {
    auto delta = IntegerField(op.value, "delta_ms", -kMaxClockDeltaMs, kMaxClockDeltaMs);
    auto period = IntegerField(op.value, "period_ms", 2, kMaxClockPeriodMs);
    auto duration = IntegerField(op.value, "duration_ms", 1, kMaxClockDeltaMs);
    for (const auto* r : {&delta, &period, &duration}) {
      if (!*r) return {false, op.value, op.f + " " + r->error()};
    }
    change = [=](const st::ClockParams& p) {
      return st::WithStrobe(p, now, *delta * kNsPerMs, *period * kNsPerMs, *duration * kNsPerMs);
    };
  } else if (op.f == "clock-drift") {
    if (!op.value.is_object() || !op.value.contains("rate") || !op.value["rate"].is_number() ||
        op.value["rate"].get<double>() < 0 || op.value["rate"].get<double>() > 1000) {
      return {false, op.value, op.f + " needs a \"rate\" from 0 to 1000"};
    }
    const auto ppm = std::llround(op.value["rate"].get<double>() * st::kRealRate);
    change = [=](const st::ClockParams& p) { return st::WithRate(p, now, ppm); };
  } else if (op.f != "clock-reset") {
    return {false, op.value, "clock nemesis cannot " + op.f};
  }
  auto targets = Targets(op.value);
  if (!targets) return {false, op.value, op.f + ": " + targets.error()};

  // Write each host's file once, however many target nodes it runs.
  std::string errors;
  auto add_error = [&](const std::string& e) { errors += (errors.empty() ? "" : "; ") + e; };
  std::set<ClockController*> written;
  std::map<std::string, ClockController*> target_controllers;
  for (const auto& node : *targets) {
    auto controller = ControllerOf(node);
    if (!controller) {
      add_error(node + ": " + controller.error());
      continue;
    }
    target_controllers[node] = *controller;
    if (!written.insert(*controller).second) continue;
    ClockController& c = **controller;
    const Status s = change ? c.Write(change(c.params())) : c.Remove();
    if (!s) add_error(node + ": " + s.error());
  }
  nlohmann::json value = op.value.is_object() ? op.value : nlohmann::json::object();
  nlohmann::json clocks = nlohmann::json::object();
  bool all_shown = !target_controllers.empty();
  for (const auto& [node, controller] : target_controllers) {
    Observation seen = Observe(node, *controller);
    clocks[node] = seen.value;
    if (!seen.confirmed) {
      all_shown = false;
      add_error(node + "'s clock does not show the change: " + seen.value.dump());
    }
  }
  value["clocks"] = clocks;
  // Read back through each node's own clock: the fault's observation.
  FaultResult result{errors.empty(), value, errors.empty() ? "" : op.f + ": " + errors};
  result.observed = all_shown && errors.empty();
  return result;
}

ClockNemesis::Observation ClockNemesis::Observe(const std::string& node,
                                                const ClockController& controller) {
  const auto give_up = std::chrono::steady_clock::now() + observe_timeout_;
  Observation seen;
  while (true) {
    const int64_t before = now_();
    auto clock = clocks_.WallClockNs(node);
    const int64_t after = now_();
    if (!clock) {
      seen.value = {{"error", clock.error()}};
    } else {
      const int64_t middle = before + (after - before) / 2;
      const int64_t expected = st::FakeNs(controller.params(), middle) - middle;
      const int64_t observed = *clock - middle;
      seen.value = {{"offset_ms", Ms(expected)},
                    {"observed_offset_ms", Ms(observed)},
                    {"rtt_ms", Ms(after - before)}};
      const int64_t tolerance = kToleranceNs + (after - before) / 2;
      if (std::llabs(observed - expected) <= tolerance) {
        seen.confirmed = true;
        return seen;
      }
    }
    if (std::chrono::steady_clock::now() + kObservePoll > give_up) return seen;
    std::this_thread::sleep_for(kObservePoll);
  }
}

std::vector<HealFailure> ClockNemesis::Teardown() {
  std::vector<HealFailure> failures;
  for (auto& [host, controller] : controllers_) {
    if (!controller->file_in_place()) continue;
    if (Status s = controller->Remove(); !s) {
      failures.push_back({"clock-reset", {{"host", host}}, s.error()});
    }
  }
  return failures;
}

}  // namespace locksmith
