#include "base/json_input.h"

#include <cstdint>
#include <optional>
#include <vector>

#include "base/input_file.h"
#include "base/option_set.h"
#include "base/utf8.h"

namespace locksmith {
namespace {

using json = nlohmann::json;

constexpr size_t kMaxReasonBytes = 200;

// Whether arrays and objects in `text` nest more than kMaxJsonDepth deep.
// Exact for JSON (brackets in strings and comments do not count); for text
// that is not JSON the answer does not matter: the parser refuses it.
bool NestsTooDeep(std::string_view text, JsonComments comments) {
  int depth = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '"') {
      for (i = text.find_first_of("\"\\", i + 1); i < text.size() && text[i] == '\\';
           i = text.find_first_of("\"\\", i + 2)) {
      }
      if (i >= text.size()) return false;
    } else if (c == '/' && comments == JsonComments::kAllowed && i + 1 < text.size() &&
               (text[i + 1] == '/' || text[i + 1] == '*')) {
      const bool line = text[i + 1] == '/';
      i = line ? text.find('\n', i) : text.find("*/", i + 2);
      if (i == std::string_view::npos) return false;
      if (!line) ++i;  // the comment's closing '/'
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxJsonDepth) return true;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return false;
}

// Follows a parse that failed to say where: the key path of the value being
// read ("a.b[2]") and the offending token. Builds nothing.
class FailurePlace : public nlohmann::json_sax<json> {
 public:
  std::string path() const {
    std::string p;
    for (const auto& level : levels_) {
      if (level.in_array) {
        p += "[" + std::to_string(level.index) + "]";
      } else if (!level.key.empty()) {
        p += (p.empty() ? "" : ".") + level.key;
      }
    }
    return p;
  }
  const std::string& token() const { return token_; }
  int id() const { return id_; }

  bool null() override { return Value(); }
  bool boolean(bool) override { return Value(); }
  bool number_integer(number_integer_t) override { return Value(); }
  bool number_unsigned(number_unsigned_t) override { return Value(); }
  bool number_float(number_float_t, const string_t&) override { return Value(); }
  bool string(string_t&) override { return Value(); }
  bool binary(binary_t&) override { return Value(); }
  bool start_object(std::size_t) override {
    Value();
    levels_.push_back({});
    return true;
  }
  bool key(string_t& key) override {
    levels_.back().key = key;
    return true;
  }
  bool end_object() override {
    levels_.pop_back();
    return true;
  }
  bool start_array(std::size_t) override {
    Value();
    levels_.push_back({.in_array = true});
    return true;
  }
  bool end_array() override {
    levels_.pop_back();
    return true;
  }
  bool parse_error(std::size_t, const std::string& last_token,
                   const nlohmann::detail::exception& ex) override {
    token_ = last_token;
    id_ = ex.id;
    // The failing value counts as the array's next element.
    if (!levels_.empty() && levels_.back().in_array) ++levels_.back().index;
    return false;
  }

 private:
  struct Level {
    bool in_array = false;
    int64_t index = -1;  // of the current element, in an array
    std::string key;     // of the current member, in an object
  };
  bool Value() {
    if (!levels_.empty() && levels_.back().in_array) ++levels_.back().index;
    return true;
  }
  std::vector<Level> levels_;
  std::string token_;
  int id_ = 0;
};

// One line saying why `text` is not JSON: for a number out of range the key
// and the number, otherwise nlohmann's position and reason, cut short.
std::string ParseErrorLine(std::string_view text, JsonComments comments,
                           const json::exception& e) {
  FailurePlace place;
  json::sax_parse(text.begin(), text.end(), &place, json::input_format_t::json,
                  /*strict=*/true, comments == JsonComments::kAllowed);
  if (place.id() == 406) {  // nlohmann: "number overflow"
    const std::string where = place.path().empty() ? "" : QuoteInput(place.path()) + ": ";
    std::string number = place.token();
    if (number.size() > 40) number = number.substr(0, 40) + "...";
    return where + "the number " + number + " is out of range (beyond a double's +-1.8e308)";
  }
  std::string reason = e.what();
  if (size_t at = reason.find("parse error at "); at != std::string::npos) {
    reason = reason.substr(at + 15);
  } else if (size_t bracket = reason.find("] "); bracket != std::string::npos) {
    reason = reason.substr(bracket + 2);
  }
  if (reason.size() > kMaxReasonBytes) reason = reason.substr(0, kMaxReasonBytes) + "...";
  return "not valid JSON: " + SanitizeUtf8(reason);
}

// The common shape of a history's values, {"token":"a1","validity_ms":900}:
// one flat object, written compactly (no whitespace), of ASCII strings
// without escapes, integers, true, false and null. Parsed here as
// nlohmann's parser would parse it (an integer >= 0 unsigned, a repeated
// key the last one), in a fraction of its time; anything else is nullopt
// and goes to the full parser.
class FlatObjectParser {
 public:
  explicit FlatObjectParser(std::string_view text) : text_(text) {}

