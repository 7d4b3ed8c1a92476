// RunLog: the run's log, locksmith.log in the run directory, also echoed to
// stderr when verbose. Every line is "elapsed-seconds LEVEL message", the
// message's control characters escaped (base/terminal_text.h) and the
// run's secrets redacted (base/run_secrets.h).
// Thread-safe.
#pragma once

#include <chrono>
#include <cstdio>
#include <mutex>
#include <string>

namespace locksmith {

class RunLog {
 public:
  RunLog() = default;
  ~RunLog();
  RunLog(const RunLog&) = delete;
  RunLog& operator=(const RunLog&) = delete;

  // Opens the file (append). Until then, lines go to stderr only.
  bool Open(const std::string& path, bool echo_to_stderr);
  void Info(const std::string& message) { Write("INFO ", message); }
  void Warn(const std::string& message) { Write("WARN ", message); }
  void Error(const std::string& message) { Write("ERROR", message); }

 private:
  void Write(const char* level, const std::string& message);

  std::mutex mu_;
  std::FILE* file_ = nullptr;
  bool echo_ = true;
  const std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

}  // namespace locksmith
