#include "backends/exec_lock_client.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <optional>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/read_until.hpp>
#include <boost/asio/streambuf.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "backends/task_group.h"
#include "cluster/host.h"
#include "cluster/process_supervisor.h"

namespace locksmith {
namespace asio = boost::asio;
using namespace std::chrono_literals;

// One start of the program. The read loop keeps it alive after the client
// moved on to a new start (or was destroyed): once `ended`, nothing touches
// the client.
struct ExecLockClient::Program {
  explicit Program(const asio::any_io_executor& executor) : in(executor), out(executor) {}
  asio::posix::stream_descriptor in;   // the program's stdin: requests
  asio::posix::stream_descriptor out;  // its stdout: replies and events
  int pid = -1;
  bool ended = false;
  std::map<int64_t, Pending*> pending;
  bool answered_hello = false;   // its handshake reply came
  bool sends_lock_lost = false;  // ... saying "lock_lost": true
  int events_since_request = 0;  // events since the last request was written
};

// A request waiting for its reply; `signal` fires (cancelled) when the reply
// or the program's end arrives, or at the deadline (expired).
struct ExecLockClient::Pending {
  explicit Pending(const asio::any_io_executor& executor) : signal(executor) {}
  asio::steady_timer signal;
  std::optional<nlohmann::json> reply;
  std::string error;
  int64_t sent_ns = 0;
  int64_t read_ns = 0;
};

namespace {

// steady_clock's reading in ns: libstdc++ reads CLOCK_MONOTONIC, the clock
// a program's "validity_at_ns" reads.
int64_t SteadyNowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

struct PipePair {
  int read = -1;
  int write = -1;
};

Result<PipePair> OpenPipe() {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) {
    return Error{std::string("cannot create a pipe: ") + std::strerror(errno)};
  }
  return PipePair{fds[0], fds[1]};
}

void CloseQuietly(asio::posix::stream_descriptor& d) {
  boost::system::error_code ignored;
  d.close(ignored);
}

}  // namespace

ExecLockClient::ExecLockClient(asio::any_io_executor executor, ProcessSupervisor& supervisor,
                               ExecClientOptions options)
    : executor_(std::move(executor)),
      supervisor_(supervisor),
      options_(std::move(options)),
      owner_("client-" + std::to_string(options_.index)),
      backoff_rng_(options_.seed) {}

ExecLockClient::~ExecLockClient() { Close(); }

std::string ExecLockClient::Name() const {
  std::string name = "exec client " + options_.argv.front();
  if (program_ && program_->pid > 0) name += " (pid " + std::to_string(program_->pid) + ")";
  return name + " of client " + std::to_string(options_.index);
}

Result<int> ExecLockClient::SpawnProgram(const ProcessSpec& spec) {
  if (options_.host != nullptr) return options_.host->Spawn(spec);
  return supervisor_.Spawn(owner_, spec, "", "/");
}

Status ExecLockClient::SignalProgram(int pid, int signal) {
  if (options_.host != nullptr) return options_.host->Signal(pid, signal);
  return supervisor_.Signal(owner_, pid, signal);
}

void ExecLockClient::KillProgram(int pid) {
  if (options_.host != nullptr) {
    (void)options_.host->Kill(pid);
  } else {
    (void)supervisor_.Kill(owner_, pid);
  }
}

int ExecLockClient::pid() const { return program_ && !program_->ended ? program_->pid : -1; }

asio::awaitable<Status> ExecLockClient::Connect() {
  // Handshaken already (ExecClients::Start, before the workload): a program
  // that ended since is started again by the next op, as after any info.
  if (handshaken_) co_return OkStatus();
  if (!program_) {
    if (Status launched = Launch(); !launched) co_return launched;
  }
  co_return co_await AwaitHello();
}

asio::awaitable<Status> ExecLockClient::Start() {
  if (Status launched = Launch(); !launched) co_return launched;
  co_return co_await AwaitHello();
}

