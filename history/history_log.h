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
#include "history/history.h"
#include "history/log_extent.h"
#include "history/op_stream.h"

namespace locksmith {

// The file's first bytes: "LKSMHST" and the format's version. Version 2
// ends a log with a closing record; version 1 (runs before it) has none, is
// read all the same, and is never whole.
inline constexpr std::string_view kHistoryLogMagic{"LKSMHST\x02", 8};
inline constexpr std::string_view kHistoryLogMagicV1{"LKSMHST\x01", 8};

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
  // Appends the closing record: `closing`'s ended and detail, with the ops
  // and fault windows this encoder has encoded (its own counts replace
  // closing's). Nothing may follow it.
  void EncodeClosing(HistoryClosing closing, std::string* out);
  int64_t ops() const { return ops_; }
  int64_t faults() const { return faults_; }

 private:
  // Appends the reference to `s` to `*payload`, defining it first in `*out`
  // when it is new and worth a number.
  void AppendString(const std::string& s, std::string* payload, std::string* out);

  // Appends `payload` framed: its length, itself, its CRC.
  static void AppendRecord(std::string_view payload, std::string* out);

  int64_t last_index_ = 0;
  int64_t last_time_ = 0;
  int64_t ops_ = 0;
  int64_t faults_ = 0;
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
  // once; a file too short to hold it is an error too. With `extent`, the
  // file is one its writer is still appending: the stream reads no byte past
  // extent's, waits for more where it has read them all, and ends only once
  // the extent is sealed (the magic too is waited for).
  static Result<std::unique_ptr<HistoryLogStream>> Open(
      const std::string& path, bool allow_truncated_tail = true,
      std::shared_ptr<const LogExtent> extent = nullptr);
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
  // Never null: a log of version 1, or one cut short, has no closing().
  const HistoryEnd* end() const override { return &end_; }

 private:
  HistoryLogStream(std::FILE* file, std::string bytes, std::string source, bool allow_tail,
                   std::shared_ptr<const LogExtent> extent);
  // How many more bytes of the file the stream may read now, at most `want`:
  // waits while the writer has written none past what was read; 0 at the end.
  size_t Readable(size_t want) const;

  // Makes at least `n` unread bytes available in buffer_: false at the end
  // of the file before that.
  Result<bool> Have(size_t n);
  // The next record's payload into payload_: false at the end (or at a
  // torn last record, which is then skipped).
  Result<bool> NextRecord();
  // Decodes payload_ as a string definition, an op or the closing record:
  // true when it was an op.
  Result<bool> Decode(Op* op);
  Status DecodeClosing(std::string_view json);
  // The string a reference names (inline or defined) into `*text`; its
  // place in strings_ into `*table_index` (kNotInTable: inline or empty).
  static constexpr size_t kNotInTable = SIZE_MAX;
  Status ReadString(PayloadReader& in, std::string_view* text,
                    size_t* table_index = nullptr) const;
  Error Corrupt(const std::string& reason) const;

  std::FILE* file_;  // null: the bytes are all in buffer_
  const std::shared_ptr<const LogExtent> extent_;  // null: the file is complete
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
  int version_ = 2;
  HistoryEnd end_;
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
