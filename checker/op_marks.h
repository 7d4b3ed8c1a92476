// OpMarks: what a streaming pass keeps of an op it may name later, instead
// of the op: an OpMark is the op's index, time, process and type, with its
// f and key interned once per pass (a pass sees few of either). 32 bytes,
// no allocation per op; Ref gives the same JSON as OpRef(op). Not
// thread-safe; one table per pass.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "history/history.h"

namespace locksmith {

struct OpMark {
  int64_t index = -1;
  int64_t time = 0;
  int64_t process = 0;
  uint32_t name = 0;  // the op's f and key, in the pass's OpMarks
  OpType type = OpType::kInvoke;
  bool present = false;  // false: no op (its reference is null)
};

class OpMarks {
 public:
  OpMark Mark(const Op& op);
  // OpRef of the marked op; null for a mark of no op.
  nlohmann::json Ref(const OpMark& mark) const;

 private:
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>()(s); }
  };
  using Ids = std::unordered_map<std::string, uint32_t, Hash, std::equal_to<>>;

  std::unordered_map<std::string, Ids, Hash, std::equal_to<>> ids_;  // f -> key -> name
  std::vector<std::pair<std::string, std::string>> names_;           // name -> {f, key}
};

}  // namespace locksmith
