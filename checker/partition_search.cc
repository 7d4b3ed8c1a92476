#include "checker/partition_search.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>

namespace locksmith {
namespace {

using Clock = std::chrono::steady_clock;

constexpr auto kFirstSlice = std::chrono::milliseconds(1);

// One partition's search, resumed slice after slice on whichever thread
// takes it next; only one thread holds it at a time.
struct PartitionJob {
  std::unique_ptr<Model> own_model;  // a copy, when threads search beside each other
  Model* model = nullptr;
  std::unique_ptr<LinearizabilitySearch> search;
  Clock::duration used = Clock::duration::zero();
  Clock::duration slice = kFirstSlice;
  bool window_tried = false;
};

// The open partitions, in turn. Thread-safe.
class SliceQueue {
 public:
  explicit SliceQueue(size_t n) {
    for (size_t i = 0; i < n; ++i) open_.push_back(i);
  }
  // The next partition to run a slice of; nullopt once none is open.
  std::optional<size_t> Take() {
    std::unique_lock<std::mutex> lock(mu_);
    changed_.wait(lock, [&] { return !open_.empty() || running_ == 0; });
    if (open_.empty()) return std::nullopt;
    const size_t i = open_.front();
    open_.pop_front();
    ++running_;
    return i;
  }
  void Return(size_t i, bool still_open) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      --running_;
      if (still_open) open_.push_back(i);
    }
    changed_.notify_all();
  }

 private:
  std::mutex mu_;
  std::condition_variable changed_;
  std::deque<size_t> open_;
  size_t running_ = 0;
};

class PartitionSearch {
 public:
  PartitionSearch(Model& model, const std::vector<Partition>& partitions,
                  const SearchBudget& budget, const PartitionSearchOptions& options,
                  size_t threads)
      : model_(model),
        partitions_(partitions),
        budget_(budget),
        options_(options),
        threads_(threads),
        copies_(threads > 1),
        allowance_(std::max(Clock::duration::zero(), budget.deadline - budget.now())),
        verdicts_(partitions.size()),
        jobs_(partitions.size()),
        held_(partitions.size()),
        queue_(partitions.size()) {
    for (PartitionVerdict& v : verdicts_) v.outcome.valid = Validity::kUnknown;
  }

  // Searches every partition: on the caller's thread alone until a slice
  // ends with its partition still open, or the search has taken a first
  // slice's time, then on the other threads too. A history whose keys are
  // all decided in that time starts no thread: starting and joining one
  // would cost more than the search (Porcupine's c01 and c10 kv histories:
  // 0.05-0.3 ms).
  void Run() {
    caller_ = std::this_thread::get_id();
    if (threads_ > 1) began_ = budget_.now();  // a steady clock then, not a test's
    Work();
    for (std::thread& helper : helpers_) helper.join();
  }

  std::vector<PartitionVerdict> TakeVerdicts() && {
    for (size_t i = 0; i < verdicts_.size(); ++i) {
      PartitionVerdict& v = verdicts_[i];
      if (v.outcome.valid == Validity::kUnknown && jobs_[i].window_tried) {
        v.outcome.reason += "; no short window of the history refutes it either";
      }
    }
    return std::move(verdicts_);
  }

 private:
  void Work() {
    while (const std::optional<size_t> i = queue_.Take()) {
      const bool open = RunSlice(*i);
      if (threads_ > 1 && !helpers_started_ && (open || budget_.now() - began_ > kFirstSlice)) {
        StartHelpers();
      }
      queue_.Return(*i, open);
    }
  }

  // Once, on the caller's thread (no other is searching before). Set
  // before the helpers start and never again, helpers_started_ is read by
  // them without a race.
  void StartHelpers() {
    if (std::this_thread::get_id() != caller_) return;
    helpers_started_ = true;
    for (size_t t = 1; t < threads_; ++t) helpers_.emplace_back([this] { Work(); });
  }

  Clock::duration Left(size_t i) const { return allowance_ - jobs_[i].used; }
  bool Cancelled() const { return cancel_.load(std::memory_order_relaxed); }

  SearchBudget OwnBudget(size_t i) const {
    SearchBudget own = budget_;
    own.cancel = options_.all_anomalies ? nullptr : &cancel_;
    own.shared_bytes = [this, i] {
      return (budget_.shared_bytes ? budget_.shared_bytes() : 0) +
             total_held_.load(std::memory_order_relaxed) -
             held_[i].load(std::memory_order_relaxed);
    };
    return own;
  }

  void Begin(size_t i) {
    PartitionJob& job = jobs_[i];
    if (copies_) job.own_model = model_.CloneForSearch();
    job.model = job.own_model ? job.own_model.get() : &model_;
    job.search = std::make_unique<LinearizabilitySearch>(*job.model, partitions_[i].ops,
                                                         OwnBudget(i), partitions_[i].start);
  }