Status ExecLockClient::Launch() {
  auto to_program = OpenPipe();
  if (!to_program) return Error{Name() + ": " + to_program.error()};
  auto from_program = OpenPipe();
  if (!from_program) {
    close(to_program->read);
    close(to_program->write);
    return Error{Name() + ": " + from_program.error()};
  }
  ProcessSpec spec{options_.argv, {}, options_.log_path, ""};
  if (!options_.env_path.empty()) spec.env.push_back("PATH=" + options_.env_path);
  spec.stdin_fd = to_program->read;
  spec.stdout_fd = from_program->write;
  auto pid = SpawnProgram(spec);
  close(to_program->read);
  close(from_program->write);
  auto program = std::make_shared<Program>(executor_);
  program->in.assign(to_program->write);
  program->out.assign(from_program->read);
  if (!pid) return Error{Name() + ": " + pid.error()};
  program->pid = *pid;
  program_ = program;
  handshaken_ = false;
  ++starts_;
  BackgroundTasks(executor_).Spawn(owner_ + " reader", ReadLines(program));
  hello_pending_ = std::make_unique<Pending>(executor_);
  Status sent = Send(*program,
                     ExecHelloRequest(options_.facts, options_.index, options_.source_address),
                     0, *hello_pending_, options_.start_timeout);
  if (!sent) hello_pending_->error = sent.error();
  return sent;
}

asio::awaitable<Status> ExecLockClient::AwaitHello() {
  std::shared_ptr<Program> program = program_;
  Reply reply = co_await Await(program, *hello_pending_, 0, "hello", options_.start_timeout);
  if (!reply.error.empty()) co_return Error{reply.error};
  auto hello = DecodeHelloReply(reply.body);
  if (!hello) {
    co_return Error{Misbehaved(*program, "answered the handshake wrongly: " + hello.error())};
  }
  if (options_.fencing && !hello->capabilities.fence) {
    End(*program, "stopped: --fencing on");
    co_return Error{"--fencing on: " + Name() + " (" + hello->name +
                    ") gives no fencing token (its capabilities say \"fence\": false)"};
  }
  hello_ = std::move(*hello);
  handshaken_ = true;
  co_return OkStatus();
}

asio::awaitable<ExecLockClient::Reply> ExecLockClient::Call(ExecRequest request,
                                                            std::chrono::milliseconds deadline) {
  if (closed_) co_return Reply{nullptr, "the client is closed", false, nullptr, 0};
  if (!program_ || program_->ended) {
    if (Status started = co_await Start(); !started) {
      co_return Reply{nullptr, started.error(), false, nullptr, 0};
    }
  }
  request.id = next_id_++;
  co_return co_await Exchange(program_, ExecRequestJson(request), request.id, deadline);
}

asio::awaitable<ExecLockClient::Reply> ExecLockClient::Exchange(
    std::shared_ptr<Program> program, const nlohmann::json& message, int64_t id,
    std::chrono::milliseconds deadline) {
  Pending pending(executor_);
  if (Status sent = Send(*program, message, id, pending, deadline); !sent) {
    co_return Reply{nullptr, sent.error(), false, program, id};
  }
  co_return co_await Await(program, pending, id, message.value("op", ""), deadline);
}

Status ExecLockClient::Send(Program& program, const nlohmann::json& message, int64_t id,
                            Pending& pending, std::chrono::milliseconds deadline) {
  const std::string line =
      message.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  // The write never waits: a request fits a pipe that is empty but for
  // what the program has not read yet; one that stops reading its input
  // is a program that misbehaves.
  // Before the write: the program may reckon a validity as soon as it reads.
  pending.sent_ns = SteadyNowNs();
  boost::system::error_code ec;
  program.in.non_blocking(true, ec);
  const size_t written = ec ? 0 : program.in.write_some(asio::buffer(line), ec);
  if (ec || written != line.size()) {
    const std::string why = ec == asio::error::broken_pipe
                                ? std::string("exited")
                                : "does not read its input (" +
                                      (ec ? ec.message() : std::string("a short write")) + ")";
    return Error{Misbehaved(program, why + " before " + message.value("op", "") + " " +
                                         std::to_string(id))};
  }
  pending.signal.expires_after(deadline);
  program.pending[id] = &pending;
  program.events_since_request = 0;
  return OkStatus();
}

