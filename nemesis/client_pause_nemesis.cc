#include "nemesis/client_pause_nemesis.h"

#include "base/result.h"
#include "nemesis/fault_text.h"

namespace locksmith {
namespace {

constexpr int64_t kDefaultPauseWaitMs = 5000;
constexpr int64_t kMaxMs = 24LL * 3600 * 1000;

std::vector<std::string> PausePointNames() {
  return {PausePointName(PausePoint::kHolder), PausePointName(PausePoint::kInFlight),
          PausePointName(PausePoint::kReleaseInFlight)};
}

// The op's "at": where the stall hits (holder when absent).
Result<PausePoint> PointOf(const nlohmann::json& value) {
  if (!value.is_object() || !value.contains("at")) return PausePoint::kHolder;
  for (PausePoint point :
       {PausePoint::kHolder, PausePoint::kInFlight, PausePoint::kReleaseInFlight}) {
    if (value["at"] == PausePointName(point)) return point;
  }
  return Error{"client-pause: \"at\" is \"holder\", \"in-flight\" or \"release-in-flight\""};
}

// Why no client took a stall at `point` within `wait_ms`.
std::string NotTakenText(PausePoint point, const std::string& lock, int64_t wait_ms) {
  const std::string within = " within " + std::to_string(wait_ms) + " ms";
  switch (point) {
    case PausePoint::kInFlight:
      return "no client's acquire of " + lock + " reached the in-flight point" + within +
             " (granted replies, not yet judged: only clients that have the point, such as "
             "redlock)";
    case PausePoint::kReleaseInFlight:
      return "no client's release of " + lock + " reached the release-in-flight point" + within +
             " (answered, its reply not yet read: only clients that have the point, such as "
             "the redis backend's)";
    case PausePoint::kHolder:
      break;
  }
  return "no client held " + lock + within;
}

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

// "client-pause p1 holding lock-2 for 2.000 s".
std::string DescribeClientPause(const FaultOp& op) {
  std::string out = op.f + ClientHitText(op.value);
  if (StringField(op.value, "at") == PausePointName(PausePoint::kReleaseInFlight)) {
    out += ", its release's reply in flight,";
  }
  if (auto ms = NumberField(op.value, "ms")) out += " for " + DurationText(ms->get<double>());
  return out;
}

}  // namespace

void ClientPauseOptions::Declare(OptionSet& set) {
  set.Integer("client_pause_ms", "--client-pause-ms", &ms, int64_t{1}, kMaxMs,
              "ms a lock holder stalls inside its critical section (a GC pause)");
  set.Text("client_pause_key", "--client-pause-key", &key, 256,
           "stall only a holder of this key (empty: any holder)");
  set.Choice("client_pause_at", "--client-pause-at", &at, PausePointNames(),
             "where the stall hits: holder (inside its critical section), in-flight (inside "
             "an acquire whose replies granted the lock, before the client judges them) or "
             "release-in-flight (inside a release the server answered, before the client "
             "reads the reply: past the client timeout, the reply is lost)");
}

WindowOps ClientPauseWindow(const ClientPauseOptions& options) {
  nlohmann::json value{{"ms", options.ms}};
  if (!options.key.empty()) value["key"] = options.key;
  if (options.at != PausePointName(PausePoint::kHolder)) value["at"] = options.at;
  return TimedWindow({kClientPause, value}, {kClientResume, nullptr}, options.ms);
}

Result<std::unique_ptr<Nemesis>> MakeClientPauseNemesis(const ModuleOptions& options,
                                                        const NemesisContext& context) {
  (void)options;
  ClientPauses& pauses = context.client_faults.Add(std::make_shared<ClientPauses>());
  return std::unique_ptr<Nemesis>(new ClientPauseNemesis(pauses));
}

WindowOps ClientPauseWindowOf(const ModuleOptions& options) {
  return ClientPauseWindow(OptionsAs<ClientPauseOptions>(options));
}

FaultResult ClientPauseNemesis::Invoke(const FaultOp& op) {
  if (op.f == kClientResume) {
    pauses_.Cancel();
    return {true, nlohmann::json::object(), ""};
  }
  if (op.f != kClientPause) return {false, nullptr, "client-pause nemesis cannot " + op.f};
  auto ms = Millis(op.value, "ms", -1);
  auto wait = Millis(op.value, "wait_ms", kDefaultPauseWaitMs);
  if (ms.ok() && *ms < 0) ms = Error{"client-pause needs \"ms\": how long the holder stalls"};
  for (const auto* r : {&ms, &wait}) {
    if (!r->ok()) return {false, op.value, r->error()};
  }
  const Result<PausePoint> at = PointOf(op.value);
  if (!at.ok()) return {false, op.value, at.error()};
  const PausePoint point = *at;
  int64_t clock_delta = 0;
  if (op.value.is_object() && op.value.contains("clock_delta_ms")) {
    const auto& d = op.value["clock_delta_ms"];
    if (!d.is_number_integer() || d.get<int64_t>() < -kMaxMs || d.get<int64_t>() > kMaxMs) {
      return {false, op.value,
              "client-pause: \"clock_delta_ms\" must be whole milliseconds, -" +
                  std::to_string(kMaxMs) + " to " + std::to_string(kMaxMs)};
    }
    if (point != PausePoint::kInFlight) {
      return {false, op.value,
              "client-pause: \"clock_delta_ms\" needs \"at\": \"in-flight\" (the step is "
              "read by the acquire the stall interrupts)"};
    }
    clock_delta = d.get<int64_t>();
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
  pauses_.RequestAt(point,
                    {std::chrono::milliseconds(*ms), std::chrono::milliseconds(clock_delta)}, key,
                    process);
  auto taken = pauses_.AwaitTaken(std::chrono::milliseconds(*wait));
  const std::string lock = key.empty() ? std::string("a lock") : key;
  if (!taken) return {false, op.value, NotTakenText(point, lock, *wait)};
  nlohmann::json value = {
      {"process", taken->process}, {"key", taken->key}, {"ms", taken->duration.count()}};
  if (point != PausePoint::kHolder) {
    value["at"] = PausePointName(point);
    if (clock_delta != 0) value["clock_delta_ms"] = clock_delta;
  }
  return {true, value, ""};
}

std::vector<HealFailure> ClientPauseNemesis::Teardown() {
  pauses_.Cancel();
  return {};
}

// The worker records its stall as a "pause" op of its own (ClientPauses::At,
// backends/client_pauses.h).
const FaultLook kClientPauseLook = {kClientPause, 50, "#7b4fc9", DescribeClientPause,
                                    ClientMark::kSpan, "pause"};

}  // namespace locksmith
