// HistoryRecorder: the run's OpRecorder. Stamps each op with the next index
// and the time since run start (controller's monotonic clock) and appends it
// to history.jsonl with one write(2) per line, so a crashed or killed run
// still leaves every recorded line on disk and checkable. After a write
// fails (a full disk) nothing more is written: the file keeps an exact
// prefix of the run (its last line perhaps cut short), and the run, told
// through OnWriteError, ends its workload. Thread-safe.
#pragma once

#include <chrono>
#include <functional>
#include <mutex>
#include <string>

#include "checker/op_recorder.h"

namespace locksmith {

class HistoryRecorder : public OpRecorder {
 public:
  // Creates (truncates) the file. `start` is the run's time zero.
  static Result<std::unique_ptr<HistoryRecorder>> Open(
      const std::string& path, std::chrono::steady_clock::time_point start);
  ~HistoryRecorder() override;
  HistoryRecorder(const HistoryRecorder&) = delete;
  HistoryRecorder& operator=(const HistoryRecorder&) = delete;

  // Numbers and stamps `op`; writes it unless a write failed before.
  Op Record(Op op) override;
  int64_t count() const;
  // The first write error, "cannot write PATH: REASON"; empty while none.
  std::string write_error() const;
  // `callback` runs once, on the recording thread, right after the first
  // write fails; null: none. Setting it waits for a callback in progress,
  // so once it is reset no call is under way.
  void OnWriteError(std::function<void()> callback);

 private:
  HistoryRecorder(int fd, std::string path, std::chrono::steady_clock::time_point start)
      : fd_(fd), path_(std::move(path)), start_(start) {}

  // Appends `line` to the file; the error when it cannot (all of it).
  std::string Append(const std::string& line);

  const int fd_;
  const std::string path_;
  const std::chrono::steady_clock::time_point start_;
  mutable std::mutex mu_;
  int64_t next_index_ = 0;
  std::string write_error_;
  std::mutex callback_mu_;  // held while the callback is set or runs
  std::function<void()> on_write_error_;
};

}  // namespace locksmith
