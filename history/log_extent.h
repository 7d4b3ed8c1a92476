// LogExtent: how much of a file its one writer has written, and whether it
// will write more, for a reader that reads the file while it grows (a run's
// judge reading history.bin as the recorder appends it). The reader reads
// no byte past bytes(): a write(2) still under way may show half its bytes.
// Thread-safe: one writer publishes, any number of readers wait.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>

namespace locksmith {

class LogExtent {
 public:
  struct State {
    uint64_t bytes = 0;   // the file's bytes [0, bytes) are written, whole
    bool sealed = false;  // no byte will follow them
  };

  // The writer: `bytes` are written now (never fewer than it said before).
  void Publish(uint64_t bytes);
  // The writer: nothing more will be written. Idempotent.
  void Seal();

  State Now() const;
  // Blocks until more than `offset` bytes are written, or the file is sealed.
  State WaitBeyond(uint64_t offset) const;

 private:
  mutable std::mutex mu_;
  mutable std::condition_variable changed_;
  State state_;
};

}  // namespace locksmith
