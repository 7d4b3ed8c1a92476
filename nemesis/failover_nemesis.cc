#include "nemesis/failover_nemesis.h"

#include <thread>

#include "nemesis/fault_text.h"
#include "nemesis/kill_nemesis.h"
#include "nemesis/partition_nemesis.h"
#include "nemesis/pause_nemesis.h"

namespace locksmith {

void FailoverOptions::Declare(OptionSet& set) {
  set.Choice("failover_mode", "--failover-mode", &mode, {"kill", "pause", "isolate"},
             "what a failover does to the current primary until another node takes over: kill, "
             "pause, or isolate (its host cut off the other hosts)");
  set.Text("failover_clients", "--failover-clients", &clients, 256,
           "under --failover-mode isolate, the clients left on the old master's side: none "
           "(every client reaches every host), one, half, all, or worker indices 0,3");
  set.Require([this]() { return CheckClientsOption("--failover-clients", clients, true); });
  set.Integer("failover_ms", "--failover-ms", &failover_ms, int64_t{1}, int64_t{3'600'000},
              "ms from a failover's start to its heal (later if the promotion is later)");
  set.Integer("failover_promote_wait_ms", "--failover-promote-wait", &promote_wait_ms,
              int64_t{1}, int64_t{3'600'000},
              "ms a failover waits for the service to name a new master");
}

WindowOps FailoverWindow(const FailoverOptions& options) {
  nlohmann::json value{{"mode", options.mode}};
  if (options.mode == "isolate" && options.clients != "none") value["clients"] = options.clients;
  return TimedWindow({"failover", std::move(value)}, {"failover-heal", nullptr},
                     options.failover_ms);
}

std::string FailoverUnfit(const ModuleOptions& options, const NemesisContext& context) {
  const FailoverOptions& o = OptionsAs<FailoverOptions>(options);
  auto* primary = Capability<HasPrimary>(context.service);
  const std::string backend = "backend " + context.service.Backend();
  if (primary == nullptr || !primary->Promotes()) {
    return backend + " has no replica or peer to take over from its primary";
  }
  if (o.mode == "kill") return CannotKill(context);
  if (o.mode == "pause") return PauseUnfit(options, context);
  if (std::string why = PartitionUnfit(options, context); !why.empty()) {
    return "--failover-mode isolate: " + why;
  }
  return "";
}

Result<std::unique_ptr<Nemesis>> MakeFailoverNemesis(const ModuleOptions& options,
                                                     const NemesisContext& context) {
  if (std::string why = FailoverUnfit(options, context); !why.empty()) return Error{why};
  auto* primary = Capability<HasPrimary>(context.service);
  auto* killable = Capability<Killable>(context.service);
  auto* pausable = Capability<Pausable>(context.service);
  const FailoverOptions& o = OptionsAs<FailoverOptions>(options);
  // Isolation cuts the network where the hosts have networks of their own;
  // scripted steps may ask for it whatever the configured mode.
  std::unique_ptr<Nemesis> isolator;
  if (PartitionUnfit(options, context).empty()) {
    auto made = NewPartitionNemesis(context, "fail");
    if (!made) return Error{made.error()};
    isolator = std::move(*made);
  }
  return std::unique_ptr<Nemesis>(new FailoverNemesis(
      *primary, killable, pausable, std::move(isolator),
      std::chrono::milliseconds(o.promote_wait_ms)));
}

WindowOps FailoverWindowOf(const ModuleOptions& options) {
  return FailoverWindow(OptionsAs<FailoverOptions>(options));
}

FailoverNemesis::FailoverNemesis(HasPrimary& primary, Killable* killable, Pausable* pausable,
                                 std::unique_ptr<Nemesis> isolator,
                                 std::chrono::milliseconds promote_wait,
                                 std::chrono::milliseconds poll)
    : primary_(primary),
      killable_(killable),
      pausable_(pausable),
      isolator_(std::move(isolator)),
      promote_wait_(promote_wait),
      poll_(poll) {}

FaultResult FailoverNemesis::Invoke(const FaultOp& op) {
  if (op.f == "failover") return Begin(op);
  if (op.f == "failover-heal") return Heal();
  return {false, nullptr, "the failover nemesis has no op " + op.f};
}

FaultResult FailoverNemesis::Begin(const FaultOp& op) {
  if (old_) return {false, nullptr, "a failover of " + *old_ + " is in force"};
  std::string mode = "kill";
  if (op.value.is_object() && op.value.contains("mode") && op.value["mode"].is_string()) {
    mode = op.value["mode"].get<std::string>();
  }
  std::optional<std::chrono::milliseconds> waited;
  auto leader = AwaitMaster(&waited);
  if (!leader) return {false, {{"mode", mode}}, "no master to fail over: " + leader.error()};
  Status done = Error{"mode " + mode + " is not kill, pause or isolate"};
  nlohmann::json value{{"mode", mode}, {"old", *leader}, {"new", nullptr}};
  if (waited) value["waited_for_master_ms"] = waited->count();
  if (mode == "kill" && killable_ != nullptr) done = killable_->KillNode(*leader);
  if (mode == "pause" && pausable_ != nullptr) done = pausable_->PauseNode(*leader);
  if (mode == "isolate") {
    done = Error{"isolate needs hosts with networks of their own"};
    if (isolator_ != nullptr) {
      nlohmann::json cut{{"shape", "isolate"}, {"target", *leader}};
      if (op.value.is_object() && op.value.contains("clients")) cut["clients"] = op.value["clients"];
      FaultResult r = isolator_->Invoke({"partition", std::move(cut)});
      done = r.ok ? OkStatus() : Status(Error{r.error});
      if (r.value.is_object() && r.value.contains("grudge")) value["grudge"] = r.value["grudge"];
    }
  }
  if (!done) return {false, value, done.error()};
  old_ = *leader;
  mode_ = mode;
  const auto start = std::chrono::steady_clock::now();
  const auto give_up = start + promote_wait_;
  while (std::chrono::steady_clock::now() < give_up) {
    auto now_leads = primary_.Primary();
    if (now_leads && *now_leads != *leader) {
      value["new"] = *now_leads;
      value["promoted_after_ms"] = std::chrono::duration_cast<std::chrono::milliseconds>(
                                       std::chrono::steady_clock::now() - start)
                                       .count();
      FaultResult promoted{true, value, ""};
      promoted.observed = true;  // the service names another master
      return promoted;
    }
    std::this_thread::sleep_for(poll_);
  }
  FaultResult unpromoted{
      true, value, "no new master within " + std::to_string(promote_wait_.count()) + " ms"};
  unpromoted.observed = false;
  return unpromoted;
}

Result<std::string> FailoverNemesis::AwaitMaster(std::optional<std::chrono::milliseconds>* waited) {
  auto leader = primary_.Primary();
  if (leader) return leader;
  const auto start = std::chrono::steady_clock::now();
  const auto give_up = start + promote_wait_;
  while (!leader && std::chrono::steady_clock::now() < give_up) {
    std::this_thread::sleep_for(poll_);
    leader = primary_.Primary();
  }
  if (!leader) {
    return Error{leader.error() + " (and none named within " +
                 std::to_string(promote_wait_.count()) + " ms)"};
  }
  *waited = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::steady_clock::now() - start);
  return leader;
}