asio::awaitable<ExecLockClient::Reply> ExecLockClient::Await(std::shared_ptr<Program> program,
                                                             Pending& pending, int64_t id,
                                                             const std::string& op,
                                                             std::chrono::milliseconds deadline) {
  Reply out{nullptr, "", true, program, id, pending.sent_ns, 0};
  // The reply (or the program's end) may have come before anyone waited.
  if (!pending.reply && pending.error.empty()) {
    auto [wait_ec] = co_await pending.signal.async_wait(asio::as_tuple(asio::use_awaitable));
    (void)wait_ec;
  }
  program->pending.erase(id);
  if (pending.reply) {
    out.body = std::move(*pending.reply);
    out.read_ns = pending.read_ns;
  } else if (!pending.error.empty()) {
    out.error = pending.error;
  } else {
    out.error = TimedOut(*program, "did not answer " + op + " " + std::to_string(id) +
                                       " within " + std::to_string(deadline.count()) + " ms");
  }
  co_return out;
}

asio::awaitable<void> ExecLockClient::ReadLines(std::shared_ptr<Program> program) {
  asio::streambuf buffer(kMaxExecLineBytes + 1);
  for (;;) {
    auto [ec, n] = co_await asio::async_read_until(program->out, buffer, '\n',
                                                   asio::as_tuple(asio::use_awaitable));
    if (program->ended) co_return;
    if (ec == asio::error::not_found) {
      Misbehaved(*program, "wrote a line over 1 MiB");
      co_return;
    }
    if (ec) {
      Misbehaved(*program, ec == asio::error::eof ? "exited (its output closed)"
                                                  : "could not be read: " + ec.message());
      co_return;
    }
    const char* data = static_cast<const char*>(buffer.data().data());
    OnLine(*program, std::string_view(data, n - 1));
    buffer.consume(n);
  }
}

void ExecLockClient::OnLine(Program& program, std::string_view line) {
  auto parsed = ParseExecLine(line);
  if (!parsed) {
    Misbehaved(program, parsed.error());
    return;
  }
  if (parsed->is_event) {
    OnEvent(program, parsed->body);
    return;
  }
  auto it = program.pending.find(parsed->id);
  if (it == program.pending.end()) {
    Misbehaved(program, "replied to unknown id " + std::to_string(parsed->id));
    return;
  }
  if (parsed->id == 0) {  // the handshake: what the program may send from now on
    auto hello = DecodeHelloReply(parsed->body);
    program.answered_hello = true;
    program.sends_lock_lost = hello && hello->capabilities.lock_lost;
  }
  it->second->reply = std::move(parsed->body);
  it->second->read_ns = SteadyNowNs();
  it->second->signal.cancel();
  program.pending.erase(it);
}

void ExecLockClient::OnEvent(Program& program, const nlohmann::json& body) {
  if (++program.events_since_request > kMaxEventsPerRequest) {
    Misbehaved(program, "sent more than " + std::to_string(kMaxEventsPerRequest) +
                            " events since its last request");
    return;
  }
  auto event = DecodeExecEvent(body);
  if (!event) {
    Misbehaved(program, event.error());
    return;
  }
  if (!program.answered_hello) {
    Misbehaved(program, "sent an event before it answered its handshake");
    return;
  }
  if (!program.sends_lock_lost) {
    Misbehaved(program, "sent a lock-lost event, though its handshake's capabilities say "
                        "\"lock_lost\": false");
    return;
  }
  ExecHolds::Judgement judged = holds_.Lost(event->key, event->token);
  switch (judged.verdict) {
    case ExecHolds::Verdict::kRefuse:
      Misbehaved(program, judged.why);
      return;
    case ExecHolds::Verdict::kStale:
      ++stale_events_;
      return;
    case ExecHolds::Verdict::kRecord:
      event->token = judged.token;
      if (sink_) sink_(std::move(*event));
      return;
  }
}

