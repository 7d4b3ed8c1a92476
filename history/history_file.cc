#include "history/history_file.h"

#include "base/input_file.h"
#include "history/history_log.h"
#include "history/jepsen_import.h"

namespace locksmith {
namespace {

constexpr std::string_view kJepsenLogger = "jepsen.util";
// A log usually opens with other loggers' lines; this many lines are enough
// to find the first op line without reading a huge non-log file.
constexpr size_t kDetectLines = 500;

// ParseHistoryJsonl says "line N: reason"; the CLI wants "FILE:N: reason".
std::string RelocateJsonlError(const std::string& message, const std::string& source) {
  constexpr std::string_view kPrefix = "line ";
  if (message.rfind(kPrefix, 0) == 0) {
    const size_t colon = message.find(':');
    if (colon != std::string::npos) {
      return source + ":" + message.substr(kPrefix.size(), colon - kPrefix.size()) +
             message.substr(colon);
    }
  }
  return source + ": " + message;
}

}  // namespace

Result<HistoryFormat> ParseHistoryFormat(std::string_view name) {
  if (name == "edn") return HistoryFormat::kEdn;
  if (name == "jepsen-log") return HistoryFormat::kJepsenLog;
  if (name == "jsonl") return HistoryFormat::kJsonl;
  return Error{"unknown history format \"" + std::string(name) +
               "\" (expected edn, jepsen-log or jsonl)"};
}

std::string_view HistoryFormatName(HistoryFormat format) {
  switch (format) {
    case HistoryFormat::kEdn: return "edn";
    case HistoryFormat::kJepsenLog: return "jepsen-log";
    case HistoryFormat::kJsonl: return "jsonl";
  }
  return "?";
}

std::optional<HistoryFormat> DetectHistoryFormat(std::string_view text) {
  size_t pos = 0;
  size_t lines = 0;
  bool first_content = true;
  while (pos < text.size() && lines < kDetectLines) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++lines;
    const size_t start = line.find_first_not_of(" \t\r,");
    if (start == std::string_view::npos) continue;
    line.remove_prefix(start);
    if (line.find(kJepsenLogger) != std::string_view::npos && line[0] != '{' &&
        line[0] != '[' && line[0] != '(') {
      return HistoryFormat::kJepsenLog;
    }
    if (line[0] == ';') continue;  // an EDN comment
    if (first_content) {
      first_content = false;
      if (line[0] == '{') {
        const size_t next = line.find_first_not_of(" \t", 1);
        if (next != std::string_view::npos && line[next] == '"') return HistoryFormat::kJsonl;
        return HistoryFormat::kEdn;
      }
      if (line[0] == '[' || line[0] == '(' || line[0] == '#') return HistoryFormat::kEdn;
    }
  }
  if (first_content) return HistoryFormat::kEdn;  // nothing but blanks and comments
  return std::nullopt;
}

Result<History> ParseHistoryText(std::string_view text, const std::string& format,
                                 const std::string& source, std::vector<SkippedLine>* skipped) {
  HistoryFormat parsed;
  if (format.empty()) {
    auto detected = DetectHistoryFormat(text);
    if (!detected) {
      return Error{source +
                   ": cannot tell the history format (expected Jepsen EDN, jepsen.util log "
                   "lines or history.jsonl; name it with --format edn|jepsen-log|jsonl)"};
    }
    parsed = *detected;
  } else {
    auto named = ParseHistoryFormat(format);
    if (!named) return Error{named.error()};
    parsed = *named;
  }
  switch (parsed) {
    case HistoryFormat::kEdn: return ParseJepsenEdnHistory(text, source);
    case HistoryFormat::kJepsenLog: return ParseJepsenLogHistory(text, source);
    case HistoryFormat::kJsonl: {
      auto history = ParseHistoryJsonl(text, /*allow_truncated_tail=*/true, skipped);
      if (!history) return Error{RelocateJsonlError(history.error(), source)};
      return history;
    }
  }
  return Error{"unreachable history format"};
}

Result<History> LoadHistoryFile(const std::string& path, const std::string& format,
                                std::vector<SkippedLine>* skipped, uint64_t max_bytes) {
  auto text = ReadInputFile(path, max_bytes, kRaiseHistoryLimit);
  if (!text) return Error{text.error()};
  // A run's history log, by its magic (no text format starts with it).
  if (HasHistoryLogMagic(*text)) return ParseHistoryLog(std::move(*text), path, skipped);
  return ParseHistoryText(*text, format, path, skipped);
}

std::vector<std::string> DescribeSkippedLines(const std::string& source,
                                              const std::vector<SkippedLine>& skipped) {
  std::vector<std::string> lines;
  for (const SkippedLine& s : skipped) {
    if (s.record) {
      lines.push_back(source + ": record " + std::to_string(s.line) +
                      ": skipped 1 record: the last record is cut short, as when a crash cuts "
                      "a write short");
      continue;
    }
    lines.push_back(source + ":" + std::to_string(s.line) +
                    ": skipped 1 line: the last line has no newline and is not a whole op (" +
                    s.reason + "), as when a crash cuts a write short");
  }
  return lines;
}

}  // namespace locksmith
