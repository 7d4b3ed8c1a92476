// LogPump: the capped logs of programs that are not ours (exec lock
// clients). A program's stderr (and stdout, when it is not a pipe of the
// caller's) goes into a pipe that one thread of the pump reads and appends
// to the program's log file, so a program that floods its stderr (one wrote
// 2.9 GB in 4 s) cannot fill the disk: a log file gets at most `head_bytes`
// as they come; past that, each program's last `tail_bytes` are kept in
// memory and written, after a note of how many bytes were cut, once its pipe
// closes (the program and all that shares its output have exited) or the
// pump finishes. A log written again by a program started anew (the same
// path) shares its head. A filter may rewrite each line before it is
// written (redacting secrets); lines longer than 64 KiB reach it in pieces.
//
// Thread-safe: Add and Finish may be called from any thread.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "base/result.h"

namespace locksmith {

// What a contained program's log keeps: its first 15 MiB, then each
// program's last 1 MiB (docs/running.md says so).
inline constexpr uint64_t kContainedLogHeadBytes = 15 << 20;
inline constexpr uint64_t kContainedLogTailBytes = 1 << 20;

// Rewrites one line of a program's log (newline included) before it is
// written; the hook for redacting secrets.
using LogLineFilter = std::function<std::string(std::string_view line)>;

class LogPump {
 public:
  struct Options {
    uint64_t head_bytes = kContainedLogHeadBytes;
    uint64_t tail_bytes = kContainedLogTailBytes;
    LogLineFilter filter;  // null: lines as they are
  };

  explicit LogPump(Options options);
  ~LogPump();  // Finish(0)
  LogPump(const LogPump&) = delete;
  LogPump& operator=(const LogPump&) = delete;

  // Opens `log_path` for appending (created 0600, never through a symbolic
  // link) and a pipe into it; returns the pipe's write end, close-on-exec,
  // which the caller hands to the program and then closes.
  Result<int> Add(const std::string& log_path);

  // Waits up to `wait` for every pipe to close, then writes what each kept
  // and closes them; later Adds start the pump again.
  void Finish(std::chrono::milliseconds wait);

 private:
  struct Stream;

  void Loop();
  void Pour(Stream& stream, std::string_view data);  // through the filter
  void Emit(Stream& stream, std::string_view data);  // head, then tail
  void Close(Stream& stream);
  void Wake();

  const Options options_;
  std::mutex mu_;
  std::condition_variable drained_;
  std::vector<std::unique_ptr<Stream>> streams_;
  std::map<std::string, uint64_t> head_written_;  // by log path
  bool stop_ = false;
  int wake_read_ = -1;
  int wake_write_ = -1;
  std::thread thread_;
};

}  // namespace locksmith
