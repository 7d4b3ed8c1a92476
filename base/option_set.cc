#include "base/option_set.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "base/utf8.h"

namespace locksmith {
namespace {

std::string Quoted(const std::string& key) { return "\"" + key + "\""; }

Result<int64_t> ParseWhole(std::string_view text) {
  int64_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec == std::errc::result_out_of_range) return Error{"out of range"};
  if (ec != std::errc() || end != text.data() + text.size() || text.empty()) {
    return Error{"not a whole number"};
  }
  return v;
}

Result<int64_t> ParseMs(std::string_view text) {
  auto v = ParseWhole(text);
  if (!v) return Error{QuoteInput(text) + " is not a whole number of milliseconds"};
  return v;
}

// Shortest text that reads back as the same double ("0.1", not
// "0.10000000000000001").
std::string NumberText(double v) {
  if (std::trunc(v) == v && std::fabs(v) < 1e15) return std::to_string(static_cast<int64_t>(v));
  char buffer[64];
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buffer, sizeof(buffer), "%.*g", precision, v);
    if (std::strtod(buffer, nullptr) == v) break;
  }
  return buffer;
}

std::vector<std::string> SplitNames(const std::string& text) {
  std::vector<std::string> names;
  std::stringstream ss(text);
  for (std::string part; std::getline(ss, part, ',');) {
    part.erase(0, part.find_first_not_of(" \t"));
    part.erase(part.find_last_not_of(" \t") + 1);
    if (!part.empty()) names.push_back(part);
  }
  return names;
}

bool Contains(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

}  // namespace

std::string QuoteInput(std::string_view text) {
  constexpr size_t kMaxEcho = 40;
  const bool cut = text.size() > kMaxEcho;
  const std::string shown =
      nlohmann::json(std::string(text.substr(0, kMaxEcho)))
          .dump(-1, ' ', /*ensure_ascii=*/false, nlohmann::json::error_handler_t::replace);
  return cut ? shown + "..." : shown;
}

Result<MsRange> ParseMsRange(const std::string& text) {
  const size_t dash = text.find('-', 1);
  if (dash == std::string::npos) {
    auto v = ParseMs(text);
    if (!v) return Error{v.error()};
    return MsRange{*v, *v};
  }
  auto lo = ParseMs(std::string_view(text).substr(0, dash));
  auto hi = ParseMs(std::string_view(text).substr(dash + 1));
  if (!lo) return Error{lo.error()};
  if (!hi) return Error{hi.error()};
  return MsRange{*lo, *hi};
}

std::string FormatMsRange(MsRange range) {
  if (range.min == range.max) return std::to_string(range.min);
  return std::to_string(range.min) + "-" + std::to_string(range.max);
}

std::string OptionSet::Named(const char* key, const char* flag) {
  return *flag != '\0' ? std::string(flag) : Quoted(key);
}

OptionSet& OptionSet::Add(OptionSpec spec, Binding binding) {
  for (const auto& existing : specs_) {
    // Two options on one key or flag is a programming error in a module.
    if (existing.key == spec.key || (!spec.flag.empty() && existing.flag == spec.flag)) {
      throw std::logic_error("option declared twice: " + spec.key);
    }
  }
  specs_.push_back(std::move(spec));
  bindings_.push_back(std::move(binding));
  return *this;
}

OptionSet& OptionSet::AddInteger(const char* key, const char* flag, const char* help,
                                 int64_t min, int64_t max, int64_t type_min, int64_t type_max,
                                 std::function<int64_t()> get,
                                 std::function<void(int64_t)> set) {
  const std::string k = key, f = Named(key, flag);
  Binding b;
  b.read = [k, type_min, type_max, set](const nlohmann::json& v) -> Status {
    const bool huge = v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(type_max);
    if (!huge && !v.is_number_integer()) return Error{Quoted(k) + " must be an integer"};
    // Bounds are Validate's, which names the flag; only what the field's own
    // type cannot hold is refused here.
    if (huge || v.get<int64_t>() < type_min || v.get<int64_t>() > type_max) {
      return Error{Quoted(k) + " is out of range"};
    }
    set(v.get<int64_t>());
    return OkStatus();
  };
  b.write = [get] { return nlohmann::json(get()); };
  b.validate = [f, min, max, get]() -> Status {
    const int64_t v = get();
    if (v < min || v > max) {
      return Error{f + " must be " + std::to_string(min) + " to " + std::to_string(max)};
    }
    return OkStatus();
  };
  return Add({k, flag, help, OptionKind::kInteger, {}}, std::move(b));
}

