#include "history/history.h"

#include <map>
#include <optional>
#include <string>
#include <unordered_map>

#include "base/input_file.h"
#include "base/json_input.h"
#include "base/option_set.h"

namespace locksmith {

std::string_view OpTypeName(OpType type) {
  switch (type) {
    case OpType::kInvoke: return "invoke";
    case OpType::kOk: return "ok";
    case OpType::kFail: return "fail";
    case OpType::kInfo: return "info";
  }
  return "?";
}

Result<OpType> ParseOpType(std::string_view name) {
  if (name == "invoke") return OpType::kInvoke;
  if (name == "ok") return OpType::kOk;
  if (name == "fail") return OpType::kFail;
  if (name == "info") return OpType::kInfo;
  return Error{"unknown op type " + QuoteInput(name) + " (expected invoke, ok, fail or info)"};
}

nlohmann::json ProcessJson(int64_t process) {
  if (process == kNemesisProcess) return "nemesis";
  if (process == kServiceProcess) return "service";
  return process;
}

nlohmann::json OpToJson(const Op& op) {
  nlohmann::json j;
  j["index"] = op.index;
  j["time"] = op.time;
  j["process"] = ProcessJson(op.process);
  j["type"] = OpTypeName(op.type);
  j["f"] = op.f;
  if (!op.key.empty()) j["key"] = op.key;
  if (!op.value.is_null()) j["value"] = op.value;
  if (!op.error.empty()) j["error"] = op.error;
  if (!op.fault.is_null()) j["fault"] = op.fault;
  return j;
}

nlohmann::json FaultMark::ToJson() const {
  return {{"window", window}, {"family", family}, {"phase", begins ? "begin" : "end"}};
}

// Errors and keys come from lock services and users and may hold invalid
// UTF-8; a history line must still be written, so bad bytes become U+FFFD.
std::string OpToJsonLine(const Op& op) {
  return OpToJson(op).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

namespace {

// "service", or the name histories gave the same process when Redis
// Sentinel's were the only service events ("sentinel"): such histories read
// as they always did.
bool IsServiceProcessName(const std::string& name) {
  return name == "service" || name == "sentinel";
}

Result<int64_t> RequiredIntField(const nlohmann::json& j, const char* name) {
  auto it = j.find(name);
  if (it == j.end()) return Error{std::string("missing \"") + name + "\""};
  if (!it->is_number_integer()) {
    return Error{std::string("\"") + name + "\" must be an integer"};
  }
  return it->get<int64_t>();
}

}  // namespace

Result<FaultMark> FaultMarkFromJson(const nlohmann::json& j) {
  if (!j.is_object()) return Error{"\"fault\" must be an object"};
  FaultMark mark;
  auto window = RequiredIntField(j, "window");
  if (!window || *window < 0) return Error{"\"fault\" needs a non-negative integer \"window\""};
  mark.window = *window;
  auto family = j.find("family");
  if (family == j.end() || !family->is_string() || family->get<std::string>().empty()) {
    return Error{"\"fault\" needs a non-empty string \"family\""};
  }
  mark.family = family->get<std::string>();
  auto phase = j.find("phase");
  if (phase == j.end() || !(*phase == "begin" || *phase == "end")) {
    return Error{"\"fault\" needs \"phase\": \"begin\" or \"end\""};
  }
  mark.begins = *phase == "begin";
  return mark;
}

nlohmann::json HistoryClosing::ToJson() const {
  nlohmann::json j{{"ended", ended}};
  if (!detail.empty()) j["detail"] = detail;
  j["ops"] = ops;
  j["faults"] = faults;
  return j;
}

Result<HistoryClosing> HistoryClosingFromJson(const nlohmann::json& j) {
  if (!j.is_object()) return Error{"a closing record must be a JSON object"};
  HistoryClosing closing;
  auto ended = j.find("ended");
  if (ended == j.end() || !ended->is_string() || ended->get<std::string>().empty()) {
    return Error{"a closing record needs a non-empty string \"ended\""};
  }
  closing.ended = ended->get<std::string>();
  if (auto detail = j.find("detail"); detail != j.end()) {
    if (!detail->is_string()) return Error{"a closing record's \"detail\" must be a string"};
    closing.detail = detail->get<std::string>();
  }
  for (auto [name, field] : {std::pair{"ops", &closing.ops}, {"faults", &closing.faults}}) {
    auto count = RequiredIntField(j, name);
    if (!count || *count < 0) {
      return Error{std::string("a closing record needs a non-negative integer \"") + name + "\""};
    }
    *field = *count;
  }
  return closing;
}

bool BeginsFaultWindow(const Op& op) {
  if (!op.fault.is_object()) return false;
  const auto phase = op.fault.find("phase");
  return phase != op.fault.end() && *phase == "begin";
}

std::string HistoryEnd::CutShort(const std::string& source) const {
  const std::string where = records == 0 ? "before its first record"
                                         : "after record " + std::to_string(records) +
                                               " (byte " + std::to_string(whole_bytes) + ")";
  if (!closing) return "history cut short: " + source + " ends " + where + " without its closing record";
  if (closing->ops != ops || closing->faults != faults) {
    return "history cut short: " + source + "'s closing record counts " +
           std::to_string(closing->ops) + " ops and " + std::to_string(closing->faults) +
           " faults; " + std::to_string(ops) + " ops and " + std::to_string(faults) +
           " faults were read";
  }
  if (closing->ended == kEndedCutShort) {  // said by export, of the log it read
    return closing->detail.empty() ? "history cut short: " + source + " says so" : closing->detail;
  }
  return "";
}

Result<Op> OpFromJson(const nlohmann::json& j) {
  if (!j.is_object()) return Error{"an op must be a JSON object"};
  Op op;
  auto index = RequiredIntField(j, "index");
  if (!index) return Error{index.error()};
  op.index = *index;
  auto time = RequiredIntField(j, "time");
  if (!time) return Error{time.error()};
  op.time = *time;

  auto process = j.find("process");
  if (process == j.end()) return Error{"missing \"process\""};
  if (process->is_string() && process->get<std::string>() == "nemesis") {
    op.process = kNemesisProcess;
  } else if (process->is_string() && IsServiceProcessName(process->get<std::string>())) {
    op.process = kServiceProcess;
  } else if (process->is_number_integer() && process->get<int64_t>() >= 0) {
    op.process = process->get<int64_t>();
  } else {
    return Error{"\"process\" must be a non-negative integer, \"nemesis\" or \"service\""};
  }

  auto type = j.find("type");
  if (type == j.end() || !type->is_string()) {
    return Error{"missing or non-string \"type\""};
  }
  auto parsed_type = ParseOpType(type->get<std::string>());
  if (!parsed_type) return Error{parsed_type.error()};
  op.type = *parsed_type;

  auto f = j.find("f");
  if (f == j.end() || !f->is_string()) return Error{"missing or non-string \"f\""};
  op.f = f->get<std::string>();

  if (auto key = j.find("key"); key != j.end()) {
    if (!key->is_string()) return Error{"\"key\" must be a string"};
    op.key = key->get<std::string>();
  }
  if (auto value = j.find("value"); value != j.end()) op.value = *value;
  if (auto error = j.find("error"); error != j.end()) {
    if (!error->is_string()) return Error{"\"error\" must be a string"};
    op.error = error->get<std::string>();
  }
  if (auto fault = j.find("fault"); fault != j.end()) {
    auto mark = FaultMarkFromJson(*fault);
    if (!mark) return Error{mark.error()};
    op.fault = mark->ToJson();
  }
  return op;
}

namespace {

Result<nlohmann::json> ParseLineJson(std::string_view line) {
  auto j = ParseJsonInput(line);
  if (!j) {
    // The position is within the line, whose number the caller gives.
    std::string error = j.error();
    if (size_t at = error.find("line 1, column "); at != std::string::npos) error.erase(at, 8);
    return Error{error};
  }
  return j;
}

}  // namespace

Result<Op> ParseOpLine(std::string_view line) {
  auto j = ParseLineJson(line);
  if (!j) return Error{j.error()};
  return OpFromJson(*j);
}

Status ParseHistoryLine(std::string_view line, Op* op, std::optional<HistoryClosing>* closing) {
  auto j = ParseLineJson(line);
  if (!j) return Error{j.error()};
  if (j->is_object() && j->contains("closing") && !j->contains("type")) {
    auto parsed = HistoryClosingFromJson((*j)["closing"]);
    if (!parsed) return Error{parsed.error()};
    *closing = std::move(*parsed);
    return OkStatus();
  }
  auto parsed = OpFromJson(*j);
  if (!parsed) return Error{parsed.error()};
  *op = std::move(*parsed);
  return OkStatus();
}

std::string ClosingLine(const HistoryClosing& closing) {
  return nlohmann::json{{"closing", closing.ToJson()}}.dump(
      -1, ' ', false, nlohmann::json::error_handler_t::replace);
}

Result<History> ParseHistoryJsonl(std::string_view text, bool allow_truncated_tail,
                                  std::vector<SkippedLine>* skipped) {
  History history;
  std::optional<HistoryClosing> closing;  // nothing may follow it
  size_t line_no = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    const bool last_unterminated = end == std::string_view::npos;
    if (last_unterminated) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.find_first_not_of(" \t") == std::string_view::npos) continue;
    if (closing) return Error{"line " + std::to_string(line_no) + ": a line after the closing line"};
    Op op;
    Status parsed = ParseHistoryLine(line, &op, &closing);
    if (!parsed) {
      if (last_unterminated && allow_truncated_tail) {
        if (skipped != nullptr) {
          skipped->push_back(SkippedLine{static_cast<int64_t>(line_no), parsed.error()});
        }
        break;
      }
      return Error{"line " + std::to_string(line_no) + ": " + parsed.error()};
    }
    if (!closing) history.push_back(std::move(op));
  }
  return history;
}

