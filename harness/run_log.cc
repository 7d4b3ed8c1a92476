#include "harness/run_log.h"

#include "base/run_secrets.h"
#include "base/terminal_text.h"
#include "harness/progress_reporter.h"

namespace locksmith {

RunLog::~RunLog() {
  if (file_ != nullptr) std::fclose(file_);
}

bool RunLog::Open(const std::string& path, bool echo_to_stderr) {
  std::lock_guard lock(mu_);
  file_ = std::fopen(path.c_str(), "ae");
  echo_ = echo_to_stderr;
  return file_ != nullptr;
}

void RunLog::Write(const char* level, const std::string& raw_message) {
  // Messages carry servers' replies, keys and paths: one line each,
  // nothing a terminal (or `cat locksmith.log`) would act on, and no secret.
  const std::string message = TerminalSafe(RedactRunSecrets(raw_message));
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  std::lock_guard lock(mu_);
  if (file_ != nullptr) {
    std::fprintf(file_, "%9.3f %s %s\n", elapsed, level, message.c_str());
    std::fflush(file_);
  }
  if (echo_ || file_ == nullptr) {
    char stamp[32];
    std::snprintf(stamp, sizeof stamp, "%9.3f ", elapsed);
    // Above the live progress line, when one is drawn.
    ProgressReporter::WriteAboveStatus(stamp + std::string(level) + " " + message);
  }
}

}  // namespace locksmith
