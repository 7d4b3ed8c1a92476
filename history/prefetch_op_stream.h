// PrefetchOpStream: another OpStream read ahead on a thread of its own, in
// batches, so that decoding a history (its records, its values' JSON) runs
// on one core while whoever reads the ops (the checkers of a run's judge)
// runs on another. Memory: at most kDepth batches of kBatchOps ops ahead,
// and as many spent ones: Next swaps the reader's last op into the batch,
// and spent batches go back to the thread, which decodes into them. The
// ops' values are thus allocated and freed on that one thread: freed on
// the reader's, they cost the allocator more than decoding them did.
// The stream it reads must outlive it and is touched only by its thread
// until Next has said the end (or an error), or Rewind, or destruction.
// Not thread-safe itself: one reader at a time, as every OpStream.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "history/op_stream.h"

namespace locksmith {

class PrefetchOpStream : public OpStream {
 public:
  static inline constexpr size_t kBatchOps = 2048;
  static inline constexpr size_t kDepth = 8;

  explicit PrefetchOpStream(OpStream& inner) : inner_(inner) {}
  ~PrefetchOpStream() override { Stop(); }
  PrefetchOpStream(const PrefetchOpStream&) = delete;
  PrefetchOpStream& operator=(const PrefetchOpStream&) = delete;

  Result<bool> Next(Op* op) override;
  Status Rewind() override;
  // The inner stream's: complete once Next has said the end.
  const std::vector<SkippedLine>& skipped() const override { return inner_.skipped(); }
  const HistoryEnd* end() const override { return inner_.end(); }

 private:
  struct Batch {
    std::vector<Op> ops;
    bool end = false;   // the stream ends after these ops
    std::string error;  // why it ended, when it did not end well
  };

  void ReadAhead();
  void Stop();

  OpStream& inner_;
  std::thread reader_;
  std::mutex mu_;
  std::condition_variable changed_;
  std::deque<Batch> ready_;  // guarded by mu_
  std::vector<std::vector<Op>> spent_;  // guarded by mu_: the reader's, to decode into
  bool stop_ = false;        // guarded by mu_
  // The consumer's own: the batch being handed out.
  Batch current_;
  size_t next_in_current_ = 0;
  bool started_ = false;
};

}  // namespace locksmith
