#include "nemesis/pause_nemesis.h"

#include <algorithm>

#include "nemesis/process_checks.h"
#include "nemesis/targets.h"

namespace locksmith {

void PauseOptions::Declare(OptionSet& set) {
  set.Text("pause_target", "--pause-target", &target, 256,
           ("nodes each pause freezes: " + TargetChoices()).c_str());
  set.Integer("pause_ms", "--pause-ms", &pause_ms, int64_t{1}, int64_t{3'600'000},
              "ms a paused (SIGSTOPped) node stays frozen, at most until the next window");
  set.Require([this]() -> Status {
    if (auto parsed = ParseTarget(target); !parsed) {
      return Error{"--pause-target: " + parsed.error()};
    }
    return OkStatus();
  });
}

WindowOps PauseWindow(const PauseOptions& options) {
  return TimedWindow({"pause", {{"target", options.target}}}, {"resume", nullptr},
                     options.pause_ms);
}

std::string PauseUnfit(const ModuleOptions& options, const NemesisContext& context) {
  if (Capability<Pausable>(context.service) == nullptr) {
    return "backend " + context.service.Backend() + " cannot pause nodes";
  }
  return UnknownTargetRole("--pause-target", OptionsAs<PauseOptions>(options).target,
                           context.service.Roles(), context.service.Backend());
}

Result<std::unique_ptr<Nemesis>> MakePauseNemesis(const ModuleOptions& options,
                                                  const NemesisContext& context) {
  if (std::string why = PauseUnfit(options, context); !why.empty()) return Error{why};
  auto* pausable = Capability<Pausable>(context.service);
  LockService& service = context.service;
  return std::unique_ptr<Nemesis>(new PauseNemesis(
      *pausable, [&service] { return service.Table(); }, context.seed,
      Capability<HasNodeProcesses>(context.service)));
}

WindowOps PauseWindowOf(const ModuleOptions& options) {
  return PauseWindow(OptionsAs<PauseOptions>(options));
}

PauseNemesis::PauseNemesis(Pausable& service, std::function<NodeTable()> table, uint64_t seed,
                           HasNodeProcesses* processes)
    : NodeFaultNemesis(std::move(table),
                       {"pause", "resume",
                        [&service](const std::string& node) { return service.PauseNode(node); },
                        [&service](const std::string& node) { return service.ResumeNode(node); },
                        [processes](const std::string& node, nlohmann::json& seen) {
                          return StoppedOnItsHost(processes, node, seen);
                        },
                        nullptr},
                       seed) {}

std::optional<bool> StoppedOnItsHost(HasNodeProcesses* processes, const std::string& node,
                                     nlohmann::json& seen, std::chrono::milliseconds within) {
  if (processes == nullptr) return std::nullopt;
  const std::optional<NodeProcess> process = processes->ProcessOf(node);
  if (!process || process->host == nullptr) {
    seen["error"] = "no process to check";
    return false;
  }
  seen["pid"] = process->pid;
  auto state = AwaitProcessState(*process->host, process->pid, 'T', within);
  if (!state) {
    seen["error"] = state.error();
    return false;
  }
  seen["state"] = std::string(1, *state);
  return *state == 'T';
}

const FaultLook kPauseLook = {"pause", 20, "#6a1b9a", DescribeNodeFault};

}  // namespace locksmith