std::string ExecLockClient::Misbehaved(Program& program, const std::string& why) {
  return EndFaulty(program, why, misbehaved_);
}

std::string ExecLockClient::TimedOut(Program& program, const std::string& why) {
  return EndFaulty(program, why, timeouts_);
}

std::string ExecLockClient::EndFaulty(Program& program, const std::string& why, int64_t& count) {
  const std::string message = Name() + " " + why;
  if (program.ended) return message;
  ++count;
  // A first handshake that fails is the run's set-up error, told once there.
  const bool first_handshake = starts_ <= 1 && !handshaken_;
  if (options_.report && !first_handshake) {
    options_.report(message + "; killed, the next op starts it again");
  }
  End(program, message);
  return message;
}

void ExecLockClient::End(Program& program, const std::string& why) {
  if (program.ended) return;
  program.ended = true;
  for (auto& [id, pending] : program.pending) {
    pending->error = why;
    pending->signal.cancel();
  }
  program.pending.clear();
  CloseQuietly(program.in);
  CloseQuietly(program.out);
  if (program.pid > 0) KillProgram(program.pid);
}

Result<int64_t> ExecLockClient::ValidityNow(const Reply& reply, int64_t validity_ms) {
  const Result<std::optional<int64_t>> at = DecodeValidityAt(reply.body);
  if (!at) return Error{at.error()};
  return ValidityAsOf(validity_ms, *at, reply.sent_ns, reply.read_ns, SteadyNowNs());
}

asio::awaitable<AcquireResult> ExecLockClient::AcquireAs(ExecOp op, const std::string& key,
                                                         std::chrono::milliseconds lease) {
  ExecRequest request{0, op, key, "", lease.count(), wait_.count()};
  Reply reply = co_await Call(request, options_.timeout + wait_);
  AcquireResult out;
  if (reply.error.empty()) {
    const std::string fallback = "exec-" + std::to_string(options_.index) + "-" +
                                 std::to_string(reply.id);
    auto decoded = DecodeAcquireReply(reply.body, fallback);
    std::string wrong = decoded ? "" : decoded.error();
    // The handshake said acquires carry a fence, and the resource relies on it.
    if (decoded && options_.fencing && decoded->outcome == Outcome::kOk && !decoded->fence) {
      wrong = "ok without a \"fence\" under --fencing on";
    }
    if (wrong.empty() && decoded->outcome == Outcome::kOk) {
      const Result<int64_t> validity = ValidityNow(reply, decoded->validity_ms);
      if (validity) decoded->validity_ms = *validity;
      else wrong = validity.error();
    }
    if (wrong.empty()) {
      out = std::move(*decoded);
      if (out.outcome == Outcome::kOk) holds_.Acquired(key, out.token);
    } else {
      reply.error = Misbehaved(*reply.program, "answered " + std::string(ExecOpName(op)) + " " +
                                                   std::to_string(reply.id) + " wrongly: " + wrong);
    }
  }
  if (!reply.error.empty()) {
    // Nothing sent: certainly not acquired. Sent: it may have been.
    out.outcome = reply.sent ? Outcome::kUnknown : Outcome::kFail;
    out.error = reply.error;
  }
  if (out.outcome == Outcome::kUnknown) co_await BackOffAfterInfo();
  co_return out;
}

asio::awaitable<AcquireResult> ExecLockClient::Acquire(const std::string& key,
                                                       std::chrono::milliseconds lease) {
  co_return co_await AcquireAs(ExecOp::kAcquire, key, lease);
}

