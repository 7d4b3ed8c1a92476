#include "nemesis/client_clock_nemesis.h"

#include <cstdlib>
#include <string_view>

#include "base/limits.h"
#include "nemesis/clock_controller.h"
#include "nemesis/clock_window.h"

namespace locksmith {
namespace {

constexpr std::string_view kPrefix = "client-";
constexpr std::chrono::milliseconds kDateTimeout{5000};

std::string ClientName(int64_t index) { return "c" + std::to_string(index); }

// The clients' clocks as the clock family reads a node's: client `c<i>`'s
// host is its client host, and its clock is what `date` says there under
// the host's spawn environment (the shim and its control file), as the
// program's own clock calls see it.
class ClientClocks : public HasClocks {
 public:
  explicit ClientClocks(Cluster& cluster) : cluster_(cluster) {}

  Host* NodeHost(const std::string& client) override {
    if (client.size() < 2 || client[0] != 'c') return nullptr;
    return cluster_.MadeClientHost(std::atoi(client.c_str() + 1));
  }

  Result<int64_t> WallClockNs(const std::string& client) override {
    Host* host = NodeHost(client);
    if (host == nullptr) return Error{"client " + client + " has no host of its own"};
    std::vector<std::string> argv = {"env"};
    for (const auto& entry : host->SpawnEnv()) argv.push_back(entry);
    argv.insert(argv.end(), {"date", "+%s%N"});
    auto ran = host->Exec(argv, kDateTimeout);
    if (!ran) return Error{ran.error()};
    char* end = nullptr;
    const long long ns = std::strtoll(ran->output.c_str(), &end, 10);
    if (ran->exit_code != 0 || end == ran->output.c_str()) {
      return Error{"date on " + host->Name() + " said: " + ran->output};
    }
    return static_cast<int64_t>(ns);
  }

 private:
  Cluster& cluster_;
};

// "client-clock-bump c0 -3 s (±3 s every 4 ms)": the clock family's words.
std::string DescribeClientClock(const FaultOp& op) { return kClockLook.describe(op); }

}  // namespace

void ClientClockOptions::Declare(OptionSet& set) {
  set.Choice("client_clock_mode", "--client-clock-mode", &clock.mode, ClockModes(),
             "what a client clock fault does (as --clock-mode)")
      .Integer("client_clock_delta_ms", "--client-clock-delta", &clock.delta_ms, -kMaxClockDeltaMs,
               kMaxClockDeltaMs, "ms a client clock bump moves its clock, or a strobe's amplitude")
      .Integer("client_clock_period_ms", "--client-clock-period", &clock.period_ms, int64_t{2},
               kMaxClockPeriodMs, "ms of one client clock strobe period")
      .Number("client_clock_rate", "--client-clock-rate", &clock.rate, 0.0, 1000.0,
              "speed of a drifting client clock (2: twice as fast, 0: stopped)")
      .Integer("client_clock_hold_ms", "--client-clock-hold", &clock.hold_ms, int64_t{0},
               kMaxClockPeriodMs, "ms a client clock fault lasts before the reset")
      .Integer("client_clock_target", "--client-clock-target", &target, int64_t{0},
               int64_t{kMaxRunClients - 1}, "the client (worker index) whose clock moves");
}

std::vector<ScheduledFault> ClientClockWindow(const ClientClockOptions& options,
                                              int64_t start_ms, int64_t end_by_ms) {
  std::vector<ScheduledFault> faults = ClockWindow(options.clock, start_ms, end_by_ms);
  for (auto& fault : faults) {
    fault.op.f = std::string(kPrefix) + fault.op.f;
    fault.op.value["client"] = options.target;
  }
  return faults;
}

std::string ClientClockUnfit(const ModuleOptions& options, const NemesisContext& context) {
  if (!context.external_clients) {
    return "client-clock moves an external client program's clock (--client exec:...); the "
           "built-in clients share the controller's, which the run never moves";
  }
  const int64_t target = OptionsAs<ClientClockOptions>(options).target;
  if (target >= context.concurrency) {
    return "--client-clock-target " + std::to_string(target) + " names no client (there are " +
           std::to_string(context.concurrency) + ")";
  }
  if (context.cluster == nullptr) return "client-clock needs the run's hosts";
  auto host = context.cluster->ClientHost(0);
  if (!host || *host == nullptr) {
    return "client-clock needs client hosts of their own: the local provider as root, without "
           "--loopback";
  }
  return "";
}

Result<std::unique_ptr<Nemesis>> MakeClientClockNemesis(const ModuleOptions& options,
                                                        const NemesisContext& context) {
  if (std::string why = ClientClockUnfit(options, context); !why.empty()) return Error{why};
  auto shim = FindClockShimLibrary();
  if (!shim) return Error{shim.error()};
  for (int i = 0; i < context.concurrency; ++i) {
    auto host = context.cluster->ClientHost(i);
    if (!host) return Error{"client-clock: " + host.error()};
    if (Status s = ClockController::Install(**host, *shim); !s) return Error{s.error()};
  }
  const auto& o = OptionsAs<ClientClockOptions>(options);
  return std::unique_ptr<Nemesis>(new ClientClockNemesis(
      std::make_unique<ClientClocks>(*context.cluster), context.concurrency, o.target,
      std::chrono::milliseconds(o.clock.observe_timeout_ms)));
}

WindowOps ClientClockWindowOf(const ModuleOptions& options) {
  return [o = OptionsAs<ClientClockOptions>(options)](int64_t start_ms, int64_t end_by_ms) {
    return ClientClockWindow(o, start_ms, end_by_ms);
  };
}

ClientClockNemesis::ClientClockNemesis(std::unique_ptr<HasClocks> clocks, int clients,
                                       int64_t target, std::chrono::milliseconds observe_timeout,
                                       ClockNemesis::WallClock now)
    : clocks_(std::move(clocks)),
      clients_(clients),
      target_(target),
      clock_(*clocks_,
             [clients] {
               std::vector<std::string> names;
               for (int i = 0; i < clients; ++i) names.push_back(ClientName(i));
               return names;
             }(),
             observe_timeout, std::move(now)) {}

FaultResult ClientClockNemesis::Invoke(const FaultOp& op) {
  if (op.f.rfind(kPrefix, 0) != 0) return {false, op.value, "client-clock cannot " + op.f};
  nlohmann::json value = op.value.is_object() ? op.value : nlohmann::json::object();
  int64_t client = target_;
  if (value.contains("client")) {
    if (!value["client"].is_number_integer() || value["client"].get<int64_t>() < 0 ||
        value["client"].get<int64_t>() >= clients_) {
      return {false, op.value,
              op.f + ": \"client\" must be a worker index below " + std::to_string(clients_)};
    }
    client = value["client"].get<int64_t>();
  }
  nlohmann::json inner = value;
  inner.erase("client");
  inner["node"] = ClientName(client);
  FaultResult result = clock_.Invoke({op.f.substr(kPrefix.size()), inner});
  if (result.value.is_object()) {
    result.value.erase("node");
    result.value["client"] = client;
  }
  if (!result.error.empty()) result.error = std::string(kPrefix) + result.error;
  return result;
}

const FaultLook kClientClockLook = {kClientClock, 55, "#2e7d32", DescribeClientClock};

}  // namespace locksmith
