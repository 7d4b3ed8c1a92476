#include "nemesis/client_pause_nemesis.h"

#include <algorithm>

#include "checker/result.h"

namespace locksmith {
namespace {

constexpr int64_t kDefaultWaitMs = 5000;
constexpr int64_t kMaxMs = 24LL * 3600 * 1000;

// value[name] as whole milliseconds in [0, kMaxMs], or `fallback` when absent.
Result<int64_t> Millis(const nlohmann::json& value, const char* name, int64_t fallback) {
  if (!value.is_object() || !value.contains(name)) return fallback;
  const auto& v = value[name];
  if (!v.is_number_integer() || v.get<int64_t>() < 0 || v.get<int64_t>() > kMaxMs) {
    return Error{std::string("client-pause: \"") + name + "\" must be whole milliseconds, 0 to " +
                 std::to_string(kMaxMs)};
  }
  return v.get<int64_t>();
}

}  // namespace

void ClientPauseOptions::Declare(OptionSet& set) {
  set.Integer("client_pause_ms", "--client-pause-ms", &ms, int64_t{1}, kMaxMs,
              "ms a lock holder stalls inside its critical section (a GC pause)");
  set.Text("client_pause_key", "--client-pause-key", &key, 256,
           "stall only a holder of this key (empty: any holder)");
}

WindowOps ClientPauseWindow(const ClientPauseOptions& options) {
  nlohmann::json value{{"ms", options.ms}};
  if (!options.key.empty()) value["key"] = options.key;
  return TimedWindow({"client-pause", value}, {"client-resume", nullptr}, options.ms);
}

Result<std::unique_ptr<Nemesis>> MakeClientPauseNemesis(const ModuleOptions& options,
                                                        const NemesisContext& context) {
  (void)options;
  return std::unique_ptr<Nemesis>(new ClientPauseNemesis(context.pauses));
}

WindowOps ClientPauseWindowOf(const ModuleOptions& options) {
  return ClientPauseWindow(OptionsAs<ClientPauseOptions>(options));
}

FaultResult ClientPauseNemesis::Invoke(const FaultOp& op) {
  if (op.f == "client-resume") {
    pauses_.Cancel();
    return {true, nlohmann::json::object(), ""};
  }
  if (op.f != "client-pause") return {false, nullptr, "client-pause nemesis cannot " + op.f};
  auto ms = Millis(op.value, "ms", -1);
  auto wait = Millis(op.value, "wait_ms", kDefaultWaitMs);
  if (ms.ok() && *ms < 0) ms = Error{"client-pause needs \"ms\": how long the holder stalls"};
  for (const auto* r : {&ms, &wait}) {
    if (!r->ok()) return {false, op.value, r->error()};
  }
  std::string key;
  if (op.value.is_object() && op.value.contains("key")) {
    if (!op.value["key"].is_string()) return {false, op.value, "client-pause: \"key\" is a string"};
    key = op.value["key"].get<std::string>();
  }
  std::optional<int64_t> process;
  if (op.value.is_object() && op.value.contains("process")) {
    if (!op.value["process"].is_number_integer()) {
      return {false, op.value, "client-pause: \"process\" is a process number"};
    }
    process = op.value["process"].get<int64_t>();
  }
  pauses_.Request(std::chrono::milliseconds(*ms), key, process);
  auto taken = pauses_.AwaitTaken(std::chrono::milliseconds(*wait));
  if (!taken) {
    return {false, op.value,
            "no client held " + (key.empty() ? std::string("a lock") : key) + " within " +
                std::to_string(*wait) + " ms"};
  }
  return {true,
          {{"process", taken->process}, {"key", taken->key}, {"ms", taken->duration.count()}},
          ""};
}

std::vector<HealFailure> ClientPauseNemesis::Teardown() {
  pauses_.Cancel();
  return {};
}

}  // namespace locksmith
