#include "nemesis/clock_window.h"

#include <algorithm>
#include <filesystem>

#include "nemesis/fault_text.h"

namespace locksmith {
namespace {

// "n1 n2 +60 s, n3 -1 s": each node's offset as seen (else as set), nodes
// whose offsets read the same named together.
std::string SeenOffsets(const nlohmann::json& clocks) {
  std::vector<std::string> names;
  for (const auto& [node, seen] : clocks.items()) names.push_back(node);
  std::sort(names.begin(), names.end(), NaturalLess);
  std::vector<std::pair<std::string, std::string>> offsets;  // (node, offset)
  for (const auto& node : names) {
    const auto& seen = clocks[node];
    const nlohmann::json* o = NumberField(seen, "observed_offset_ms");
    if (o == nullptr) o = NumberField(seen, "offset_ms");
    offsets.emplace_back(node, o ? FormatOffsetMs(o->get<double>()) : "?");
  }
  std::vector<std::string> merged;
  for (size_t i = 0; i < offsets.size();) {
    std::vector<std::string> same;
    size_t j = i;
    for (; j < offsets.size() && offsets[j].second == offsets[i].second; ++j) {
      same.push_back(offsets[j].first);
    }
    merged.push_back(JoinStrings(same, " ") + " " + offsets[i].second);
    i = j;
  }
  return JoinStrings(merged, ", ");
}

// "clock-bump n3 +10 s", "clock-strobe n1 n2 +60 s (±60 s every 1.000 s)".
std::string DescribeClockFault(const FaultOp& op) {
  const nlohmann::json& value = op.value;
  std::string out = op.f;
  if (value.is_object() && value.contains("clocks") && value["clocks"].is_object()) {
    out += " " + SeenOffsets(value["clocks"]);
  } else if (std::string node = StringField(value, "node"); !node.empty()) {
    out += " " + node;
  }
  auto delta = NumberField(value, "delta_ms"), period = NumberField(value, "period_ms");
  if (delta && period) {
    out += " (\xC2\xB1" + FormatOffsetMs(delta->get<double>()).substr(1) + " every " +
           DurationText(period->get<double>()) + ")";
  }
  if (auto rate = NumberField(value, "rate")) out += " (rate " + JsonText(*rate) + ")";
  return out;
}

}  // namespace

std::vector<ScheduledFault> ClockWindow(const ClockOptions& options, int64_t start_ms,
                                        int64_t end_by_ms) {
  const int64_t stop = std::max(start_ms, std::min(start_ms + options.hold_ms, end_by_ms - 1));
  FaultOp begin;
  if (options.mode == "strobe") {
    // At least one whole period, so the clock really goes both ways.
    begin = {"clock-strobe",
             {{"delta_ms", options.delta_ms},
              {"period_ms", options.period_ms},
              {"duration_ms", std::max(stop - start_ms, options.period_ms)}}};
  } else if (options.mode == "drift") {
    begin = {"clock-drift", {{"rate", options.rate}}};
  } else {
    begin = {"clock-bump", {{"delta_ms", options.delta_ms}}};
  }
  FaultMark begins, ends;
  begins.begins = true;
  ends.begins = false;
  return {{start_ms, std::move(begin), begins},
          {stop, {"clock-reset", nlohmann::json::object()}, ends}};
}

std::string ClockUnfit(const ModuleOptions&, const NemesisContext& context) {
  return ClocklessReason(context.service);
}

Result<std::unique_ptr<Nemesis>> MakeClockNemesisOf(const ModuleOptions& options,
                                                    const NemesisContext& context) {
  return MakeClockNemesis(OptionsAs<ClockOptions>(options), context.service);
}

WindowOps ClockWindowOf(const ModuleOptions& options) {
  return [clock = OptionsAs<ClockOptions>(options)](int64_t start_ms, int64_t end_by_ms) {
    return ClockWindow(clock, start_ms, end_by_ms);
  };
}

Status InstallClockShims(const ModuleOptions& options, Cluster& cluster) {
  (void)options;
  auto shim = FindClockShimLibrary();
  if (!shim) return Error{shim.error()};
  for (Host* host : cluster.Hosts()) {
    // A remote host gets a copy of the library of its own.
    auto installed = host->InstallFile(*shim, std::filesystem::path(*shim).filename().string());
    if (!installed) return Error{installed.error()};
    if (Status s = ClockController::Install(*host, *installed); !s) return s;
  }
  return OkStatus();
}


const FaultLook kClockLook = {"clock", 40, "#00838f", DescribeClockFault};

}  // namespace locksmith
