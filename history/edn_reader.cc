#include "history/edn_reader.h"

#include <cctype>
#include <charconv>
#include <cstdlib>
#include <limits>
#include <optional>

namespace locksmith {
namespace {

// Deep nesting only comes from broken or hostile input; bounding it keeps the
// recursive reader from exhausting the stack.
constexpr int kMaxDepth = 200;

bool IsWhitespace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ',' || c == '\f' ||
         c == '\v';
}

bool IsDelimiter(char c) {
  return IsWhitespace(c) || c == '(' || c == ')' || c == '[' || c == ']' || c == '{' ||
         c == '}' || c == '"' || c == ';';
}

void AppendUtf8(uint32_t cp, std::string* out) {
  if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) cp = 0xFFFD;
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

}  // namespace

namespace {

std::optional<uint32_t> ParseHex(std::string_view digits) {
  uint32_t v = 0;
  auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v, 16);
  if (ec != std::errc() || ptr != digits.data() + digits.size()) return std::nullopt;
  return v;
}

std::optional<double> ParseDouble(std::string_view s) {
  std::string copy(s);
  char* end = nullptr;
  double d = std::strtod(copy.c_str(), &end);
  if (end != copy.c_str() + copy.size()) return std::nullopt;
  return d;
}

// An EDN number, or nullopt when the token is not one (then it is a symbol).
std::optional<nlohmann::json> ParseNumber(std::string_view token) {
  std::string_view body = token;
  bool negative = false;
  if (!body.empty() && (body[0] == '+' || body[0] == '-')) {
    negative = body[0] == '-';
    body.remove_prefix(1);
  }
  if (body.empty() || !std::isdigit(static_cast<unsigned char>(body[0]))) return std::nullopt;
  if (body.back() == 'M') {
    auto d = ParseDouble(token.substr(0, token.size() - 1));
    if (!d) return std::nullopt;
    return nlohmann::json(*d);
  }
  if (body.back() == 'N') {
    body.remove_suffix(1);
    token.remove_suffix(1);
  }
  if (auto slash = body.find('/'); slash != std::string_view::npos) {
    auto num = ParseDouble(body.substr(0, slash));
    auto den = ParseDouble(body.substr(slash + 1));
    if (!num || !den || *den == 0) return std::nullopt;
    return nlohmann::json((negative ? -*num : *num) / *den);
  }
  if (body.size() > 2 && body[0] == '0' && (body[1] == 'x' || body[1] == 'X')) {
    uint64_t v = 0;
    auto digits = body.substr(2);
    auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v, 16);
    if (ec != std::errc() || ptr != digits.data() + digits.size()) return std::nullopt;
    if (v <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      const auto s = static_cast<int64_t>(v);
      return nlohmann::json(negative ? -s : s);
    }
    return std::nullopt;
  }
  if (body.find_first_of(".eE") != std::string_view::npos) {
    auto d = ParseDouble(token);
    if (!d) return std::nullopt;
    return nlohmann::json(*d);
  }
  int64_t v = 0;
  const char* begin = token.data() + (token[0] == '+' ? 1 : 0);
  auto [ptr, ec] = std::from_chars(begin, token.data() + token.size(), v);
  if (ec == std::errc() && ptr == token.data() + token.size()) return nlohmann::json(v);
  if (ec == std::errc::result_out_of_range && !negative) {
    uint64_t u = 0;
    auto [uptr, uec] = std::from_chars(begin, token.data() + token.size(), u);
    if (uec == std::errc() && uptr == token.data() + token.size()) return nlohmann::json(u);
  }
  auto d = ParseDouble(token);
  if (!d) return std::nullopt;
  return nlohmann::json(*d);
}

}  // namespace

void EdnReader::Advance() {
  if (pos_ < text_.size() && text_[pos_] == '\n') ++line_;
  ++pos_;
}

Status EdnReader::SkipIgnorable() { return SkipIgnorableAtDepth(0); }

Status EdnReader::SkipIgnorableAtDepth(int depth) {
  while (!AtEnd()) {
    const char c = Peek();
    if (IsWhitespace(c)) {
      Advance();
    } else if (c == ';') {
      while (!AtEnd() && Peek() != '\n') Advance();
    } else if (c == '#' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '_') {
      Advance();
      Advance();
      auto discarded = ReadFormAtDepth(depth + 1);
      if (!discarded) return Error{discarded.error()};
    } else {
      break;
    }
  }
  return OkStatus();
}

Result<nlohmann::json> EdnReader::ReadForm() { return ReadFormAtDepth(0); }

std::string_view EdnReader::ReadToken() {
  const size_t start = pos_;
  while (!AtEnd() && !IsDelimiter(Peek())) Advance();
  return text_.substr(start, pos_ - start);
}

nlohmann::json EdnReader::TokenToJson(std::string_view token) const {
  if (token == "nil") return nullptr;
  if (token == "true") return true;
  if (token == "false") return false;
  if (token[0] == ':') {
    while (!token.empty() && token[0] == ':') token.remove_prefix(1);
    return SanitizeUtf8(token);
  }
  if (auto number = ParseNumber(token)) return *number;
  return SanitizeUtf8(token);
}