FaultResult FailoverNemesis::Heal() {
  if (!old_) return {true, nullptr, "no failover in force"};
  Status s = OkStatus();
  nlohmann::json value{{"mode", mode_}, {"old", *old_}};
  if (mode_ == "kill") {
    bool already_up = false;
    s = StartUnlessUp(*killable_, *old_, &already_up);
    if (already_up) value["already_up"] = true;
  } else if (mode_ == "pause") {
    s = pausable_->ResumeNode(*old_);
  } else if (mode_ == "isolate") {
    FaultResult r = isolator_->Invoke({"heal", nullptr});
    if (!r.ok) s = Error{r.error};
  }
  auto leader = primary_.Primary();
  value["new"] = leader ? nlohmann::json(*leader) : nlohmann::json(nullptr);
  if (!s) return {false, value, s.error()};
  old_.reset();
  return {true, value, ""};
}

std::vector<HealFailure> FailoverNemesis::Teardown() {
  std::vector<HealFailure> failures;
  if (old_) {
    FaultResult r = Heal();
    if (!r.ok) failures.push_back({"failover-heal", r.value, r.error});
  }
  // The isolator's chain, also after an isolation that failed half-way.
  if (isolator_ != nullptr) {
    for (HealFailure& f : isolator_->Teardown()) failures.push_back(std::move(f));
  }
  return failures;
}


namespace {

// "failover n1 → n3, promoted after 2.408 s (kill)".
std::string DescribeFailover(const FaultOp& op) {
  std::string out = op.f;
  const std::string from = StringField(op.value, "old"), to = StringField(op.value, "new");
  if (!from.empty() || !to.empty()) out += " " + from + " \xE2\x86\x92 " + to;
  if (auto after = NumberField(op.value, "promoted_after_ms")) {
    out += ", promoted after " + DurationText(after->get<double>());
  }
  if (std::string mode = StringField(op.value, "mode"); !mode.empty()) out += " (" + mode + ")";
  return out;
}

}  // namespace

const FaultLook kFailoverLook = {"failover", 70, "#1565c0", DescribeFailover};

}  // namespace locksmith
