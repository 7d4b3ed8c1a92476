#include "harness/run_workload.h"

#include <boost/asio/post.hpp>

#include "backends/task_group.h"
#include "base/exit_codes.h"
#include "base/scope_exit.h"
#include "base/seed.h"
#include "harness/exec_client_setup.h"
#include "harness/progress_reporter.h"
#include "harness/signal_watcher.h"

namespace locksmith {
namespace {

using Clock = std::chrono::steady_clock;

// How long the final reads may take after the heal: the servers are up and
// healed, so this bounds a read that hangs, not a slow one.
constexpr auto kFinalReadsLimit = std::chrono::seconds(30);

// The workload as one task of the run's TaskGroup: its error (it could not
// start) lands in *status; what it throws, the group records. The watchdog
// learns when it returned.
boost::asio::awaitable<void> WorkloadTask(Workload& workload, WorkloadContext& ctx,
                                          Status& status, WorkloadWatchdog& watchdog) {
  status = co_await workload.Run(ctx);
  watchdog.WorkloadEnded();
}

boost::asio::awaitable<void> FinalReadsTask(Workload& workload, WorkloadContext& ctx,
                                            Status& status) {
  status = co_await workload.FinalReads(ctx);
}

// Runs `task` on ctx.io until it ends; a throw is an error naming `what`,
// and so is a throw in the clients' own coroutines (BackgroundTasks: a
// connection's read loop, a watchdog's renewals). The failure hook stops
// the workload's other coroutines early.
Status RunWorkloadTask(WorkloadContext& ctx, const std::string& what,
                       boost::asio::awaitable<void> task, const Status& task_status) {
  boost::asio::io_context& io = ctx.io;
  const auto stop = [&](const std::string&) { ctx.failed = true; };
  TaskGroup& background = BackgroundTasks(io.get_executor());
  background.SetOnFailure(stop);
  TaskGroup tasks(io.get_executor(), stop);
  tasks.Spawn(what, std::move(task));
  io.restart();
  io.run();
  background.SetOnFailure(nullptr);
  if (background.failed()) return Error{*background.failure()};
  if (tasks.failed()) return Error{*tasks.failure()};
  if (tasks.running() > 0) return Error{what + " was stopped before it ended"};
  if (!task_status) return Error{what + ": " + task_status.error()};
  return OkStatus();
}

std::chrono::milliseconds TimeLimitOf(const RunConfig& config) {
  return std::chrono::milliseconds(static_cast<int64_t>(config.time_limit_s * 1000));
}

}  // namespace

WorkloadPhase::WorkloadPhase(RunContext& run, RecordingPhase& recording, LockService& service,
                             Cluster& cluster, ResourceStore* resource,
                             std::string progress_label)
    : run_(run),
      recording_(recording),
      service_(service),
      cluster_(cluster),
      resource_(resource),
      progress_label_(std::move(progress_label)) {}

void WorkloadPhase::Run() {
  // Before the io_context: clients left on it at a forced stop end last.
  auto exec = MakeRunExecClients(run_.config, service_, cluster_, run_.store.dir, run_.log);
  if (!exec) return run_.Fail(kExitRunFailed, exec.error());
  boost::asio::io_context io;
  std::unique_ptr<WorkloadWatchdog> watchdog = NewWatchdog(io);
  WorkloadContext ctx{io, service_, recording_.recorder(), Options(),
                      run_.facts.zero + TimeLimitOf(run_.config), run_.interruption.noted()};
  Wire(ctx, watchdog, exec->get());
  // A second signal stops waiting for the ops in flight.
  run_.signals.OnForce([&io] { io.stop(); });
  ScopeExit detach_force([this] { run_.signals.OnForce(nullptr); });
  // A history that cannot be written (a full disk) ends the workload as a
  // failed worker does: nothing after it could be judged.
  HistoryRecorder& history = recording_.history();
  history.OnWriteError([&] {
    run_.log.Error("history incomplete: " + history.write_error() + "; stopping the workload");
    boost::asio::post(io, [&ctx] { ctx.failed = true; });
  });
  ScopeExit detach_write_error([&history] { history.OnWriteError(nullptr); });
  ctx.failed = !history.write_error().empty();  // a service event's write may have failed
  // Every program's handshake before the workload: one that fails refuses
  // the run at set-up, with every program closed.
  if (Status started = *exec ? StartRunExecClients(**exec, ctx) : OkStatus(); !started) {
    if (!run_.interruption.StoppedTheRun()) run_.Fail(kExitRunFailed, started.error());
    return;
  }
  Status status = RunUntilItEnds(ctx, *watchdog);
  watchdog.reset();  // the final reads have a deadline of their own
  run_.interruption.SetPhase(Interruption::Phase::kFinishing);
  run_.log.Info("workload done: " + std::to_string(history.count()) +
                " history events recorded");
  recording_.Heal();
  if (status && !run_.interruption.StoppedTheRun() && history.write_error().empty() &&
      run_.facts.hung.empty()) {
    status = FinalReads(ctx);
  }
  if (!status) run_.Fail(kExitRunFailed, status.error());
}

WorkloadOptions WorkloadPhase::Options() const {
  WorkloadOptions options;
  options.concurrency = run_.config.concurrency;
  options.rate = run_.config.rate;
  options.seed = SubSeed(*run_.config.seed, kWorkloadSeed);
  options.fencing = run_.config.fencing == "on";
  return options;
}

void WorkloadPhase::Wire(WorkloadContext& ctx, const std::unique_ptr<WorkloadWatchdog>& watchdog,
                         ExecClients* exec) {
  // The workload's time and the faults' count from the moment every client
  // is connected: clients that take a while to start (ten Python or JVM
  // programs) shorten neither.
  ctx.on_connected = [this, &ctx, &watchdog] {
    const Clock::time_point connected = Clock::now();
    ctx.deadline = connected + TimeLimitOf(run_.config);
    watchdog->Arm(ctx.deadline);
    recording_.runner().Start(connected);
  };
  const NemesisContext& faults = recording_.faults();
  ctx.client_faults = &faults.client_faults;
  ctx.resource = resource_;
  ctx.client_address = [this](int index) { return cluster_.ClientAddress(index); };
  ctx.new_client = [this, &ctx, &watchdog,
                    exec](const ClientSlot& slot) -> std::unique_ptr<LockClient> {
    if (watchdog) watchdog->Connecting(slot.index);  // each client made begins a connect
    if (exec == nullptr) return service_.NewClient(ctx.io.get_executor(), slot);
    return exec->NewClient(ctx.io.get_executor(), slot, ctx.options.concurrency,
                           [&ctx](int i) { return ctx.Slot(i); });
  };
}

// Ends a workload still running a grace past its limit, naming the ops in
// flight: the loop stops, and the run goes on to its teardown.
std::unique_ptr<WorkloadWatchdog> WorkloadPhase::NewWatchdog(boost::asio::io_context& io) const {
  const InFlightOps& in_flight = recording_.in_flight();
  const Clock::time_point zero = run_.facts.zero;
  return std::make_unique<WorkloadWatchdog>(
      WorkloadGrace(std::chrono::milliseconds(run_.config.client_timeout_ms),
                    recording_.workload().LongestAcquireWait()),
      run_.interruption.noted(),
      [&in_flight, zero](Clock::time_point now) { return in_flight.Describe(now - zero); },
      [&io] { io.stop(); });
}

Status WorkloadPhase::RunUntilItEnds(WorkloadContext& ctx, WorkloadWatchdog& watchdog) {
  run_.log.Info("workload " + run_.config.workload + " for " +
                nlohmann::json(run_.config.time_limit_s).dump() + " s, " +
                std::to_string(ctx.options.concurrency) + " clients");
  const bool terminal = ProgressReporter::StderrIsTerminal();
  ProgressReporter progress(
      recording_.progress(),
      ProgressReporter::Options{
          progress_label_, run_.config.time_limit_s, run_.facts.zero, terminal,
          terminal ? std::chrono::milliseconds(500) : std::chrono::seconds(5),
          [this](const std::string& line) { run_.log.Info(line); }});
  Status ran = OkStatus();
  Status status = RunWorkloadTask(ctx, "workload " + run_.config.workload,
                                  WorkloadTask(recording_.workload(), ctx, ran, watchdog), ran);
  TakeWatchdogsWord(watchdog, status, ran);
  return status;
}

void WorkloadPhase::TakeWatchdogsWord(const WorkloadWatchdog& watchdog, Status& status,
                                      const Status& ran) {
  const std::string hung = watchdog.fired();
  const bool failed = watchdog.workload_ended() && !ran;
  if (hung.empty()) return;
  run_.log.Error(hung + "; the workload was ended");
  if (failed) return;
  run_.facts.hung = hung;
  status = OkStatus();
}

Status WorkloadPhase::FinalReads(WorkloadContext& ctx) {
  ctx.deadline = Clock::now() + kFinalReadsLimit;
  Status read = OkStatus();
  return RunWorkloadTask(ctx, "final reads of " + run_.config.workload,
                         FinalReadsTask(recording_.workload(), ctx, read), read);
}

}  // namespace locksmith
