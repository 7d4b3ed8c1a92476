// KeySpool: a history's ops filed by key, for a checker that judges one key
// at a time (the linearizability checker: keys are independent). Each key's
// ops are kept encoded as the history log encodes them (history/history_log.h:
// some 50 bytes an op, strings interned per key) in memory up to a budget;
// past it every key's records so far are appended to a log file of its own
// in a temporary directory, so that memory follows the budget and the
// largest key, not the history. Take gives one key's ops back in history
// order. Not thread-safe, except that once every op is added, Take may run
// on several threads at once for distinct keys; the directory is removed
// with the spool.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/result.h"
#include "history/history.h"
#include "history/history_log.h"

namespace locksmith {

class KeySpool {
 public:
  static inline constexpr size_t kDefaultBudgetBytes = size_t{32} << 20;

  explicit KeySpool(size_t budget_bytes = kDefaultBudgetBytes) : budget_(budget_bytes) {}
  ~KeySpool();
  KeySpool(const KeySpool&) = delete;
  KeySpool& operator=(const KeySpool&) = delete;

  // Files `op` under `key`; an error when a spill cannot be written.
  Status Add(const std::string& key, const Op& op);
  // The keys in the order their first op came.
  const std::vector<std::string>& keys() const { return keys_; }
  // Every op of `key`, in order; the key's ops are then gone from the spool.
  Result<History> Take(const std::string& key);
  // The same as a stream (rewindable), to read one op at a time; `*ops` is
  // how many it holds. The key's ops are gone from the spool, its file
  // (when it has one) from the directory: the stream holds it open.
  Result<std::unique_ptr<HistoryLogStream>> TakeStream(const std::string& key,
                                                        size_t* ops = nullptr);
  bool spilled() const { return !dir_.empty(); }
  // The bytes `key`'s ops take encoded (in memory and in its file): what
  // Take will read back, roughly a tenth of what its ops take in memory.
  size_t EncodedBytes(const std::string& key) const;

 private:
  struct Filed {
    HistoryLogEncoder encoder;  // one per key: its file is one encoder's records
    std::string records;        // encoded, not yet spilled
    std::string file;           // its spill file, once it has one
    size_t file_bytes = 0;      // what the file holds
    size_t ops = 0;             // filed so far (Take makes room for them at once)
  };
  Status Spill();

  const size_t budget_;
  size_t held_bytes_ = 0;
  std::string dir_;  // the temporary directory, once spilled
  std::vector<std::string> keys_;
  std::unordered_map<std::string, Filed> filed_;
};

}  // namespace locksmith