OptionSet& OptionSet::Number(const char* key, const char* flag, double* field, double min,
                             double max, const char* help, bool min_exclusive) {
  const std::string k = key, f = Named(key, flag);
  Binding b;
  b.read = [k, field](const nlohmann::json& v) -> Status {
    if (!v.is_number()) return Error{Quoted(k) + " must be a number"};
    *field = v.get<double>();
    return OkStatus();
  };
  b.write = [field] { return nlohmann::json(*field); };
  b.validate = [f, field, min, max, min_exclusive]() -> Status {
    const double v = *field;
    const bool above = min_exclusive ? v > min : v >= min;  // false for NaN
    if (!above || !(v <= max)) {
      return Error{f + " must be " + (min_exclusive ? "more than " : "") + NumberText(min) +
                   (min_exclusive ? " and at most " : " to ") + NumberText(max)};
    }
    return OkStatus();
  };
  return Add({k, flag, help, OptionKind::kNumber, {}}, std::move(b));
}

OptionSet::Binding OptionSet::StringBinding(const std::string& key, std::string* field) {
  Binding b;
  b.read = [key, field](const nlohmann::json& v) -> Status {
    if (!v.is_string()) return Error{Quoted(key) + " must be a string"};
    *field = v.get<std::string>();
    return OkStatus();
  };
  b.write = [field] { return nlohmann::json(*field); };
  return b;
}

OptionSet& OptionSet::Text(const char* key, const char* flag, std::string* field,
                           size_t max_bytes, const char* help) {
  const std::string f = Named(key, flag);
  Binding b = StringBinding(key, field);
  b.validate = [f, field, max_bytes]() -> Status {
    if (field->size() > max_bytes) {
      return Error{f + " is " + std::to_string(field->size()) + " bytes; at most " +
                   std::to_string(max_bytes) + " are allowed"};
    }
    if (SanitizeUtf8(*field) != *field) return Error{f + " must be UTF-8 text"};
    return OkStatus();
  };
  return Add({key, flag, help, OptionKind::kText, {}}, std::move(b));
}

OptionSet& OptionSet::Choice(const char* key, const char* flag, std::string* field,
                             std::vector<std::string> choices, const char* help) {
  const std::string f = Named(key, flag);
  Binding b = StringBinding(key, field);
  b.validate = [f, field, choices]() -> Status {
    if (!Contains(choices, *field)) {
      return Error{f + " must be one of " + JoinNames(choices) + ", not " + QuoteInput(*field)};
    }
    return OkStatus();
  };
  return Add({key, flag, help, OptionKind::kChoice, std::move(choices)}, std::move(b));
}

OptionSet& OptionSet::Flag(const char* key, const char* flag, bool* field, const char* help) {
  const std::string k = key;
  Binding b;
  b.read = [k, field](const nlohmann::json& v) -> Status {
    if (!v.is_boolean()) return Error{Quoted(k) + " must be true or false"};
    *field = v.get<bool>();
    return OkStatus();
  };
  b.write = [field] { return nlohmann::json(*field); };
  b.validate = [] { return OkStatus(); };
  return Add({k, flag, help, OptionKind::kFlag, {}}, std::move(b));
}

OptionSet& OptionSet::Json(const char* key, nlohmann::json* field,
                           std::function<Status(const nlohmann::json&)> check, const char* help) {
  Binding b;
  b.read = [field](const nlohmann::json& v) -> Status {
    *field = v;
    return OkStatus();
  };
  b.write = [field] { return *field; };
  b.validate = [field, check = std::move(check)]() -> Status { return check(*field); };
  return Add({key, "", help, OptionKind::kJson, {}}, std::move(b));
}

OptionSet& OptionSet::Range(const char* key, const char* flag, MsRange* field, int64_t min_ms,
                            int64_t max_ms, const char* help) {
  const std::string k = key, f = Named(key, flag);
  Binding b;
  b.read = [k, field](const nlohmann::json& v) -> Status {
    if (v.is_number_integer()) {
      *field = {v.get<int64_t>(), v.get<int64_t>()};
      return OkStatus();
    }
    if (!v.is_string()) return Error{Quoted(k) + " must be milliseconds like \"100-300\" or 200"};
    auto range = ParseMsRange(v.get<std::string>());
    if (!range) return Error{Quoted(k) + ": " + range.error()};
    *field = *range;
    return OkStatus();
  };
  b.write = [field] { return nlohmann::json(FormatMsRange(*field)); };
  b.validate = [f, field, min_ms, max_ms]() -> Status {
    if (field->min < min_ms || field->max < field->min || field->max > max_ms) {
      return Error{f + " must be MIN-MAX milliseconds with " + std::to_string(min_ms) +
                   " <= MIN <= MAX <= " + std::to_string(max_ms)};
    }
    return OkStatus();
  };
  return Add({k, flag, help, OptionKind::kMsRange, {}}, std::move(b));
}

