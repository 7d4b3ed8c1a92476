#include "harness/live_judge.h"

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <utility>

#include "base/input_file.h"
#include "checker/history_log.h"
#include "checker/prefetch_op_stream.h"

namespace locksmith {
namespace {

// Ends a stream early when asked: a judgement nobody will take stops at
// the next op instead of reading the rest of a long log. Says when it has
// read every op, once.
class StoppableOpStream : public OpStream {
 public:
  StoppableOpStream(OpStream& inner, const std::atomic<bool>& stop,
                    std::function<void(int64_t ops)> at_end)
      : inner_(inner), stop_(stop), at_end_(std::move(at_end)) {}
  Result<bool> Next(Op* op) override {
    if (stop_.load(std::memory_order_relaxed)) return Error{"judging stopped"};
    auto more = inner_.Next(op);
    if (more && *more) {
      ++ops_;
    } else if (more && at_end_) {
      std::exchange(at_end_, nullptr)(ops_);
    }
    return more;
  }
  Status Rewind() override { return inner_.Rewind(); }
  const std::vector<SkippedLine>& skipped() const override { return inner_.skipped(); }

 private:
  OpStream& inner_;
  const std::atomic<bool>& stop_;
  std::function<void(int64_t ops)> at_end_;
  int64_t ops_ = 0;
};

// The judge's priority while the clients run: the lowest there is.
constexpr int kJudgeNice = 19;

int ThreadId() { return static_cast<int>(::syscall(SYS_gettid)); }

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
  // The lowest priority, for this thread and the ones it starts (they
  // inherit it): judging must not take the workload's cores. Where the
  // system refuses, judging only competes more.
  {
    std::lock_guard lock(priority_mu_);
    errno = 0;
    const int nice = ::getpriority(PRIO_PROCESS, static_cast<id_t>(ThreadId()));
    if (!workload_over_ && errno == 0 && nice < kJudgeNice &&
        ::setpriority(PRIO_PROCESS, static_cast<id_t>(ThreadId()), kJudgeNice) == 0) {
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
  StoppableOpStream stream(prefetch, stop_, [this](int64_t ops) {
    if (note_) {
      note_("judgement: every event read (" + std::to_string(ops) +
            "); the keys' searches follow");
    }
  });
  judged_ = JudgeHistoryInOnePass(**checker, stream, why_sampled_);
}

void LiveJudge::WorkloadOver() {
  std::lock_guard lock(priority_mu_);
  workload_over_ = true;
  if (!std::exchange(lowered_, false)) return;
  // The judge's thread and every one it started, found by their priority:
  // no other thread of the process runs at kJudgeNice (the process's own
  // was lower). Twice: a thread the judge started while the first scan
  // went may have taken kJudgeNice from it; once the judge's own thread is
  // restored, none can.
  for (int scan = 0; scan < 2; ++scan) {
    std::error_code error;
    for (std::filesystem::directory_iterator task("/proc/self/task", error), end;
         !error && task != end; task.increment(error)) {
      const auto tid = static_cast<id_t>(std::atoi(task->path().filename().c_str()));
      errno = 0;
      const int nice = ::getpriority(PRIO_PROCESS, tid);
      if (errno == 0 && nice == kJudgeNice) ::setpriority(PRIO_PROCESS, tid, process_nice_);
    }
  }
}

std::optional<Result<JudgedHistory>> LiveJudge::Take() {
  if (thread_.joinable()) thread_.join();
  return std::exchange(judged_, std::nullopt);
}

}  // namespace locksmith