  void Hold(size_t i, size_t bytes) {
    const size_t before = held_[i].exchange(bytes, std::memory_order_relaxed);
    total_held_.fetch_add(bytes - before, std::memory_order_relaxed);
  }

  // One slice of partition i; true while it is still open.
  bool RunSlice(size_t i) {
    PartitionJob& job = jobs_[i];
    PartitionVerdict& v = verdicts_[i];
    if (Cancelled()) return MarkNotSearched(i);
    if (!job.search) Begin(i);
    const Clock::time_point began = budget_.now();
    job.search->ExtendDeadline(began + std::min<Clock::duration>(job.slice, Left(i)));
    v.outcome = job.search->Run();
    job.used += budget_.now() - began;
    job.slice *= 2;
    Hold(i, job.search->OwnBytes());
    const bool decided = v.outcome.valid != Validity::kUnknown;
    if (!decided && v.outcome.reason == kCancelled) return MarkNotSearched(i);
    const bool out_of_time = !decided && v.outcome.reason.rfind("time budget", 0) == 0 &&
                             Left(i) > Clock::duration::zero();
    if (out_of_time) {
      if (job.window_tried || job.used < allowance_ / 2 || !TryWindow(i)) return true;
    } else if (!decided && !job.window_tried) {
      TryWindow(i);  // out of memory, or out of its whole time
    }
    Close(i);
    return false;
  }

  // A short window that refutes partition i on its own; true if one does.
  bool TryWindow(size_t i) {
    PartitionJob& job = jobs_[i];
    PartitionVerdict& v = verdicts_[i];
    job.window_tried = true;
    if (Left(i) <= Clock::duration::zero()) return false;
    const Clock::time_point began = budget_.now();
    SearchBudget own = OwnBudget(i);
    own.deadline = began + Left(i);
    WindowRefuter refuter(*job.model, partitions_[i].ops, own);
    v.window = refuter.Find();
    job.used += budget_.now() - began;
    v.window_states = refuter.states_explored();
    if (v.window) v.outcome = v.window->outcome;
    return v.window.has_value();
  }

  void Close(size_t i) {
    PartitionJob& job = jobs_[i];
    PartitionVerdict& v = verdicts_[i];
    if (v.outcome.valid == Validity::kFalse) {
      v.state_description = job.model->DescribeState(v.outcome.state_after_prefix);
      if (!options_.all_anomalies) cancel_.store(true, std::memory_order_relaxed);
    }
    job.search.reset();
    job.own_model.reset();
    Hold(i, 0);
  }

  bool MarkNotSearched(size_t i) {
    PartitionVerdict& v = verdicts_[i];
    v.not_searched = true;
    v.outcome.valid = Validity::kUnknown;
    v.outcome.reason = "not searched: another partition was refuted first";
    Close(i);
    return false;
  }

  Model& model_;
  const std::vector<Partition>& partitions_;
  const SearchBudget& budget_;
  const PartitionSearchOptions options_;
  const size_t threads_;  // at most; the caller's first
  // Each search with a model of its own from the start, as any slice may
  // run on a helper once they are started.
  const bool copies_;
  const Clock::duration allowance_;
  std::vector<PartitionVerdict> verdicts_;
  std::vector<PartitionJob> jobs_;
  std::vector<std::atomic<size_t>> held_;  // each open search's own bytes at its last slice
  std::atomic<size_t> total_held_{0};
  std::atomic<bool> cancel_{false};
  SliceQueue queue_;
  std::thread::id caller_;
  Clock::time_point began_;
  bool helpers_started_ = false;  // the caller's thread alone reads and sets it
  std::vector<std::thread> helpers_;
};

}  // namespace

size_t PartitionSearchThreads(size_t requested) {
  if (requested > 0) return requested;
  return std::clamp<size_t>(std::thread::hardware_concurrency(), 1, 4);
}

std::vector<PartitionVerdict> SearchPartitions(Model& model,
                                               const std::vector<Partition>& partitions,
                                               const SearchBudget& budget,
                                               const PartitionSearchOptions& options) {
  size_t threads = std::min(PartitionSearchThreads(options.threads), partitions.size());
  // A clock of the caller's own (a test's, ticking with every read) counts
  // time for all threads at once, so partitions searched side by side would
  // spend each other's budgets: they take turns on one thread then.
  const bool wall_clock = budget.now == &std::chrono::steady_clock::now;
  if (threads > 1 && (!wall_clock || model.CloneForSearch() == nullptr)) threads = 1;
  PartitionSearch search(model, partitions, budget, options, threads);
  search.Run();
  return std::move(search).TakeVerdicts();
}

}  // namespace locksmith
