// OpStream: a history's ops in order, one at a time, so that whoever reads a
// run's history (the checkers, the report's summaries, export) holds only the
// ops it keeps, not the whole history: memory that follows the keys and the
// processes of a run, not its length. A stream may be rewound for another
// pass (the linearizability checker's per-key pass, the report's anomaly
// neighbourhoods). Not thread-safe: one reader at a time.
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "base/result.h"
#include "history/history.h"

namespace locksmith {

class OpStream {
 public:
  virtual ~OpStream() = default;
  // The next op into `*op`: true; false at the end of the history; an error
  // that names where ("FILE:LINE: reason") when the history is malformed.
  virtual Result<bool> Next(Op* op) = 0;
  // Back to the first op, for another pass (the skipped lines start over).
  virtual Status Rewind() = 0;
  // What a lenient read has left out so far: a last line a crash cut short.
  virtual const std::vector<SkippedLine>& skipped() const = 0;
  // What the history says of its own end, complete once Next has said the
  // end: null for a history that has no say (Jepsen's formats, JSON lines
  // without a closing line); a run's log always has one, and its closing()
  // is empty when the run never wrote its closing record.
  virtual const HistoryEnd* end() const { return nullptr; }
};

// The ops of a history in memory (tests; `check FILE` of EDN and Jepsen
// logs, which are read whole). `history` must outlive the stream.
class HistoryOpStream : public OpStream {
 public:
  explicit HistoryOpStream(const History& history) : history_(history) {}
  Result<bool> Next(Op* op) override;
  Status Rewind() override;
  const std::vector<SkippedLine>& skipped() const override { return skipped_; }

 private:
  const History& history_;
  size_t next_ = 0;
  std::vector<SkippedLine> skipped_;
};

// A history.jsonl read line by line through a fixed buffer: the rules of
// ReadHistoryJsonl (blank lines skipped; a malformed line an error naming
// it; a final line without a newline that does not parse dropped and
// recorded in skipped() when `allow_truncated_tail`), in memory bounded by
// the longest line. A line over kMaxHistoryLineBytes is an error.
class JsonlOpStream : public OpStream {
 public:
  static inline constexpr size_t kMaxHistoryLineBytes = size_t{64} << 20;

  // A regular file (a FIFO or a device is refused: a stream is read twice,
  // and a FIFO without a writer would block).
  static Result<std::unique_ptr<JsonlOpStream>> Open(const std::string& path,
                                                     bool allow_truncated_tail = true);
  ~JsonlOpStream() override;
  JsonlOpStream(const JsonlOpStream&) = delete;
  JsonlOpStream& operator=(const JsonlOpStream&) = delete;

  Result<bool> Next(Op* op) override;
  Status Rewind() override;
  const std::vector<SkippedLine>& skipped() const override { return skipped_; }
  // Non-null only once a closing line was read (what `export` writes after
  // a run's ops): JSON lines from elsewhere have no say.
  const HistoryEnd* end() const override { return end_.closing ? &end_ : nullptr; }

 private:
  JsonlOpStream(std::FILE* file, std::string path, bool allow_truncated_tail)
      : file_(file), path_(std::move(path)), allow_truncated_tail_(allow_truncated_tail) {}

  // The next line into line_ (without its newline): false at the end.
  Result<bool> ReadLine(bool* terminated);

  std::FILE* file_;
  const std::string path_;
  const bool allow_truncated_tail_;
  int64_t line_no_ = 0;
  std::string line_;
  std::vector<SkippedLine> skipped_;
  HistoryEnd end_;
};

// Every op of `stream` from where it stands, into a History (for the
// readers that still need the whole history at once); room for
// `expected_ops` is made at once, when the reader knows how many come.
Result<History> ReadAll(OpStream& stream, size_t expected_ops = 0);

}  // namespace locksmith
