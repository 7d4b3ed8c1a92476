// ResourceOps: the protected resource's reads and writes (inventory,
// counter) for the page's value-over-time plot: reads and final reads at
// their completion with the value read, writes at their completion (or
// invoke when they never completed) with the value written, init's value.
// In time order. Built once, then read-only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "history/history.h"
#include "reports/interner.h"
#include "reports/op_rows.h"

namespace locksmith {

class ResourceOps {
 public:
  enum Kind : uint8_t { kRead = 0, kWrite = 1, kInit = 2, kFinal = 3 };

  // `keys` numbers the keys (shared with the ops).
  static ResourceOps Build(const History& history, const std::vector<OpRow>& rows,
                           Interner* keys);

  size_t size() const { return time_.size(); }

  // "res":{"k","p" (lane),"t" (delta),"v","kind","o" (outcome)}
  void AppendJson(std::string* out) const;

 private:
  void SortByTime();

  std::vector<int32_t> key_, lane_;
  std::vector<int64_t> time_, value_;
  std::vector<uint8_t> kind_, outcome_;
};

}  // namespace locksmith
