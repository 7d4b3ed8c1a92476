#include "nemesis/client_crash_nemesis.h"

#include "base/limits.h"
#include "base/result.h"
#include "nemesis/fault_text.h"
#include "nemesis/partition_nemesis.h"

namespace locksmith {
namespace {

constexpr int64_t kDefaultCrashWaitMs = 5000;
constexpr int64_t kMaxWaitMs = 24LL * 3600 * 1000;
// The window has no length of its own (a crash is for good): the end only
// drops a request nobody took, a second after the begin returned.
constexpr int64_t kWindowMs = 1000;

// "client-crash p3 holding lock-1".
std::string DescribeClientCrash(const FaultOp& op) { return op.f + ClientHitText(op.value); }

}  // namespace

void ClientCrashOptions::Declare(OptionSet& set) {
  set.Text("client_crash_key", "--client-crash-key", &key, 256,
           "crash only a worker acquiring this key (empty: any)")
      .Integer("client_crash_max", "--client-crash-max", &max, 1, kMaxRunClients,
               "workers the client-crash nemesis crashes at most in a run (never the last)");
}

WindowOps ClientCrashWindow(const ClientCrashOptions& options) {
  nlohmann::json value = nlohmann::json::object();
  if (!options.key.empty()) value["key"] = options.key;
  return TimedWindow({kClientCrash, value}, {kClientCrashEnd, nullptr}, kWindowMs);
}

Result<std::unique_ptr<Nemesis>> MakeClientCrashNemesis(const ModuleOptions& options,
                                                        const NemesisContext& context) {
  if (std::string why = ClientCrashUnfit(options, context); !why.empty()) return Error{why};
  ClientCrashes& crashes = context.client_faults.Add(std::make_shared<ClientCrashes>());
  return std::unique_ptr<Nemesis>(new ClientCrashNemesis(
      crashes, context.concurrency, OptionsAs<ClientCrashOptions>(options).max));
}

WindowOps ClientCrashWindowOf(const ModuleOptions& options) {
  return ClientCrashWindow(OptionsAs<ClientCrashOptions>(options));
}

std::string ClientCrashUnfit(const ModuleOptions& options, const NemesisContext& context) {
  (void)options;
  if (context.concurrency == 1) return "client-crash never crashes the last worker: use 2 or more";
  return "";
}

FaultResult ClientCrashNemesis::Invoke(const FaultOp& op) {
  if (op.f == kClientCrashEnd) {
    crashes_.Cancel();
    return {true, nlohmann::json::object(), ""};
  }
  if (op.f != kClientCrash) return {false, nullptr, "client-crash nemesis cannot " + op.f};
  const nlohmann::json& v = op.value;
  int64_t wait = kDefaultCrashWaitMs;
  if (v.is_object() && v.contains("wait_ms")) {
    if (!v["wait_ms"].is_number_integer() || v["wait_ms"].get<int64_t>() < 0 ||
        v["wait_ms"].get<int64_t>() > kMaxWaitMs) {
      return {false, v,
              "client-crash: \"wait_ms\" must be whole milliseconds, 0 to " +
                  std::to_string(kMaxWaitMs)};
    }
    wait = v["wait_ms"].get<int64_t>();
  }
  std::string key;
  if (v.is_object() && v.contains("key")) {
    if (!v["key"].is_string()) return {false, v, "client-crash: \"key\" is a string"};
    key = v["key"].get<std::string>();
  }
  std::optional<int64_t> process;
  if (v.is_object() && v.contains("process")) {
    if (!v["process"].is_number_integer()) {
      return {false, v, "client-crash: \"process\" is a process number"};
    }
    process = v["process"].get<int64_t>();
  }
  if (crashed_ >= max_) {
    return {false, v,
            "already crashed " + std::to_string(crashed_) + " of at most " +
                std::to_string(max_) + " workers (--client-crash-max)"};
  }
  if (workers_ > 0 && crashed_ >= workers_ - 1) {
    return {false, v, "the last live worker is never crashed"};
  }
  crashes_.Request(key, process);
  auto taken = crashes_.AwaitTaken(std::chrono::milliseconds(wait));
  if (!taken) {
    return {false, v,
            "no worker acquired " + (key.empty() ? std::string("a lock") : key) + " within " +
                std::to_string(wait) + " ms"};
  }
  ++crashed_;
  FaultResult crashed{
      true, {{"process", taken->process}, {"key", taken->key}, {"crashed", crashed_}}, ""};
  // The worker took the crash at its crash point: it has stopped for good.
  crashed.observed = true;
  return crashed;
}

std::vector<HealFailure> ClientCrashNemesis::Teardown() {
  crashes_.Cancel();
  return {};
}


const FaultLook kClientCrashLook = {kClientCrash, 60, "#ad1457", DescribeClientCrash,
                                    ClientMark::kTick};

}  // namespace locksmith
