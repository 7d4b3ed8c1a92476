#include "cluster/log_pump.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "base/input_file.h"

namespace locksmith {
namespace {

// A line longer than this reaches the filter in pieces.
constexpr size_t kMaxFilteredLine = 64 << 10;

void WriteAll(int fd, std::string_view data) {
  while (!data.empty()) {
    const ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // a full disk loses the log's rest, not the run
    data.remove_prefix(static_cast<size_t>(n));
  }
}

}  // namespace

struct LogPump::Stream {
  std::string path;
  int pipe = -1;  // read end
  int file = -1;
  uint64_t* head_written = nullptr;  // head_written_[path]
  bool past_head = false;
  uint64_t cut = 0;
  std::string tail;
  std::string pending;  // a line not yet whole, for the filter
};

LogPump::LogPump(Options options) : options_(std::move(options)) {
  int wake[2];
  if (::pipe2(wake, O_CLOEXEC | O_NONBLOCK) == 0) {
    wake_read_ = wake[0];
    wake_write_ = wake[1];
  }
}

LogPump::~LogPump() {
  Finish(std::chrono::milliseconds(0));
  if (wake_read_ >= 0) ::close(wake_read_);
  if (wake_write_ >= 0) ::close(wake_write_);
}

Result<int> LogPump::Add(const std::string& log_path) {
  if (wake_read_ < 0) return Error{"cannot create the log pump's pipe"};
  const int file =
      ::open(log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (file < 0) return Error{"cannot open log file " + log_path + ": " + std::strerror(errno)};
  int ends[2];
  if (::pipe2(ends, O_CLOEXEC) != 0) {
    const std::string message = std::string("cannot create a pipe: ") + std::strerror(errno);
    ::close(file);
    return Error{message};
  }
  auto stream = std::make_unique<Stream>();
  stream->path = log_path;
  stream->pipe = ends[0];
  stream->file = file;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto [it, inserted] = head_written_.try_emplace(log_path, 0);
    struct stat st {};
    if (inserted && ::fstat(file, &st) == 0) it->second = static_cast<uint64_t>(st.st_size);
    stream->head_written = &it->second;
    streams_.push_back(std::move(stream));
    if (!thread_.joinable()) thread_ = std::thread([this] { Loop(); });
  }
  Wake();
  return ends[1];
}

void LogPump::Wake() {
  const char byte = 1;
  ssize_t ignored = ::write(wake_write_, &byte, 1);  // a full pipe wakes the loop anyway
  (void)ignored;
}

void LogPump::Loop() {
  std::vector<pollfd> fds;
  std::vector<Stream*> polled;
  std::string buffer(64 << 10, '\0');
  while (true) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (stop_) return;
      fds.assign(1, pollfd{wake_read_, POLLIN, 0});
      polled.clear();
      for (auto& s : streams_) {
        fds.push_back(pollfd{s->pipe, POLLIN, 0});
        polled.push_back(s.get());
      }
    }
    if (::poll(fds.data(), fds.size(), -1) < 0) continue;  // EINTR
    if (fds[0].revents != 0) {
      while (::read(wake_read_, buffer.data(), buffer.size()) > 0) {
      }
    }
    for (size_t i = 0; i < polled.size(); ++i) {
      if (fds[i + 1].revents == 0) continue;
      Stream& stream = *polled[i];
      const ssize_t n = ::read(stream.pipe, buffer.data(), buffer.size());
      if (n > 0) {
        Pour(stream, std::string_view(buffer.data(), static_cast<size_t>(n)));
        continue;
      }
      if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
      Close(stream);  // end of output (or an error reading it)
      std::lock_guard<std::mutex> lock(mu_);
      std::erase_if(streams_, [&](const auto& s) { return s.get() == &stream; });
      if (streams_.empty()) drained_.notify_all();
    }
  }
}

void LogPump::Pour(Stream& stream, std::string_view data) {
  if (!options_.filter) {
    Emit(stream, data);
    return;
  }
  stream.pending.append(data);
  size_t start = 0;
  while (true) {
    const size_t newline = stream.pending.find('\n', start);
    if (newline == std::string::npos) break;
    Emit(stream, options_.filter(std::string_view(stream.pending).substr(start, newline + 1 - start)));
    start = newline + 1;
  }
  stream.pending.erase(0, start);
  if (stream.pending.size() > kMaxFilteredLine) {
    Emit(stream, options_.filter(stream.pending));
    stream.pending.clear();
  }
}

void LogPump::Emit(Stream& stream, std::string_view data) {
  if (!stream.past_head) {
    uint64_t& written = *stream.head_written;
    const uint64_t room = options_.head_bytes > written ? options_.head_bytes - written : 0;
    const size_t n = static_cast<size_t>(std::min<uint64_t>(room, data.size()));
    if (n > 0) {
      WriteAll(stream.file, data.substr(0, n));
      written += n;
      data.remove_prefix(n);
    }
    if (data.empty()) return;
    stream.past_head = true;
  }
  stream.tail.append(data);
  // Trimmed in batches: a flood costs a copy per tail's worth, not per write.
  if (stream.tail.size() > 2 * options_.tail_bytes) {
    const size_t drop = stream.tail.size() - options_.tail_bytes;
    stream.cut += drop;
    stream.tail.erase(0, drop);
  }
}

void LogPump::Close(Stream& stream) {
  if (!stream.pending.empty()) {
    Emit(stream, options_.filter ? options_.filter(stream.pending) : stream.pending);
    stream.pending.clear();
  }
  if (stream.tail.size() > options_.tail_bytes) {
    const size_t drop = stream.tail.size() - options_.tail_bytes;
    stream.cut += drop;
    stream.tail.erase(0, drop);
  }
  if (stream.cut > 0) {
    WriteAll(stream.file, "\n[locksmith: " + std::to_string(stream.cut) +
                              " bytes of this program's output cut here: a log keeps its first " +
                              ByteSizeText(options_.head_bytes) + " and each program's last " +
                              ByteSizeText(options_.tail_bytes) + "]\n");
  }
  WriteAll(stream.file, stream.tail);
  stream.tail.clear();
  ::close(stream.file);
  ::close(stream.pipe);
  stream.file = stream.pipe = -1;
}

void LogPump::Finish(std::chrono::milliseconds wait) {
  {
    std::unique_lock<std::mutex> lock(mu_);
    drained_.wait_for(lock, wait, [&] { return streams_.empty(); });
    stop_ = true;
  }
  Wake();
  if (thread_.joinable()) thread_.join();
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& s : streams_) Close(*s);
  streams_.clear();
  stop_ = false;
}

}  // namespace locksmith
