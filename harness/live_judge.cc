#include "harness/live_judge.h"

#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <utility>

#include "base/input_file.h"
#include "history/history_log.h"
#include "history/prefetch_op_stream.h"

namespace locksmith {
namespace {

// Ends a stream early when asked: a judgement nobody will take stops at
// the next op instead of reading the rest of a long log. Says when it has
// read every op, once.
class StoppableOpStream : public OpStream {
 public:
  StoppableOpStream(OpStream& inner, const std::atomic<bool>& stop,
                    std::function<void()> every_batch, std::function<void(int64_t ops)> at_end)
      : inner_(inner),
        stop_(stop),
        every_batch_(std::move(every_batch)),
        at_end_(std::move(at_end)) {}
  Result<bool> Next(Op* op) override {
    if (stop_.load(std::memory_order_relaxed)) return Error{"judging stopped"};
    auto more = inner_.Next(op);
    if (more && *more) {
      if (++ops_ % 1024 == 0) every_batch_();
    } else if (more && at_end_) {
      std::exchange(at_end_, nullptr)(ops_);
    }
    return more;
  }
  Status Rewind() override { return inner_.Rewind(); }
  const std::vector<SkippedLine>& skipped() const override { return inner_.skipped(); }
  const HistoryEnd* end() const override { return inner_.end(); }

 private:
  OpStream& inner_;
  const std::atomic<bool>& stop_;
  const std::function<void()> every_batch_;
  std::function<void(int64_t ops)> at_end_;
  int64_t ops_ = 0;
};

// The judge's priority in the workload's last stretch: the lowest nice.
constexpr int kJudgeNice = 19;
// The share of the time limit the judge spends at SCHED_IDLE, before it
// takes kJudgeNice to catch up.
constexpr double kIdleShare = 0.6;

pid_t ThreadId() { return static_cast<pid_t>(::syscall(SYS_gettid)); }

// `tid` under the ordinary policy at `nice`; false where the system refuses.
bool Ordinary(pid_t tid, int nice) {
  const sched_param none{};
  return ::sched_setscheduler(tid, SCHED_OTHER, &none) == 0 &&
         ::setpriority(PRIO_PROCESS, static_cast<id_t>(tid), nice) == 0;
}

// Every thread of this process `pick` chooses (by its policy and nice), to
// `nice` under the ordinary policy. Twice: a thread started while the
// first scan went took its policy from a thread not yet changed; once its
// starter is changed, none can.
template <typename Pick>
void ReprioritizeThreads(Pick pick, int nice) {
  for (int scan = 0; scan < 2; ++scan) {
    std::error_code error;
    for (std::filesystem::directory_iterator task("/proc/self/task", error), end;
         !error && task != end; task.increment(error)) {
      const auto tid = static_cast<pid_t>(std::atoi(task->path().filename().c_str()));
      errno = 0;
      const int policy = ::sched_getscheduler(tid);
      const int tid_nice = ::getpriority(PRIO_PROCESS, static_cast<id_t>(tid));
      if (policy >= 0 && errno == 0 && pick(policy, tid_nice)) Ordinary(tid, nice);
    }
  }
}

}  // namespace

LiveJudge::LiveJudge(nlohmann::json config, uint64_t start_bytes, std::string why_sampled,
                     std::function<void(const std::string&)> note)
    : config_(std::move(config)),
      start_bytes_(start_bytes),
      why_sampled_(std::move(why_sampled)),
      note_(std::move(note)) {}

LiveJudge::~LiveJudge() {
  stop_ = true;
  if (thread_.joinable()) thread_.join();
}

void LiveJudge::Follow(std::string path, std::shared_ptr<const LogExtent> extent) {
  if (thread_.joinable()) return;
  const double time_limit_s = config_.value("time_limit_s", 0.0);
  hasten_at_ = std::chrono::steady_clock::now() +
               std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                   std::chrono::duration<double>(time_limit_s * kIdleShare));
  thread_ = std::thread([this, path = std::move(path), extent = std::move(extent)] {
    Judge(path, extent);
  });
}

void LiveJudge::Judge(const std::string& path, const std::shared_ptr<const LogExtent>& extent) {
  // A small history is judged whole once the run is over.
  const LogExtent::State grown = extent->WaitBeyond(start_bytes_);
  if (grown.bytes <= start_bytes_ || stop_) return;
  began_ = true;
  if (note_) {
    note_("the history is past " + ByteSizeText(start_bytes_) +
          ": judging it as it is recorded, at the lowest CPU priority");
  }
  // The lowest priority there is, for this thread and the ones it starts
  // (they inherit it): a thread at SCHED_IDLE gives way at once to any
  // other that wakes, so the clients lose next to nothing to judging. In
  // the workload's last stretch, Hasten raises it to kJudgeNice, so the
  // backlog left for after the workload is small.
  {
    std::lock_guard lock(priority_mu_);
    errno = 0;
    const int nice = ::getpriority(PRIO_PROCESS, static_cast<id_t>(ThreadId()));
    const sched_param none{};
    if (!workload_over_ && errno == 0 &&
        ::sched_setscheduler(ThreadId(), SCHED_IDLE, &none) == 0) {
      process_nice_ = nice;
      lowered_ = true;
    }
  }
  auto checker = RunChecker(config_);
  if (!checker) {
    judged_ = Error{checker.error()};
    return;
  }
  auto log = HistoryLogStream::Open(path, /*allow_truncated_tail=*/true, extent);
  if (!log) {
    judged_ = Error{log.error()};
    return;
  }
  // Decoding on a thread of its own beside the checkers, as afterwards.
  PrefetchOpStream prefetch(**log);
  StoppableOpStream stream(prefetch, stop_, [this] { Hasten(); }, [this](int64_t ops) {
    if (note_) {
      note_("judgement: every event read (" + std::to_string(ops) +
            "); the keys' searches follow");
    }
  });
  judged_ = JudgeHistoryInOnePass(**checker, stream, why_sampled_);
}

void LiveJudge::Hasten() {
  if (hastened_ || std::chrono::steady_clock::now() < hasten_at_) return;
  hastened_ = true;
  std::lock_guard lock(priority_mu_);
  if (!lowered_) return;
  ReprioritizeThreads([](int policy, int) { return policy == SCHED_IDLE; }, kJudgeNice);
}

void LiveJudge::WorkloadOver() {
  std::lock_guard lock(priority_mu_);
  workload_over_ = true;
  if (!std::exchange(lowered_, false)) return;
  // No other thread of the process runs at SCHED_IDLE, nor at kJudgeNice
  // unless the process itself did (its threads are then given it again).
  ReprioritizeThreads(
      [](int policy, int nice) { return policy == SCHED_IDLE || nice == kJudgeNice; },
      process_nice_);
}

std::optional<Result<JudgedHistory>> LiveJudge::Take() {
  if (thread_.joinable()) thread_.join();
  return std::exchange(judged_, std::nullopt);
}

}  // namespace locksmith
