#include "history/jepsen_import.h"

#include <limits>
#include <map>

#include "base/json_input.h"
#include "history/edn_reader.h"

namespace locksmith {
namespace {

// Non-numeric processes other than the nemesis (rare: named workers) get
// numbers far above any real process, in order of first appearance, so the
// import stays deterministic.
constexpr int64_t kFirstNamedProcess = int64_t{1} << 40;

class ProcessNumbering {
 public:
  Result<int64_t> Number(const nlohmann::json& process) {
    if (process.is_number_integer() && process.get<int64_t>() >= 0) {
      return process.get<int64_t>();
    }
    if (process.is_number_unsigned()) return Error{":process is too large"};
    const std::string name = process.is_string() ? process.get<std::string>() : process.dump();
    if (name == "nemesis") return kNemesisProcess;
    auto [it, inserted] =
        named_.emplace(name, kFirstNamedProcess + static_cast<int64_t>(named_.size()));
    return it->second;
  }

 private:
  std::map<std::string, int64_t> named_;
};

std::string Text(const nlohmann::json& v) {
  return v.is_string() ? v.get<std::string>() : v.dump();
}

std::string Located(const std::string& source, size_t line, const std::string& reason) {
  return source + ":" + std::to_string(line) + ": " + reason;
}

// One EDN op map to an Op; `position` is the op's place in the file.
Result<Op> OpFromEdnMap(const nlohmann::json& map, int64_t position,
                        ProcessNumbering& processes) {
  if (!map.is_object()) return Error{"expected an op map, got " + JsonExcerpt(map)};
  Op op;
  auto type = map.find("type");
  if (type == map.end()) return Error{"op map has no :type"};
  auto parsed_type = ParseOpType(Text(*type));
  if (!parsed_type) return Error{parsed_type.error()};
  op.type = *parsed_type;

  auto process = map.find("process");
  if (process == map.end()) return Error{"op map has no :process"};
  auto number = processes.Number(*process);
  if (!number) return Error{number.error()};
  op.process = *number;

  auto f = map.find("f");
  if (f == map.end()) {
    // Some nemesis ops carry no :f; client ops must name their function.
    if (!op.is_nemesis()) return Error{"op map has no :f"};
  } else {
    op.f = Text(*f);
  }

  op.index = position;
  if (auto index = map.find("index"); index != map.end()) {
    if (!index->is_number_integer()) return Error{":index must be an integer"};
    op.index = index->get<int64_t>();
  }
  if (auto time = map.find("time"); time != map.end() && time->is_number_integer()) {
    op.time = time->get<int64_t>();
  }
  if (auto value = map.find("value"); value != map.end()) op.value = *value;
  if (auto key = map.find("key"); key != map.end() && !key->is_null()) op.key = Text(*key);
  if (auto error = map.find("error"); error != map.end() && !error->is_null()) {
    op.error = Text(*error);
  }
  return op;
}

}  // namespace

Result<History> ParseJepsenEdnHistory(std::string_view text, const std::string& source) {
  History history;
  ProcessNumbering processes;
  EdnReader reader(text);
  auto fail = [&](const std::string& reason) -> Result<History> {
    return Error{Located(source, reader.line(), reason)};
  };
  // Depth of the enclosing top-level vectors/lists; ops may sit at depth 0
  // (one map per line) or 1 (a vector of maps).
  int open_sequences = 0;
  while (true) {
    if (auto skipped = reader.SkipIgnorable(); !skipped) return fail(skipped.error());
    if (reader.AtEnd()) break;
    const char c = reader.Peek();
    if (open_sequences == 0 && (c == '[' || c == '(')) {
      reader.Advance();
      ++open_sequences;
      continue;
    }
    if (open_sequences > 0 && (c == ']' || c == ')')) {
      reader.Advance();
      --open_sequences;
      continue;
    }
    const size_t line = reader.line();
    auto form = reader.ReadForm();
    if (!form) return fail(form.error());
    auto op = OpFromEdnMap(*form, static_cast<int64_t>(history.size()), processes);
    if (!op) return Error{Located(source, line, op.error())};
    history.push_back(std::move(op).value());
  }
  if (open_sequences > 0) return fail("missing ']' or ')' at end of the history");
  return history;
}

namespace {

// Reads "PROCESS TYPE F VALUE [ERROR...]" after "jepsen.util - ". Returns
// nullopt when the line is not an op line, an error when it is one but its
// value cannot be read.
Result<std::optional<Op>> ParseLogOp(std::string_view rest, int64_t position,
                                     ProcessNumbering& processes) {
  EdnReader reader(rest);
  auto process = reader.ReadForm();
  if (!process) return std::optional<Op>();
  if (!process->is_number_integer() &&
      !(process->is_string() && process->get<std::string>() == "nemesis")) {
    return std::optional<Op>();
  }
  auto type = reader.ReadForm();
  if (!type || !type->is_string() || !ParseOpType(type->get<std::string>()).ok()) {
    return std::optional<Op>();
  }
  auto f = reader.ReadForm();
  if (!f) return std::optional<Op>();

  Op op;
  auto number = processes.Number(*process);
  if (!number) return Error{number.error()};
  op.process = *number;
  op.type = *ParseOpType(type->get<std::string>());
  op.f = Text(*f);
  op.index = position;
  if (auto skipped = reader.SkipIgnorable(); !skipped) return Error{skipped.error()};
  if (!reader.AtEnd()) {
    auto value = reader.ReadForm();
    if (!value) return Error{"cannot read the op's value: " + value.error()};
    op.value = std::move(value).value();
  }
  std::string_view tail = rest.substr(std::min(reader.position(), rest.size()));
  const size_t first = tail.find_first_not_of(" \t");
  if (first != std::string_view::npos) {
    tail.remove_prefix(first);
    while (!tail.empty() && (tail.back() == ' ' || tail.back() == '\t')) tail.remove_suffix(1);
    op.error = SanitizeUtf8(tail);
  }
  return std::optional<Op>(std::move(op));
}

}  // namespace

Result<History> ParseJepsenLogHistory(std::string_view text, const std::string& source) {
  History history;
  ProcessNumbering processes;
  size_t line_no = 0;
  size_t pos = 0;
  constexpr std::string_view kLogger = "jepsen.util";
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    const size_t logger = line.find(kLogger);
    if (logger == std::string_view::npos) continue;
    std::string_view rest = line.substr(logger + kLogger.size());
    const size_t dash = rest.find_first_not_of(" \t");
    if (dash == std::string_view::npos || rest[dash] != '-') continue;
    rest.remove_prefix(dash + 1);
    auto op = ParseLogOp(rest, static_cast<int64_t>(history.size()), processes);
    if (!op) return Error{Located(source, line_no, op.error())};
    if (op->has_value()) history.push_back(std::move(**op));
  }
  return history;
}

}  // namespace locksmith
