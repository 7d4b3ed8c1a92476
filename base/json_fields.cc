#include "base/json_fields.h"

#include <cmath>
#include <utility>

namespace locksmith {

JsonFields::JsonFields(const nlohmann::json& object, std::string place)
    : object_(object), place_(std::move(place)) {
  if (!object_.is_object()) problem_ = (place_.empty() ? "the file" : place_) + " is not an object";
}

const nlohmann::json* JsonFields::Member(const char* key) {
  if (!problem_.empty()) return nullptr;
  auto it = object_.find(key);
  return it == object_.end() || it->is_null() ? nullptr : &*it;
}

void JsonFields::Problem(const char* key, const std::string& must) {
  if (!problem_.empty()) return;
  problem_ = (place_.empty() ? "" : place_ + ": ") + "\"" + key + "\" must be " + must;
}

std::string JsonFields::Text(const char* key) {
  const nlohmann::json* v = Member(key);
  if (v == nullptr) return "";
  if (!v->is_string()) {
    Problem(key, "a string");
    return "";
  }
  return v->get<std::string>();
}

int64_t JsonFields::Integer(const char* key, int64_t min, int64_t max) {
  const nlohmann::json* v = Member(key);
  if (v == nullptr) return 0;
  bool fits = false;
  if (v->is_number_unsigned()) {  // nlohmann keeps every non-negative integer here
    const uint64_t u = v->get<uint64_t>();
    fits = max >= 0 && u <= static_cast<uint64_t>(max) && static_cast<int64_t>(u) >= min;
  } else if (v->is_number_integer()) {
    const int64_t i = v->get<int64_t>();
    fits = i >= min && i <= max;
  }
  if (!fits) {
    Problem(key, "a whole number from " + std::to_string(min) + " to " + std::to_string(max));
    return 0;
  }
  return v->get<int64_t>();
}

uint64_t JsonFields::Unsigned(const char* key) {
  const nlohmann::json* v = Member(key);
  if (v == nullptr) return 0;
  // A value built in memory from an int is signed even when it is not negative.
  if (!v->is_number_integer() || (!v->is_number_unsigned() && v->get<int64_t>() < 0)) {
    Problem(key, "a whole number from 0 to 18446744073709551615");
    return 0;
  }
  return v->get<uint64_t>();
}

std::optional<double> JsonFields::Number(const char* key) {
  const nlohmann::json* v = Member(key);
  if (v == nullptr) return std::nullopt;
  if (!v->is_number() || !std::isfinite(v->get<double>())) {
    Problem(key, "a number");
    return std::nullopt;
  }
  return v->get<double>();
}

const nlohmann::json* JsonFields::Object(const char* key) {
  const nlohmann::json* v = Member(key);
  if (v != nullptr && !v->is_object()) {
    Problem(key, "an object");
    return nullptr;
  }
  return v;
}

const nlohmann::json* JsonFields::Array(const char* key) {
  const nlohmann::json* v = Member(key);
  if (v != nullptr && !v->is_array()) {
    Problem(key, "an array");
    return nullptr;
  }
  return v;
}

Status JsonFields::status() const {
  if (problem_.empty()) return OkStatus();
  return Error{problem_};
}

}  // namespace locksmith
