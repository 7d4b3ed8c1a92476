// ExecClients: the run's external lock-client programs (`--client
// exec:PROGRAM ARGS...`): one ExecLockClient per worker, each told the
// run's facts at its handshake, each program's stderr in
// <log_dir>/client-<index>.log. Owns the supervisor of their processes:
// they die with the controller (PR_SET_PDEATHSIG) and are killed by pid when
// this is destroyed (a program on a host of its own is its host's: the
// cluster's supervisor and run record). The run calls Start before the
// workload: every program's handshake is checked there, and one that fails
// refuses the run at set-up with every program closed. NewClient on the io
// thread; the clients it made must be gone before it is.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <nlohmann/json.hpp>

#include "backends/exec_lock_client.h"
#include "backends/lock_service.h"
#include "base/option_set.h"
#include "cluster/process_supervisor.h"

namespace locksmith {

struct ExecClientsOptions {
  std::vector<std::string> argv;  // ParseExecClient's: the program first
  nlohmann::json facts = nlohmann::json::object();  // ExecServiceFacts, and more
  std::chrono::milliseconds timeout{500};
  std::chrono::milliseconds start_timeout{30000};
  std::string log_dir;  // where the programs' stderr goes
  bool fencing = false;
  MsRange info_backoff{5, 50};  // ExecClientOptions::info_backoff (the workload's --backoff)
  std::function<void(const std::string&)> report;  // misbehaviours, for the run log
  // By client index: the client's host of its own (Cluster::ClientHost),
  // where its program runs; null or past the end: beside the controller.
  std::vector<Host*> hosts;
  // The run's tag: a program beside the controller runs in a cgroup of its
  // own under the run's (cluster/process_cgroup.h), its log capped.
  std::string cgroup_tag;
};

// What the handshake tells a program of `service`: {"backend", "password",
// "nodes": [{"name", "role", "host", "address", "port"}, ...], "settings"
// (LockService::Settings: Sentinel's master_name, ...)}.
nlohmann::json ExecServiceFacts(const LockService& service);

class ExecClients {
 public:
  explicit ExecClients(ExecClientsOptions options);
  ~ExecClients();
  ExecClients(const ExecClients&) = delete;
  ExecClients& operator=(const ExecClients&) = delete;

  // Launches the programs of all `count` slots at once (`slot_of` gives
  // each its slot), so they start side by side, and awaits every handshake.
  // At the first that fails (or once `stop` says so: polled every 50 ms)
  // every program is closed and the error names that client and what it
  // did; nothing of them is left on the io_context. On success NewClient
  // hands each slot its handshaken client.
  boost::asio::awaitable<Status> Start(boost::asio::any_io_executor executor, int count,
                                       const std::function<ClientSlot(int)>& slot_of,
                                       std::function<bool()> stop);

  // Client `slot`'s: the one Start launched. Without Start, the first call
  // (slot 0) launches the programs of all `count` slots at once, as above,
  // and the workload connects them one by one.
  std::unique_ptr<LockClient> NewClient(boost::asio::any_io_executor executor,
                                        const ClientSlot& slot, int count,
                                        const std::function<ClientSlot(int)>& slot_of);

 private:
  std::unique_ptr<ExecLockClient> Make(boost::asio::any_io_executor executor,
                                       const ClientSlot& slot);
  struct Handshakes;
  boost::asio::awaitable<void> AwaitHandshake(ExecLockClient& client, Handshakes& state);
  void Launch(const boost::asio::any_io_executor& executor, int count,
              const std::function<ClientSlot(int)>& slot_of);
  // Closes and forgets every program not handed out yet.
  void CloseLaunched();

  ExecClientsOptions options_;
  std::map<int, std::unique_ptr<ExecLockClient>> launched_;  // by slot index, not yet handed out
  ProcessSupervisor supervisor_{SupervisorOptions{
      .die_with_controller = true, .contain_all = ContainSpec{options_.cgroup_tag}}};
};

}  // namespace locksmith
