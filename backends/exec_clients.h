// ExecClients: the run's external lock-client programs (`--client
// exec:PROGRAM ARGS...`): one ExecLockClient per worker, each told the
// run's facts at its handshake, each program's stderr in
// <log_dir>/client-<index>.log. Owns the supervisor of their processes:
// they die with the controller (PR_SET_PDEATHSIG) and are killed by pid when
// this is destroyed. NewClient on the io thread; the clients it made must
// be gone before it is.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <boost/asio/any_io_executor.hpp>
#include <nlohmann/json.hpp>

#include "backends/lock_service.h"
#include "cluster/process_supervisor.h"

namespace locksmith {

struct ExecClientsOptions {
  std::vector<std::string> argv;  // ParseExecClient's: the program first
  nlohmann::json facts = nlohmann::json::object();  // ExecServiceFacts, and more
  std::chrono::milliseconds timeout{500};
  std::chrono::milliseconds start_timeout{30000};
  std::string log_dir;  // where the programs' stderr goes
  bool fencing = false;
  std::function<void(const std::string&)> report;  // misbehaviours, for the run log
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

  std::unique_ptr<LockClient> NewClient(boost::asio::any_io_executor executor,
                                        const ClientSlot& slot);

 private:
  ExecClientsOptions options_;
  ProcessSupervisor supervisor_{/*die_with_controller=*/true};
};

}  // namespace locksmith
