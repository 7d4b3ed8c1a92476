#include "harness/export_command.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <functional>
#include <memory>

#include "base/atomic_file.h"
#include "base/exit_codes.h"
#include "base/input_file.h"
#include "base/option_set.h"
#include "base/terminal_text.h"
#include "history/history_file.h"
#include "history/history_log.h"
#include "history/op_stream.h"

namespace locksmith {
namespace {

// Enough of a file to tell its format (DetectHistoryFormat reads lines).
constexpr size_t kHeadBytes = 64 * 1024;

// The ops of `path` one at a time: a log or JSON lines streamed, any other
// format `check FILE` reads loaded whole (kept in `*whole`).
Result<std::unique_ptr<OpStream>> OpenAnyHistory(const std::string& path, uint64_t max_bytes,
                                                 History* whole,
                                                 std::vector<SkippedLine>* skipped) {
  auto fd = OpenRegularFile(path);
  if (!fd) return Error{fd.error()};
  std::string head(kHeadBytes, '\0');
  const ssize_t n = ::pread(*fd, head.data(), head.size(), 0);
  const int read_errno = errno;
  ::close(*fd);
  if (n < 0) return Error{"cannot read " + path + ": " + std::strerror(read_errno)};
  head.resize(static_cast<size_t>(n));
  if (HasHistoryLogMagic(head) || DetectHistoryFormat(head) == HistoryFormat::kJsonl) {
    return OpenHistoryStream(path);
  }
  auto history = LoadHistoryFile(path, "", skipped, max_bytes);
  if (!history) return Error{history.error()};
  *whole = std::move(*history);
  return std::unique_ptr<OpStream>(std::make_unique<HistoryOpStream>(*whole));
}

// After a run's ops, its closing line: the log's closing record, or one
// saying the log (`source`) was cut short, so the lines never pass for a
// whole history; "" for a history with no say (Jepsen's, JSON lines from
// elsewhere).
std::string ClosingLineOf(const OpStream& stream, const std::string& source) {
  const HistoryEnd* end = stream.end();
  if (end == nullptr) return "";
  const std::string cut = end->CutShort(source);
  const HistoryClosing closing =
      cut.empty() ? *end->closing : HistoryClosing{kEndedCutShort, cut, end->ops, end->faults};
  return ClosingLine(closing) + "\n";
}

// Every op of `stream` (read from `source`) as a JSON line, then its
// closing line, each handed to `write`.
Status WriteJsonLines(OpStream& stream, const std::string& source,
                      const std::function<Status(std::string_view)>& write) {
  Op op;
  std::string line;
  for (;;) {
    auto more = stream.Next(&op);
    if (!more) return Error{more.error()};
    if (!*more) {
      const std::string closing = ClosingLineOf(stream, source);
      return closing.empty() ? OkStatus() : write(closing);
    }
    line = OpToJsonLine(op);
    line.push_back('\n');
    if (auto s = write(line); !s.ok()) return s;
  }
}

// The ops on `out` (standard output), or into the file `output`, written
// beside it under a name no one can plant a link at and renamed: never half
// a history, never through a link.
Status WriteExport(OpStream& stream, const std::string& source, const std::string& output,
                   std::ostream& out) {
  if (output.empty() || output == "-") {
    Status written = WriteJsonLines(stream, source, [&out](std::string_view line) -> Status {
      out.write(line.data(), static_cast<std::streamsize>(line.size()));
      return OkStatus();
    });
    out.flush();
    if (written && !out) return Error{"cannot write the output"};
    return written;
  }
  struct stat st {};
  if (::lstat(output.c_str(), &st) == 0 && S_ISLNK(st.st_mode)) {
    return Error{output + " is a symbolic link: refusing to write the export there (remove it, "
                 "or name the file it points to)"};
  }
  auto file = AtomicFileWriter::Create(output);
  if (!file) return Error{file.error()};
  AtomicFileWriter& writer = **file;
  if (auto s = WriteJsonLines(stream, source, [&writer](std::string_view line) {
        return writer.Write(line);
      });
      !s.ok()) {
    return s;
  }
  return writer.Commit();
}

}  // namespace

int ExportHistory(const ExportOptions& options, std::ostream& out, std::ostream& err) {
  auto bad_input = [&err](const std::string& message) {
    err << "locksmith: " << TerminalSafe(message) << "\n";
    return kExitBadInput;
  };
  if (options.format != "jsonl") {
    return bad_input("unknown export format " + QuoteInput(options.format) + " (expected jsonl)");
  }
  struct stat st {};
  if (::stat(options.input.c_str(), &st) != 0) {
    return bad_input("no such file or directory: " + options.input);
  }
  const std::string path = S_ISDIR(st.st_mode) ? RunHistoryFile(options.input) : options.input;
  History whole;
  std::vector<SkippedLine> skipped;
  auto stream = OpenAnyHistory(path, options.max_history_bytes, &whole, &skipped);
  if (!stream) return bad_input(stream.error());
  const Status written = WriteExport(**stream, path, options.output, out);
  if (!written) return bad_input(written.error());
  for (const SkippedLine& s : (*stream)->skipped()) skipped.push_back(s);
  for (const std::string& line : DescribeSkippedLines(path, skipped)) {
    err << "locksmith: warning: " << TerminalSafe(line) << "\n";
  }
  return 0;
}

}  // namespace locksmith
