// The compact history log a run records (history.bin, docs/history-format.md):
// an 8-byte magic, then framed records (a varint payload length, the
// payload, a CRC-32C of the payload), each either a string definition (keys,
// f names and errors are written once and named by number after) or one op
// (varint deltas of index and time, the process, interned strings, and the
// value and fault mark as JSON text only when present). A crash cuts at most
// the last record short: the reader drops it and says so through skipped(),
// as it does a history.jsonl's last line. history.jsonl stays the
// interchange format: `locksmith export` writes it from a log.
// HistoryLogEncoder is not thread-safe (the recorder's writer thread owns
// one); HistoryLogStream is one reader at a time, as every OpStream.
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/result.h"
#include "checker/history.h"
#include "checker/op_stream.h"

namespace locksmith {

// The file's first bytes: "LKSMHST" and the format's version.
inline constexpr std::string_view kHistoryLogMagic{"LKSMHST\x01", 8};

// The log's name in a run directory.
inline constexpr char kRunHistoryLog[] = "history.bin";

// Whether `prefix` (a file's first bytes) opens a history log, of any
// version (a reader says when it is not the version it reads).
bool HasHistoryLogMagic(std::string_view prefix);

// Turns ops into records. A file is kHistoryLogMagic, then the records of
// one encoder (string numbers are the encoder's own).
class HistoryLogEncoder {
 public:
  // Appends `op`'s records (the definitions of strings it is the first to
  // use, then the op itself) to `*out`.
  void Encode(const Op& op, std::string* out);

 private:
  // Appends the reference to `s` to `*payload`, defining it first in `*out`
  // when it is new and worth a number.
  void AppendString(const std::string& s, std::string* payload, std::string* out);

  int64_t last_index_ = 0;
  int64_t last_time_ = 0;
  std::unordered_map<std::string, uint64_t> ids_;
  std::unordered_map<std::string, std::string> last_values_;  // f -> its last invoke's value
  std::string payload_;  // reused between ops
  std::string text_;     // a value's text, reused between ops
};

// A history log read record by record through a fixed buffer: memory
// bounded by the largest record and the interned strings, not the ops.
class PayloadReader;

class HistoryLogStream : public OpStream {
 public:
  // The largest record read (a value of megabytes is already odd).
  static inline constexpr uint64_t kMaxRecordBytes = uint64_t{64} << 20;

  // A regular file (a FIFO or a device is refused). Its magic is checked at
  // once; a file too short to hold it is an error too.
  static Result<std::unique_ptr<HistoryLogStream>> Open(const std::string& path,
                                                        bool allow_truncated_tail = true);
  // The same over bytes already in memory; `source` names them in errors.
  static Result<std::unique_ptr<HistoryLogStream>> FromBytes(std::string bytes,
                                                             std::string source,
                                                             bool allow_truncated_tail = true);
  ~HistoryLogStream() override;
  HistoryLogStream(const HistoryLogStream&) = delete;
  HistoryLogStream& operator=(const HistoryLogStream&) = delete;

  // Errors read "SOURCE: record N (byte B): reason".
  Result<bool> Next(Op* op) override;
  Status Rewind() override;
  // SkippedLine::line is the record's number, from 1.
  const std::vector<SkippedLine>& skipped() const override { return skipped_; }

 private:
  HistoryLogStream(std::FILE* file, std::string bytes, std::string source, bool allow_tail);

  // Makes at least `n` unread bytes available in buffer_: false at the end
  // of the file before that.
  Result<bool> Have(size_t n);
  // The next record's payload into payload_: false at the end (or at a
  // torn last record, which is then skipped).
  Result<bool> NextRecord();
  // Decodes payload_ as a string definition or an op: true when it was an op.
  Result<bool> Decode(Op* op);
  // The string a reference names (inline or defined) into `*text`; its
  // place in strings_ into `*table_index` (kNotInTable: inline or empty).
  static constexpr size_t kNotInTable = SIZE_MAX;
  Status ReadString(PayloadReader& in, std::string_view* text,
                    size_t* table_index = nullptr) const;
  Error Corrupt(const std::string& reason) const;

  std::FILE* file_;  // null: the bytes are all in buffer_
  std::string buffer_;
  size_t pos_ = 0;       // the next unread byte of buffer_
  uint64_t offset_ = 0;  // the file offset of buffer_[pos_]
  const std::string source_;
  const bool allow_truncated_tail_;
  int64_t record_no_ = 0;
  uint64_t record_offset_ = 0;
  std::string payload_;
  int64_t last_index_ = 0;
  int64_t last_time_ = 0;
  std::vector<std::string> strings_;
  // Values parsed from strings_[i], discarded where none was yet.
  std::vector<nlohmann::json> values_;
  std::vector<SkippedLine> skipped_;
};

// Every op of the log in `bytes` (LoadHistoryFile's way in).
Result<History> ParseHistoryLog(std::string bytes, const std::string& source,
                                std::vector<SkippedLine>* skipped = nullptr);

// The history at `path`, as a stream: a history log by its magic, otherwise
// history.jsonl. For the readers of a run's history.
Result<std::unique_ptr<OpStream>> OpenHistoryStream(const std::string& path);

// A run directory's history file: history.bin when the run recorded one,
// otherwise history.jsonl (runs recorded before the log, or histories put
// there by hand).
std::string RunHistoryFile(const std::string& run_dir);

// A run directory's whole history, from RunHistoryFile: ReadHistoryJsonl's
// rules and errors for a history.jsonl, ParseHistoryLog's for a log; a file
// over `max_bytes` is an error.
Result<History> ReadRunHistory(const std::string& run_dir, std::vector<SkippedLine>* skipped,
                               uint64_t max_bytes);

}  // namespace locksmith