  std::optional<json> Parse() {
    if (!Take('{')) return std::nullopt;
    json object = json::object();
    if (Take('}')) return AtEnd() ? std::optional<json>(std::move(object)) : std::nullopt;
    do {
      std::string_view name;
      if (!String(&name) || !Take(':')) return std::nullopt;
      std::optional<json> value = Value();
      if (!value) return std::nullopt;
      object[std::string(name)] = std::move(*value);
    } while (Take(','));
    if (!Take('}') || !AtEnd()) return std::nullopt;
    return object;
  }

 private:
  bool Take(char c) {
    if (at_ >= text_.size() || text_[at_] != c) return false;
    ++at_;
    return true;
  }
  bool AtEnd() const { return at_ == text_.size(); }

  bool String(std::string_view* out) {
    if (!Take('"')) return false;
    const size_t begin = at_;
    for (; at_ < text_.size(); ++at_) {
      const auto c = static_cast<unsigned char>(text_[at_]);
      if (c == '"') {
        *out = text_.substr(begin, at_++ - begin);
        return true;
      }
      if (c == '\\' || c < 0x20 || c >= 0x80) return false;
    }
    return false;
  }

  std::optional<json> Value() {
    if (at_ >= text_.size()) return std::nullopt;
    const char c = text_[at_];
    if (c == '"') {
      std::string_view s;
      if (!String(&s)) return std::nullopt;
      return json(std::string(s));
    }
    for (const auto& [word, value] : {std::pair<std::string_view, json>{"true", true},
                                      {"false", false}, {"null", nullptr}}) {
      if (text_.substr(at_, word.size()) == word) {
        at_ += word.size();
        return value;
      }
    }
    return Integer();
  }

  std::optional<json> Integer() {
    const bool negative = Take('-');
    const size_t begin = at_;
    uint64_t magnitude = 0;
    for (; at_ < text_.size() && text_[at_] >= '0' && text_[at_] <= '9'; ++at_) {
      const uint64_t digit = static_cast<uint64_t>(text_[at_] - '0');
      if (magnitude > (UINT64_MAX - digit) / 10) return std::nullopt;  // the full parser says
      magnitude = magnitude * 10 + digit;
    }
    const size_t digits = at_ - begin;
    if (digits == 0 || (digits > 1 && text_[begin] == '0')) return std::nullopt;
    if (at_ < text_.size() && (text_[at_] == '.' || text_[at_] == 'e' || text_[at_] == 'E')) {
      return std::nullopt;
    }
    if (!negative) return json(magnitude);
    if (magnitude > uint64_t{1} << 63) return std::nullopt;
    if (magnitude == 0) return std::nullopt;  // -0: the full parser's business
    return json(static_cast<int64_t>(0 - magnitude));
  }

  std::string_view text_;
  size_t at_ = 0;
};

}  // namespace

Result<json> ParseJsonInput(std::string_view text, JsonComments comments) {
  if (!text.empty() && text.front() == '{') {
    if (std::optional<json> flat = FlatObjectParser(text).Parse()) return std::move(*flat);
  }
  if (NestsTooDeep(text, comments)) {
    return Error{"arrays and objects nest more than " + std::to_string(kMaxJsonDepth) + " deep"};
  }
  try {
    return json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/true,
                       comments == JsonComments::kAllowed);
  } catch (const json::exception& e) {
    return Error{ParseErrorLine(text, comments, e)};
  }
}

Result<json> ReadJsonInputFile(const std::string& path, uint64_t max_bytes,
                               JsonComments comments) {
  auto text = ReadInputFile(path, max_bytes);
  if (!text) return Error{text.error()};
  if (text->find_first_not_of(" \t\r\n") == std::string::npos) return Error{path + " is empty"};
  auto j = ParseJsonInput(*text, comments);
  if (!j) return Error{path + ": " + j.error()};
  return j;
}

std::string JsonExcerpt(const json& value, size_t max_chars) {
  // A long string is cut before it is written out: a 50 MB one is not copied.
  const size_t enough_bytes = 4 * max_chars + 4;
  const json shown = value.is_string() && value.get_ref<const std::string&>().size() > enough_bytes
                         ? json(value.get_ref<const std::string&>().substr(0, enough_bytes))
                         : json();
  const std::string text = (shown.is_null() ? value : shown)
                               .dump(-1, ' ', /*ensure_ascii=*/false,
                                     json::error_handler_t::replace);
  size_t chars = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80 && chars++ == max_chars) {
      return text.substr(0, i) + "...";
    }
  }
  return text;
}

}  // namespace locksmith
