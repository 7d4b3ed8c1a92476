// ExecLockClient: a lock client that is an external program (`--client
// exec:PROGRAM ARGS...`, docs/exec-clients.md): one process per worker,
// JSON lines on its stdin and stdout, its stderr appended to a log of the
// client's own. The harness owns time: every request has a deadline, and
// Call is the one place where a missed deadline, a line that breaks the
// protocol, an exit or a line over 1 MiB becomes an info outcome naming the
// program and what it did; the program is then killed and the next call
// starts it again (the worker goes on under a new process number, as after
// any info). A program cannot make up history: a lock-lost event must end a
// hold the worker has (ExecHolds), at most kMaxEventsPerRequest events may
// come between two requests, and under --fencing on an ok acquire carries a
// fence; anything else is a violation as above. After every op that ends
// info the client waits a back-off drawn from the workload's --backoff
// before it returns, as the workload waits after a refusal, so a program
// that answers info at once cannot flood the history. SetPaused is a real
// SIGSTOP / SIGCONT of the program, Crash a SIGKILL. Not thread-safe: one client belongs to one worker, on the run's
// io_context.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/steady_timer.hpp>
#include <nlohmann/json.hpp>

#include "backends/exec_holds.h"
#include "backends/exec_protocol.h"
#include "backends/lock_client.h"
#include "base/option_set.h"
#include "cluster/host.h"

namespace locksmith {

class ProcessSupervisor;

struct ExecClientOptions {
  std::vector<std::string> argv;  // the program and its arguments
  // The run's facts for the handshake (backend, nodes, lease, ...): an object.
  nlohmann::json facts = nlohmann::json::object();
  int index = 0;               // the worker's client index
  std::string source_address;  // the address the program should bind, if it can
  // The client's host of its own (Cluster::ClientHost), which starts,
  // signals and kills the program inside its network; null: the program
  // runs beside the controller, under the supervisor.
  Host* host = nullptr;
  std::chrono::milliseconds timeout{500};         // each request's deadline (+ its wait)
  std::chrono::milliseconds start_timeout{30000};  // start + handshake (a JVM is slow)
  std::string log_path;  // the program's stderr, appended
  std::string env_path;  // PATH for the program (its environment is otherwise clean)
  // --fencing on: a program without the fence capability cannot start, and
  // an ok acquire without a fence is a violation.
  bool fencing = false;
  // The pause after an op that ended info (the workload's --backoff), at
  // most `timeout`; drawn from a stream seeded with `seed`.
  MsRange info_backoff{5, 50};
  uint64_t seed = 0;
  // Told each misbehaviour, one line naming the program (the run log).
  std::function<void(const std::string&)> report;
};

class ExecLockClient : public LockClient {
 public:
  // The most events a program may write between two requests: each lock a
  // worker holds (one, two with a re-entry) is lost once, and a few stale
  // ones may follow; a stream of them is a violation.
  static constexpr int kMaxEventsPerRequest = 16;

  ExecLockClient(boost::asio::any_io_executor executor, ProcessSupervisor& supervisor,
                 ExecClientOptions options);
  ~ExecLockClient() override;

  boost::asio::awaitable<Status> Connect() override;
  boost::asio::awaitable<AcquireResult> Acquire(const std::string& key,
                                                std::chrono::milliseconds lease) override;
  boost::asio::awaitable<ReleaseResult> Release(const std::string& key,
                                                const std::string& token) override;
  bool SupportsShared() const override { return hello_.capabilities.shared; }
  boost::asio::awaitable<AcquireResult> AcquireShared(const std::string& key,
                                                      std::chrono::milliseconds lease) override;
  boost::asio::awaitable<ExtendResult> Extend(const std::string& key, const std::string& token,
                                              std::chrono::milliseconds lease) override;
  void Close() override;
  void Crash() override;
  void SetPaused(bool paused) override;
  void SetEventSink(LockEventSink sink) override { sink_ = std::move(sink); }
  void SetAcquireWait(std::chrono::milliseconds wait) override { wait_ = wait; }
  std::map<std::string, int64_t> Counters() const override;

  // Starts the program and sends its handshake without waiting for the
  // answer, which Connect then awaits: the run launches every client's
  // program before it connects the first (ExecClients), so slow starters
  // (an interpreter, a JVM) start side by side.
  Status Launch();
  // What the program said of itself at its last handshake.
  const ExecHello& hello() const { return hello_; }
  // The running program's pid; -1 when none runs.
  int pid() const;