asio::awaitable<AcquireResult> ExecLockClient::AcquireShared(const std::string& key,
                                                             std::chrono::milliseconds lease) {
  if (!hello_.capabilities.shared) co_return co_await LockClient::AcquireShared(key, lease);
  AcquireResult acquired = co_await AcquireAs(ExecOp::kAcquireShared, key, lease);
  if (acquired.outcome == Outcome::kOk) shared_tokens_.insert(acquired.token);
  co_return acquired;
}

asio::awaitable<ReleaseResult> ExecLockClient::Release(const std::string& key,
                                                       const std::string& token) {
  const bool shared = shared_tokens_.erase(token) > 0;
  ExecRequest request{0, shared ? ExecOp::kReleaseShared : ExecOp::kRelease, key, token, 0, 0};
  // From here a lock-lost event for this hold is stale: the release says
  // what became of it.
  holds_.Releasing(token);
  Reply reply = co_await Call(request, options_.timeout);
  holds_.Released(token);
  ReleaseResult out{reply.sent ? Outcome::kUnknown : Outcome::kFail, reply.error};
  if (reply.error.empty()) {
    auto decoded = DecodeReleaseReply(reply.body);
    if (decoded) {
      out = std::move(*decoded);
    } else {
      out.error = Misbehaved(*reply.program, "answered release " + std::to_string(reply.id) +
                                                 " wrongly: " + decoded.error());
    }
  }
  if (out.outcome == Outcome::kUnknown) co_await BackOffAfterInfo();
  co_return out;
}

asio::awaitable<ExtendResult> ExecLockClient::Extend(const std::string& key,
                                                     const std::string& token,
                                                     std::chrono::milliseconds lease) {
  if (!hello_.capabilities.renew) co_return co_await LockClient::Extend(key, token, lease);
  ExecRequest request{0, ExecOp::kRenew, key, token, lease.count(), 0};
  Reply reply = co_await Call(request, options_.timeout);
  ExtendResult out{reply.sent ? Outcome::kUnknown : Outcome::kFail, false, 0, reply.error};
  if (reply.error.empty()) {
    auto decoded = DecodeRenewReply(reply.body);
    if (decoded && decoded->outcome == Outcome::kOk) {
      const Result<int64_t> validity = ValidityNow(reply, decoded->validity_ms);
      if (validity) decoded->validity_ms = *validity;
      else decoded = Error{validity.error()};
    }
    if (decoded) {
      out = std::move(*decoded);
    } else {
      out.error = Misbehaved(*reply.program, "answered renew " + std::to_string(reply.id) +
                                                 " wrongly: " + decoded.error());
    }
  }
  if (out.outcome == Outcome::kUnknown) co_await BackOffAfterInfo();
  co_return out;
}

asio::awaitable<void> ExecLockClient::BackOffAfterInfo() {
  if (closed_) co_return;
  const MsRange& range = options_.info_backoff;
  const int64_t drawn =
      std::uniform_int_distribution<int64_t>(range.min, std::max(range.min, range.max))(
          backoff_rng_);
  const int64_t ms = std::min<int64_t>(drawn, options_.timeout.count());
  if (ms <= 0) co_return;
  asio::steady_timer pause(executor_);
  pause.expires_after(std::chrono::milliseconds(ms));
  auto [ec] = co_await pause.async_wait(asio::as_tuple(asio::use_awaitable));
  (void)ec;
}

void ExecLockClient::Close() {
  closed_ = true;
  if (program_) End(*program_, Name() + ": the client closed");
}

void ExecLockClient::Crash() {
  if (program_) End(*program_, Name() + " was killed (client crash)");
}

void ExecLockClient::SetPaused(bool paused) {
  if (!program_ || program_->ended) return;
  const Status signalled = SignalProgram(program_->pid, paused ? SIGSTOP : SIGCONT);
  if (paused && signalled) ++stops_;
}

std::map<std::string, int64_t> ExecLockClient::Counters() const {
  return {{"program_starts", starts_},
          {"program_misbehaved", misbehaved_},
          {"program_timeouts", timeouts_},
          {"program_stops", stops_},
          {"stale_events", stale_events_}};
}

}  // namespace locksmith
