#include "nemesis/clock_window.h"

#include <algorithm>
#include <filesystem>

namespace locksmith {

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

}  // namespace locksmith