 private:
  struct Program;
  struct Pending;
  // The outcome of one request: the reply, or why there is none (the
  // program misbehaved, missed the deadline, or could not start).
  struct Reply {
    nlohmann::json body;
    std::string error;
    bool sent = false;  // the request reached the program
    std::shared_ptr<Program> program;  // the start that was asked
    int64_t id = 0;
    // steady_clock (CLOCK_MONOTONIC) ns: when the request was written and
    // when its reply was read (0 when none was).
    int64_t sent_ns = 0;
    int64_t read_ns = 0;
  };
  // An ok reply's validity_ms as of now, the moment the op is stamped
  // (ValidityAsOf); an error when its "validity_at_ns" is wrong.
  static Result<int64_t> ValidityNow(const Reply& reply, int64_t validity_ms);

  // Launch, then AwaitHello: a start of the program with its handshake.
  boost::asio::awaitable<Status> Start();
  // Sends `request` (starting the program first when none runs) and waits
  // at most `deadline` for its reply: the one place where a missed deadline
  // becomes an error.
  boost::asio::awaitable<Reply> Call(ExecRequest request, std::chrono::milliseconds deadline);
  boost::asio::awaitable<Reply> Exchange(std::shared_ptr<Program> program,
                                         const nlohmann::json& message, int64_t id,
                                         std::chrono::milliseconds deadline);
  // Writes `message` and registers `pending` for reply `id`, due within
  // `deadline`; an error naming the program when it cannot be written.
  Status Send(Program& program, const nlohmann::json& message, int64_t id, Pending& pending,
              std::chrono::milliseconds deadline);
  // The reply `pending` receives (at once when it came already), or the
  // error of a missed deadline or of the program's end.
  boost::asio::awaitable<Reply> Await(std::shared_ptr<Program> program, Pending& pending,
                                      int64_t id, const std::string& op,
                                      std::chrono::milliseconds deadline);
  boost::asio::awaitable<Status> AwaitHello();
  boost::asio::awaitable<void> ReadLines(std::shared_ptr<Program> program);
  void OnLine(Program& program, std::string_view line);
  // A line with "event": recorded (the sink), dropped as stale, or a
  // violation (ExecHolds, the handshake's lock_lost, the bound).
  void OnEvent(Program& program, const nlohmann::json& body);
  // After an op that ended info: a pause of options_.info_backoff.
  boost::asio::awaitable<void> BackOffAfterInfo();
  // The program broke the protocol (`why`): the run log is told, and it
  // ends. Returns the message naming the program, for the op's error.
  std::string Misbehaved(Program& program, const std::string& why);
  // The program did not answer within the op's deadline: it ends as one that
  // misbehaved does, but is counted apart (program_timeouts), since on a
  // loaded machine a slow answer is no proof of a broken adapter.
  std::string TimedOut(Program& program, const std::string& why);
  // Misbehaved's and TimedOut's work: `count` is the counter it adds to.
  std::string EndFaulty(Program& program, const std::string& why, int64_t& count);
  // Ends `program` (unless it ended already): every pending call gets
  // `why`, its pipes close, its process is killed.
  void End(Program& program, const std::string& why);
  std::string Name() const;
  // The program's process, on its host or under the supervisor.
  Result<int> SpawnProgram(const ProcessSpec& spec);
  Status SignalProgram(int pid, int signal);
  void KillProgram(int pid);
  boost::asio::awaitable<AcquireResult> AcquireAs(ExecOp op, const std::string& key,
                                                  std::chrono::milliseconds lease);
  boost::asio::awaitable<ReleaseResult> ReleaseAs(ExecOp op, const std::string& key,
                                                  const std::string& token);

  boost::asio::any_io_executor executor_;
  ProcessSupervisor& supervisor_;
  ExecClientOptions options_;
  std::string owner_;  // the supervisor's name for this client's processes
  std::shared_ptr<Program> program_;
  std::unique_ptr<Pending> hello_pending_;  // the last start's handshake
  ExecHello hello_;
  bool handshaken_ = false;  // the running program answered its handshake
  LockEventSink sink_;
  ExecHolds holds_;  // what a lock-lost event may end
  std::mt19937_64 backoff_rng_;
  std::set<std::string> shared_tokens_;  // held shared: released with release_shared
  std::chrono::milliseconds wait_{0};
  int64_t next_id_ = 1;
  bool closed_ = false;
  int64_t starts_ = 0;
  int64_t misbehaved_ = 0;
  int64_t timeouts_ = 0;  // ops whose program did not answer within the deadline
  int64_t stops_ = 0;  // SIGSTOPs sent (client-pause)
  int64_t stale_events_ = 0;  // lock-lost events dropped as stale (ExecHolds)
};

}  // namespace locksmith
