// JsonFields: the members of one JSON object from a file someone else wrote
// (a suite's summary.json), read with their types checked, so a value of the
// wrong type is a message rather than an exception. An absent or null member
// reads as the default; a member of another type, or a number outside the
// range asked for, reads as the default too and is kept as the first
// problem, named by its place: `runs[3]: "repeat" must be a whole number
// from 0 to 2147483647`. Not thread-safe (a plain value that refers to the
// object it reads).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "base/result.h"

namespace locksmith {

class JsonFields {
 public:
  // `object` must outlive this. `place` prefixes problems ("" or "runs[3]").
  JsonFields(const nlohmann::json& object, std::string place);

  std::string Text(const char* key);
  int64_t Integer(const char* key, int64_t min, int64_t max);
  uint64_t Unsigned(const char* key);
  std::optional<double> Number(const char* key);
  // The member when it is an object (an array); nullptr when absent or null.
  const nlohmann::json* Object(const char* key);
  const nlohmann::json* Array(const char* key);

  // The first problem, if any.
  Status status() const;

 private:
  // The member, or nullptr when it is absent or null (or the problem was
  // already found: one problem is enough).
  const nlohmann::json* Member(const char* key);
  void Problem(const char* key, const std::string& must);

  const nlohmann::json& object_;
  std::string place_;
  std::string problem_;
};

}  // namespace locksmith