OptionSet& OptionSet::Names(const char* key, const char* flag, std::vector<std::string>* field,
                            std::vector<std::string> choices, const char* help) {
  const std::string k = key, f = Named(key, flag);
  Binding b;
  b.read = [k, field](const nlohmann::json& v) -> Status {
    if (v.is_string()) {
      *field = SplitNames(v.get<std::string>());
      return OkStatus();
    }
    if (!v.is_array()) return Error{Quoted(k) + " must be a list of names or \"a,b\""};
    std::vector<std::string> names;
    for (const auto& e : v) {
      if (!e.is_string()) return Error{Quoted(k) + " must list names as strings"};
      names.push_back(e.get<std::string>());
    }
    *field = std::move(names);
    return OkStatus();
  };
  b.write = [field] { return nlohmann::json(*field); };
  b.validate = [f, field, choices]() -> Status {
    for (size_t i = 0; i < field->size(); ++i) {
      const std::string& name = (*field)[i];
      if (!choices.empty() && !Contains(choices, name)) {
        return Error{f + ": unknown name " + QuoteInput(name) + " (known: " +
                     JoinNames(choices) + ")"};
      }
      if (std::find(field->begin(), field->begin() + static_cast<std::ptrdiff_t>(i), name) !=
          field->begin() + static_cast<std::ptrdiff_t>(i)) {
        return Error{f + ": " + QuoteInput(name) + " is listed twice"};
      }
    }
    return OkStatus();
  };
  return Add({k, flag, help, OptionKind::kNames, std::move(choices)}, std::move(b));
}

OptionSet& OptionSet::Require(std::function<Status()> check) {
  checks_.push_back(std::move(check));
  return *this;
}

const OptionSpec* OptionSet::Find(std::string_view key) const {
  for (const auto& spec : specs_) {
    if (spec.key == key) return &spec;
  }
  return nullptr;
}

Status OptionSet::Merge(const nlohmann::json& object) {
  if (!object.is_object()) return Error{"options must be a JSON object"};
  for (size_t i = 0; i < specs_.size(); ++i) {
    auto it = object.find(specs_[i].key);
    if (it == object.end()) continue;
    if (Status s = bindings_[i].read(*it); !s) return s;
  }
  return OkStatus();
}

nlohmann::json OptionSet::ToJson() const {
  nlohmann::json j = nlohmann::json::object();
  for (size_t i = 0; i < specs_.size(); ++i) {
    nlohmann::json value = bindings_[i].write();
    // Absent structured data stays absent (a config.json without "steps").
    if (specs_[i].kind == OptionKind::kJson && value.is_null()) continue;
    j[specs_[i].key] = std::move(value);
  }
  return j;
}

Status OptionSet::Validate() const {
  for (const auto& binding : bindings_) {
    if (Status s = binding.validate(); !s) return s;
  }
  for (const auto& check : checks_) {
    if (Status s = check(); !s) return s;
  }
  return OkStatus();
}

std::string OptionMeaning(const OptionSpec& spec) {
  std::string meaning = spec.help;
  if (spec.kind == OptionKind::kChoice || (spec.kind == OptionKind::kNames && !spec.choices.empty())) {
    meaning += " (" + JoinNames(spec.choices) + ")";
  }
  return meaning;
}

std::string OptionSet::Help(const OptionSpec& spec) const {
  std::string help = OptionMeaning(spec);
  const std::string shown = DefaultText(spec);
  if (!shown.empty()) help += " [default: " + shown + "]";
  return help;
}

std::string OptionSet::DefaultText(const OptionSpec& spec) const {
  if (spec.kind == OptionKind::kFlag) return "";
  for (size_t i = 0; i < specs_.size(); ++i) {
    if (&specs_[i] != &spec) continue;
    const nlohmann::json value = bindings_[i].write();
    std::string shown;
    if (value.is_string()) {
      shown = value.get<std::string>();
    } else if (value.is_array()) {
      for (const auto& e : value) shown += (shown.empty() ? "" : ",") + e.get<std::string>();
    } else if (value.is_number_float()) {
      shown = NumberText(value.get<double>());
    } else {
      shown = value.dump();
    }
    return shown;
  }
  return "";
}

Result<nlohmann::json> FlagValue(const OptionSpec& spec, const std::string& text) {
  if (spec.flag.empty()) return Error{Quoted(spec.key) + " has no command-line flag"};
  switch (spec.kind) {
    case OptionKind::kInteger: {
      auto v = ParseWhole(text);
      if (!v) {
        return Error{spec.flag + " must be a whole number, not " + QuoteInput(text) +
                     (v.error() == "out of range" ? " (out of range)" : "")};
      }
      return nlohmann::json(*v);
    }
    case OptionKind::kNumber: {
      const char* begin = text.c_str();
      char* end = nullptr;
      const double v = std::strtod(begin, &end);
      if (text.empty() || end != begin + text.size() || !std::isfinite(v)) {
        return Error{spec.flag + " must be a number, not " + QuoteInput(text)};
      }
      return nlohmann::json(v);
    }
    case OptionKind::kFlag:
      if (text.empty() || text == "true") return nlohmann::json(true);
      if (text == "false") return nlohmann::json(false);
      return Error{spec.flag + " takes no value"};
    case OptionKind::kText:
    case OptionKind::kChoice:
    case OptionKind::kMsRange:
    case OptionKind::kNames: return nlohmann::json(text);
    case OptionKind::kJson: return Error{Quoted(spec.key) + " has no command-line flag"};
  }
  return Error{"unreachable option kind"};
}

}  // namespace locksmith
