#include "history/op_stream.h"


#include <cerrno>
#include <cstring>

#include "base/input_file.h"

namespace locksmith {

Result<bool> HistoryOpStream::Next(Op* op) {
  if (next_ >= history_.size()) return false;
  *op = history_[next_++];
  return true;
}

Status HistoryOpStream::Rewind() {
  next_ = 0;
  return OkStatus();
}

Result<std::unique_ptr<JsonlOpStream>> JsonlOpStream::Open(const std::string& path,
                                                           bool allow_truncated_tail) {
  auto opened = OpenRegularFileStream(path);
  if (!opened) return Error{opened.error()};
  std::FILE* file = *opened;
  return std::unique_ptr<JsonlOpStream>(new JsonlOpStream(file, path, allow_truncated_tail));
}

JsonlOpStream::~JsonlOpStream() { std::fclose(file_); }

Result<bool> JsonlOpStream::ReadLine(bool* terminated) {
  line_.clear();
  *terminated = false;
  char buf[64 * 1024];
  while (std::fgets(buf, sizeof buf, file_) != nullptr) {
    const size_t n = std::strlen(buf);
    // A NUL byte inside the line shortens what fgets reports; the JSON
    // parser refuses the line as it would have anyway.
    if (n > 0 && buf[n - 1] == '\n') {
      line_.append(buf, n - 1);
      *terminated = true;
      return true;
    }
    line_.append(buf, n);
    if (line_.size() > kMaxHistoryLineBytes) {
      return Error{path_ + ":" + std::to_string(line_no_ + 1) + ": a line over " +
                   std::to_string(kMaxHistoryLineBytes >> 20) + " MiB"};
    }
  }
  if (std::ferror(file_)) return Error{"cannot read " + path_ + ": " + std::strerror(errno)};
  return !line_.empty();
}

Result<bool> JsonlOpStream::Next(Op* op) {
  for (;;) {
    bool terminated = false;
    auto more = ReadLine(&terminated);
    if (!more) return Error{more.error()};
    if (!*more) return false;
    ++line_no_;
    std::string_view line = line_;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.find_first_not_of(" \t") == std::string_view::npos) continue;
    if (end_.closing) {
      return Error{path_ + ":" + std::to_string(line_no_) + ": a line after the closing line"};
    }
    Status parsed = ParseHistoryLine(line, op, &end_.closing);
    if (parsed) {
      end_.records = line_no_;
      if (end_.closing) continue;
      ++end_.ops;
      if (BeginsFaultWindow(*op)) ++end_.faults;
      return true;
    }
    if (!terminated && allow_truncated_tail_) {
      skipped_.push_back(SkippedLine{line_no_, parsed.error()});
      return false;
    }
    return Error{path_ + ":" + std::to_string(line_no_) + ": " + parsed.error()};
  }
}

Status JsonlOpStream::Rewind() {
  if (std::fseek(file_, 0, SEEK_SET) != 0) {
    return Error{"cannot rewind " + path_ + ": " + std::strerror(errno)};
  }
  std::clearerr(file_);
  line_no_ = 0;
  skipped_.clear();
  end_ = HistoryEnd{};
  return OkStatus();
}

Result<History> ReadAll(OpStream& stream, size_t expected_ops) {
  History history;
  history.reserve(expected_ops);
  Op op;
  for (;;) {
    auto more = stream.Next(&op);
    if (!more) return Error{more.error()};
    if (!*more) return history;
    history.push_back(std::move(op));
  }
}

}  // namespace locksmith
