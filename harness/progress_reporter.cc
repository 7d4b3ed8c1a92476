#include "harness/progress_reporter.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "harness/progress_line.h"

namespace locksmith {
namespace {

using Clock = std::chrono::steady_clock;

// The one status line of the process (one run at a time draws it).
struct StatusLine {
  std::mutex mu;
  std::string drawn;  // empty: nothing on screen
};
StatusLine& TheStatusLine() {
  static StatusLine line;
  return line;
}

size_t TerminalColumns() {
  winsize ws{};
  if (::ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return ws.ws_col;
  return 80;
}

// "\r" to the line's start, the text, then erase what an older, longer one left.
void Draw(const std::string& text) {
  std::fprintf(stderr, "\r%s\x1b[K", text.c_str());
  std::fflush(stderr);
}

}  // namespace

bool ProgressReporter::StderrIsTerminal() {
  const char* term = std::getenv("TERM");
  return ::isatty(STDERR_FILENO) == 1 && (term == nullptr || std::strcmp(term, "dumb") != 0);
}

void ProgressReporter::WriteAboveStatus(const std::string& line) {
  StatusLine& status = TheStatusLine();
  std::lock_guard lock(status.mu);
  if (status.drawn.empty()) {
    std::fprintf(stderr, "%s\n", line.c_str());
    return;
  }
  std::fprintf(stderr, "\r\x1b[K%s\n", line.c_str());
  Draw(status.drawn);
}

ProgressReporter::ProgressReporter(const ProgressCounter& counter, Options options)
    : counter_(counter), options_(std::move(options)) {
  thread_ = std::thread([this] { Loop(); });
}

ProgressReporter::~ProgressReporter() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  wake_.notify_all();
  thread_.join();
  if (options_.terminal) {
    StatusLine& status = TheStatusLine();
    std::lock_guard lock(status.mu);
    if (!status.drawn.empty()) {
      std::fprintf(stderr, "\r\x1b[K");
      std::fflush(stderr);
      status.drawn.clear();
    }
  }
}

std::string ProgressReporter::Line(double ops_per_s) const {
  ProgressLine line;
  line.label = options_.label;
  line.elapsed_s = std::chrono::duration<double>(Clock::now() - options_.start).count();
  line.limit_s = options_.limit_s;
  line.ops_per_s = ops_per_s;
  line.counts = counter_.Take();
  return line.Format(options_.terminal ? TerminalColumns() - 1 : 0);
}

void ProgressReporter::Loop() {
  int64_t last_ops = counter_.Take().completions();
  Clock::time_point last = Clock::now();
  std::unique_lock lock(mu_);
  while (!wake_.wait_for(lock, options_.interval, [this] { return stop_; })) {
    const Clock::time_point now = Clock::now();
    const int64_t ops = counter_.Take().completions();
    const double seconds = std::chrono::duration<double>(now - last).count();
    const double rate = seconds > 0 ? static_cast<double>(ops - last_ops) / seconds : 0;
    last_ops = ops;
    last = now;
    const std::string text = Line(rate);
    if (!options_.terminal) {
      if (options_.plain) options_.plain("progress: " + text);
      continue;
    }
    StatusLine& status = TheStatusLine();
    std::lock_guard draw_lock(status.mu);
    status.drawn = text;
    Draw(text);
  }
}

}  // namespace locksmith
