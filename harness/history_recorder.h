// HistoryRecorder: the run's OpRecorder. Stamps each op with the next index
// and the time since run start (controller's monotonic clock) under a short
// lock and hands it to a writer thread, which appends it to the run's
// history log (history.bin, history/history_log.h) in batches, the run's
// secrets redacted from each op's strings (RedactedOp): the clients
// never wait for an encoder or a write(2), only, when the writer falls
// behind by kMaxQueuedBatches batches, for it to catch up (memory stays
// bounded however fast the clients go). The writer writes what it has at
// least every kFlushInterval, so a killed run leaves every op recorded up to
// a moment before on disk, checkable (a torn last record is dropped when
// read). After a write fails (a full disk) nothing more is written: the file
// keeps an exact prefix of the run, and the run, told through OnWriteError,
// ends its workload. Close writes the closing record (how the workload
// ended, and the ops and faults written): only a log that has it is whole,
// so a run killed, or whose disk filled, leaves one that says it was cut
// short. extent() says how much of the file is written, for a reader that
// follows it as it grows. Thread-safe.
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "history/history_log.h"
#include "history/log_extent.h"
#include "history/op_recorder.h"

namespace locksmith {

class HistoryRecorder : public OpRecorder {
 public:
  static inline constexpr size_t kBatchOps = 4096;
  static inline constexpr size_t kMaxQueuedBatches = 16;
  static inline constexpr std::chrono::milliseconds kFlushInterval{100};

  // Creates (truncates) the file and writes its magic. `start` is the run's
  // time zero.
  static Result<std::unique_ptr<HistoryRecorder>> Open(
      const std::string& path, std::chrono::steady_clock::time_point start);
  // Writes what is queued, then closes the file.
  ~HistoryRecorder() override;
  HistoryRecorder(const HistoryRecorder&) = delete;
  HistoryRecorder& operator=(const HistoryRecorder&) = delete;

  // Numbers and stamps `op`; queues it (moved, never copied) for writing
  // unless a write failed.
  OpStamp Record(Op op) override;
  // Returns once every op recorded so far is written (or a write failed,
  // and OnWriteError's callback has run): write_error() then.
  std::string Flush();
  // Writes every op recorded so far, then the closing record: the workload
  // ended as `ended` says (kEndedTimeLimit, ...; `detail`: the signal, what
  // hung, the error), with the counts of what was written. Ops recorded
  // after it are dropped; the extent is sealed. A second call does nothing.
  // Returns write_error(): when a write failed, there is no closing record.
  std::string Close(const std::string& ended, const std::string& detail);
  int64_t count() const;
  // The first write error, "cannot write PATH: REASON"; empty while none.
  std::string write_error() const;
  // How much of the file is written whole; sealed once the recorder is
  // closed or a write failed.
  std::shared_ptr<const LogExtent> extent() const { return extent_; }
  // `callback` runs once, on the writer thread, right after the first write
  // fails; null: none. Setting it waits for a callback in progress, so once
  // it is reset no call is under way.
  void OnWriteError(std::function<void()> callback);

 private:
  HistoryRecorder(int fd, std::string path, std::chrono::steady_clock::time_point start);

  void WriterLoop();
  // Encodes and writes `batches`; the error when a write fails.
  std::string Write(const std::vector<std::vector<Op>>& batches,
                    const std::optional<HistoryClosing>& closing);
  // Appends `bytes` to the file and publishes them in extent_; the error
  // when it cannot (all of it: what it could is published).
  std::string Append(std::string_view bytes);

  const int fd_;
  const std::string path_;
  const std::chrono::steady_clock::time_point start_;
  mutable std::mutex mu_;
  std::condition_variable writer_wake_;  // a batch is full, a flush or the close
  std::condition_variable queue_space_;  // the writer took batches or wrote them
  int64_t next_index_ = 0;
  std::vector<Op> pending_;                   // the batch being filled
  std::deque<std::vector<Op>> full_;          // batches waiting for the writer
  int64_t written_through_ = 0;               // ops [0, this) are written or dropped
  bool first_write_done_ = false;             // the magic is written (or failed)
  bool flush_wanted_ = false;
  bool closing_ = false;
  bool closed_ = false;                         // Close was called: record nothing more
  std::optional<HistoryClosing> close_record_;  // Close's, for the writer to write
  bool close_written_ = false;  // the writer has written (or failed to write) close_record_
  std::string write_error_;
  std::mutex callback_mu_;  // held while the callback is set or runs
  std::function<void()> on_write_error_;
  const std::shared_ptr<LogExtent> extent_ = std::make_shared<LogExtent>();
  uint64_t bytes_written_ = 0;  // the writer thread's
  HistoryLogEncoder encoder_;  // the writer thread's
  bool wrote_magic_ = false;   // the writer thread's
  std::string out_;            // the writer thread's
  std::thread writer_;
};

}  // namespace locksmith
