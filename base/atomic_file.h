// WriteFileAtomically: the one way the project replaces a file it writes
// (results, reports, indexes, run records, config.json, exports). Readers
// see the old file or the new one, never a part. The temporary file has a
// random name in the target's directory (two runs sharing a store never
// collide) and is created exclusively (O_EXCL), so a link planted under a
// predictable name is never followed; the rename then replaces a link at
// `path` itself rather than writing through it. AtomicFileWriter is the
// same for a file written in pieces (an export of any size). Thread-safe
// (no shared state); one AtomicFileWriter belongs to one thread.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "base/result.h"

namespace locksmith {

// Writes `content` to a new file beside `path`, then renames it over
// `path`. Mode 0644 (0600 with `private_file`). On any failure the
// temporary file is removed and the error names the file and the reason.
Status WriteFileAtomically(const std::string& path, std::string_view content,
                           bool private_file = false);

class AtomicFileWriter {
 public:
  // Creates the temporary file beside `path` (mode as WriteFileAtomically's).
  static Result<std::unique_ptr<AtomicFileWriter>> Create(const std::string& path,
                                                          bool private_file = false);
  ~AtomicFileWriter();  // without a Commit, the temporary file is removed
  AtomicFileWriter(const AtomicFileWriter&) = delete;
  AtomicFileWriter& operator=(const AtomicFileWriter&) = delete;

  // Appends (buffered); an error names the file and the reason.
  Status Write(std::string_view data);
  // Writes what is buffered and renames the file over `path`.
  Status Commit();

 private:
  AtomicFileWriter(std::string path, std::string temp, int fd);
  Status Flush();

  const std::string path_;
  const std::string temp_;
  int fd_;
  bool committed_ = false;
  std::string buffer_;
};

}  // namespace locksmith