Result<History> ReadHistoryJsonl(const std::string& path, bool allow_truncated_tail,
                                 std::vector<SkippedLine>* skipped, uint64_t max_bytes) {
  auto text = ReadInputFile(path, max_bytes, kRaiseHistoryLimit);
  if (!text) return Error{text.error()};
  auto history = ParseHistoryJsonl(*text, allow_truncated_tail, skipped);
  if (!history) return Error{path + ": " + history.error()};
  return history;
}

std::vector<int64_t> PairCompletions(const History& history) {
  std::vector<int64_t> completion_of(history.size(), -1);
  std::unordered_map<int64_t, size_t> open;  // process -> its latest invoke's position
  std::map<std::string, size_t> open_faults;  // nemesis fault mark -> invoke position
  auto mark_of = [&](size_t i) {
    const Op& op = history[i];
    return op.is_nemesis() && op.fault.is_object() ? op.fault.dump() : std::string();
  };
  for (size_t i = 0; i < history.size(); ++i) {
    const Op& op = history[i];
    const std::string mark = mark_of(i);
    if (op.type == OpType::kInvoke) {
      open[op.process] = i;
      if (!mark.empty()) open_faults[mark] = i;
      continue;
    }
    // A marked completion pairs with its window's invoke; one without a
    // mark (a history whose completions do not repeat it) with the
    // process's latest invoke.
    std::optional<size_t> invoke;
    if (auto it = open_faults.find(mark); !mark.empty() && it != open_faults.end()) {
      invoke = it->second;
    } else if (auto p = open.find(op.process); mark.empty() && p != open.end()) {
      invoke = p->second;
    }
    // A completion of another f than the open invoke is a lone op of its
    // own (a lock event: renew, lock-lost), not that invoke's completion.
    if (!invoke || history[*invoke].f != op.f) continue;
    completion_of[*invoke] = static_cast<int64_t>(i);
    if (auto p = open.find(op.process); p != open.end() && p->second == *invoke) open.erase(p);
    if (const std::string invoked = mark_of(*invoke); !invoked.empty()) {
      open_faults.erase(invoked);
    }
  }
  return completion_of;
}

}  // namespace locksmith