Result<nlohmann::json> EdnReader::ReadFormAtDepth(int depth) {
  if (depth > kMaxDepth) return Error{"forms nested too deeply"};
  if (auto skipped = SkipIgnorableAtDepth(depth + 1); !skipped) {
    return Error{skipped.error()};
  }
  if (AtEnd()) return Error{"unexpected end of input"};
  const char c = Peek();
  switch (c) {
    case '(':
      Advance();
      return ReadCollection(')', false, depth);
    case '[':
      Advance();
      return ReadCollection(']', false, depth);
    case '{':
      Advance();
      return ReadCollection('}', true, depth);
    case ')':
    case ']':
    case '}':
      return Error{std::string("unexpected '") + c + "'"};
    case '"':
      return ReadString();
    case '\\':
      return ReadCharacter();
    case '^': {
      Advance();
      auto meta = ReadFormAtDepth(depth + 1);
      if (!meta) return meta;
      return ReadFormAtDepth(depth + 1);
    }
    case '\'':
    case '`':
    case '@':
      Advance();
      return ReadFormAtDepth(depth + 1);
    case '~':
      Advance();
      if (!AtEnd() && Peek() == '@') Advance();
      return ReadFormAtDepth(depth + 1);
    case '#': {
      Advance();
      if (AtEnd()) return Error{"'#' at end of input"};
      const char d = Peek();
      if (d == '{') {
        Advance();
        return ReadCollection('}', false, depth);
      }
      if (d == '(') {
        Advance();
        return ReadCollection(')', false, depth);
      }
      if (d == '"') return ReadString();
      if (d == '#') {
        Advance();
        return nlohmann::json(SanitizeUtf8("##" + std::string(ReadToken())));
      }
      if (IsDelimiter(d)) return Error{"'#' must be followed by a tag or a dispatch form"};
      ReadToken();  // the tag (or #:ns / #? prefix): the form it tags is kept
      return ReadFormAtDepth(depth + 1);
    }
    default: {
      std::string_view token = ReadToken();
      if (token.empty()) return Error{std::string("unexpected character '") + c + "'"};
      return TokenToJson(token);
    }
  }
}

Result<nlohmann::json> EdnReader::ReadCollection(char close, bool as_map, int depth) {
  const size_t open_line = line_;
  nlohmann::json items = nlohmann::json::array();
  while (true) {
    if (auto skipped = SkipIgnorableAtDepth(depth + 1); !skipped) {
      return Error{skipped.error()};
    }
    if (AtEnd()) {
      return Error{std::string("missing '") + close + "' for the collection opened on line " +
                   std::to_string(open_line)};
    }
    if (Peek() == close) {
      Advance();
      break;
    }
    auto item = ReadFormAtDepth(depth + 1);
    if (!item) return item;
    items.push_back(std::move(item).value());
  }
  if (!as_map) return items;
  if (items.size() % 2 != 0) {
    return Error{"map opened on line " + std::to_string(open_line) +
                 " has an odd number of forms"};
  }
  nlohmann::json map = nlohmann::json::object();
  for (size_t i = 0; i < items.size(); i += 2) {
    const auto& key = items[i];
    map[key.is_string() ? key.get<std::string>() : key.dump()] = std::move(items[i + 1]);
  }
  return map;
}

Result<nlohmann::json> EdnReader::ReadString() {
  const size_t open_line = line_;
  Advance();  // opening quote
  std::string raw;
  while (true) {
    if (AtEnd()) {
      return Error{"unterminated string opened on line " + std::to_string(open_line)};
    }
    char c = Peek();
    Advance();
    if (c == '"') break;
    if (c != '\\') {
      raw.push_back(c);
      continue;
    }
    if (AtEnd()) return Error{"unterminated string opened on line " + std::to_string(open_line)};
    char e = Peek();
    Advance();
    switch (e) {
      case 'n': raw.push_back('\n'); break;
      case 't': raw.push_back('\t'); break;
      case 'r': raw.push_back('\r'); break;
      case 'b': raw.push_back('\b'); break;
      case 'f': raw.push_back('\f'); break;
      case 'u': {
        if (pos_ + 4 > text_.size()) return Error{"bad \\u escape in string"};
        auto cp = ParseHex(text_.substr(pos_, 4));
        if (!cp) return Error{"bad \\u escape in string"};
        for (int k = 0; k < 4; ++k) Advance();
        // A high surrogate followed by \uDC00.. forms one code point.
        if (*cp >= 0xD800 && *cp <= 0xDBFF && pos_ + 6 <= text_.size() &&
            text_[pos_] == '\\' && text_[pos_ + 1] == 'u') {
          auto low = ParseHex(text_.substr(pos_ + 2, 4));
          if (low && *low >= 0xDC00 && *low <= 0xDFFF) {
            for (int k = 0; k < 6; ++k) Advance();
            AppendUtf8(0x10000 + ((*cp - 0xD800) << 10) + (*low - 0xDC00), &raw);
            break;
          }
        }
        AppendUtf8(*cp, &raw);
        break;
      }
      default: raw.push_back(e); break;  // \" \\ and anything else literally
    }
  }
  return nlohmann::json(SanitizeUtf8(raw));
}

Result<nlohmann::json> EdnReader::ReadCharacter() {
  Advance();  // backslash
  if (AtEnd()) return Error{"character literal at end of input"};
  const size_t start = pos_;
  Advance();  // the first character is taken whatever it is: \( \; \space
  while (!AtEnd() && !IsDelimiter(Peek())) Advance();
  std::string_view name = text_.substr(start, pos_ - start);
  if (name.size() == 1) return nlohmann::json(SanitizeUtf8(name));
  if (name == "newline") return nlohmann::json("\n");
  if (name == "space") return nlohmann::json(" ");
  if (name == "tab") return nlohmann::json("\t");
  if (name == "return") return nlohmann::json("\r");
  if (name == "backspace") return nlohmann::json("\b");
  if (name == "formfeed") return nlohmann::json("\f");
  if (name.size() == 5 && name[0] == 'u') {
    if (auto cp = ParseHex(name.substr(1))) {
      std::string s;
      AppendUtf8(*cp, &s);
      return nlohmann::json(s);
    }
  }
  // A UTF-8 character is several bytes; keep whatever was written.
  return nlohmann::json(SanitizeUtf8(name));
}

}  // namespace locksmith
