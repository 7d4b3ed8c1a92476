#include "harness/export_command.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>

#include "base/exit_codes.h"
#include "base/input_file.h"
#include "base/option_set.h"
#include "base/terminal_text.h"
#include "checker/history_file.h"
#include "checker/history_log.h"
#include "checker/op_stream.h"

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

// Every op of `stream` as a JSON line on `out`.
Status WriteJsonLines(OpStream& stream, std::ostream& out) {
  Op op;
  std::string line;
  for (;;) {
    auto more = stream.Next(&op);
    if (!more) return Error{more.error()};
    if (!*more) return OkStatus();
    line = OpToJsonLine(op);
    line.push_back('\n');
    out.write(line.data(), static_cast<std::streamsize>(line.size()));
  }
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
  const bool to_stdout = options.output.empty() || options.output == "-";
  // A file is written beside its name and renamed: never half a history.
  const std::string temp = options.output + ".tmp-" + std::to_string(::getpid());
  std::ofstream file;
  if (!to_stdout) {
    file.open(temp, std::ios::binary | std::ios::trunc);
    if (!file) return bad_input("cannot write " + options.output + ": " + std::strerror(errno));
  }
  std::ostream& sink = to_stdout ? out : file;
  Status written = WriteJsonLines(**stream, sink);
  sink.flush();
  if (written && !sink) {
    written = Error{"cannot write " + (to_stdout ? std::string("the output") : options.output)};
  }
  if (!to_stdout) {
    file.close();
    if (written && std::rename(temp.c_str(), options.output.c_str()) != 0) {
      written = Error{"cannot write " + options.output + ": " + std::strerror(errno)};
    }
    if (!written) std::remove(temp.c_str());
  }
  if (!written) return bad_input(written.error());
  for (const SkippedLine& s : (*stream)->skipped()) skipped.push_back(s);
  for (const std::string& line : DescribeSkippedLines(path, skipped)) {
    err << "locksmith: warning: " << TerminalSafe(line) << "\n";
  }
  return 0;
}

}  // namespace locksmith
