// OpLog: records one worker's ops as invoke + completion pairs and applies
// Jepsen's process rule: after an op ends unknown (info) the worker continues
// under a new process number (old + stride), so a process never issues an op
// after an info. Owned by one worker; not thread-safe (the recorder is).
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "backends/lock_client.h"
#include "history/op_recorder.h"

namespace locksmith {

// The completion value of an acquire, as every workload records it: the
// token, what the backend adds (AcquireResult::detail), and when ok the
// validity and the fence.
nlohmann::json AcquireCompletionValue(const AcquireResult& acquired);

class OpLog {
 public:
  OpLog(OpRecorder& recorder, int64_t first_process, int64_t stride)
      : recorder_(recorder), process_(first_process), stride_(stride) {}

  // Records the invoke of the op in flight.
  void Invoke(const std::string& f, const std::string& key, nlohmann::json value);
  // Records its completion: ok, fail, or info for Outcome::kUnknown. A
  // nested op (a re-entry inside the process's own hold, which the checkers
  // judge by the outer hold) that ends info leaves the process as it is: the
  // outer hold is still this process's to release.
  void Complete(Outcome outcome, nlohmann::json value, const std::string& error,
                bool nested = false);
  // Records a lone op of the current process (no invoke; not the op in
  // flight): a lock event the client reported while a lock is held.
  void Event(Outcome outcome, const std::string& f, const std::string& key,
             nlohmann::json value, const std::string& error);

  int64_t process() const { return process_; }

 private:
  OpRecorder& recorder_;
  int64_t process_;
  int64_t stride_;
  std::string f_;
  std::string key_;
};

}  // namespace locksmith
