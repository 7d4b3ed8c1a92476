// PostgresService: the `postgres` backend's server (one PostgreSQL 15
// postmaster on host n1, listening only on its test host's address, password
// authentication by SCRAM for every client) and its lock clients
// (pg-advisory, pg-lock-table: backends/pg_lock_client.h).
//
// The cluster is made with initdb in the host's directory (pgdata/) when the
// service starts; the server runs with fsync off and a small
// shared_buffers, for speed: a SIGKILLed server loses nothing it had
// committed (the WAL is written before the commit returns; only a power
// loss would need the fsync), so a restart finds every lock-table row again.
// PostgreSQL refuses to run as root: when the host's commands run as root,
// initdb and the server run in a user namespace where they are an ordinary
// user owning root's files, with an IPC namespace of their own (so the
// System V segment of a killed server goes with its processes):
// backends/non_root_server.h. The password comes from the kernel's random
// source (NewServerPassword), reaches initdb through a file removed right
// after, and is one of Secrets().
//
// The postmaster's children (one backend per session, the checkpointer, ...)
// are process-group leaders of their own, so a signal to the postmaster
// reaches them only through this service: a kill SIGKILLs them too (after
// stopping the postmaster, so it cannot fork or restart them) and a pause
// stops and continues them with it (pkill -P on the host). Killable,
// Pausable, HasPrimary (n1, never promoted), HasNodeProcesses (the
// postmaster). Stop kills everything and removes pgdata/.
//
// Thread-safety: as RedisService (ServerProcess guards each node's state).
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "backends/backend_registry.h"
#include "backends/lock_service.h"
#include "backends/pg_connection.h"
#include "backends/server_process.h"
#include "backends/server_set_service.h"
#include "cluster/host.h"

namespace locksmith {

// Not user options: filled in by MakePostgresService from the run.
struct PostgresServiceOptions {
  std::string password;  // required
  std::chrono::milliseconds client_timeout{500};
  std::chrono::milliseconds ready_timeout{20000};
  std::string client = "pg-advisory";
  bool fencing = false;
};

Result<std::unique_ptr<LockService>> MakePostgresService(const ModuleOptions& options,
                                                         const BackendContext& context);

// The clients the backend offers (the first is the default).
std::vector<std::string> PgClientNames();

// initdb of `data_dir` with superuser locksmith whose password is in
// `password_file`, run after the prefix `run_as` (NonRootPrefix) (pure).
std::vector<std::string> PgInitdbArgv(const std::vector<std::string>& run_as,
                                      const std::string& data_dir,
                                      const std::string& password_file);
// The postmaster of `data_dir` on address:port, run after the prefix
// `run_as` (NonRootPrefix) (pure).
std::vector<std::string> PgServerArgv(const std::vector<std::string>& run_as,
                                      const std::string& data_dir, const std::string& address,
                                      int port);
// pg_hba.conf: SCRAM for every TCP client, nothing else (pure).
std::string PgHbaText();

class PostgresService : public ServerSetService {
 public:
  PostgresService(Cluster& cluster, PostgresServiceOptions options);

  nlohmann::json Settings() const override;
  Status Start() override;
  void Stop() override;
  std::unique_ptr<LockClient> NewClient(boost::asio::any_io_executor executor,
                                        const ClientSlot& slot) override;

  Status KillNode(const std::string& node) override;
  Status PauseNode(const std::string& node) override;
  Status ResumeNode(const std::string& node) override;

  // How a client reaches the server (tests).
  PgEndpoint Endpoint() const;

 private:
  Status Relaunch(size_t index) override;
  // Whether the host's commands run as root (then initdb and the server run
  // under NonRootPrefix), asked once at Start.
  Status LearnUser(Host& host);
  // initdb, pg_hba.conf, the schema's first statements wait for Launch.
  Status InitCluster(Host& host);
  // What one start of the postmaster runs, and when it is ready.
  ServerLaunch LaunchOf(const ServerProcess& node) const;
  ReadinessProbe Probe() const;
  Status MakeSchema();
  // Sends `signal` to every child of the node's postmaster.
  Status SignalChildren(ServerProcess& node, const std::string& signal);
  // A short command on the host (pkill, rm), or initdb with its own timeout.
  static constexpr std::chrono::milliseconds kCommandTimeout{5000};
  Result<ExecResult> RunOn(Host& host, const std::vector<std::string>& argv,
                           std::chrono::milliseconds timeout = kCommandTimeout);

  const PostgresServiceOptions options_;
  std::vector<std::string> run_as_;  // set by Start, before any fault
  bool initialized_ = false;         // Start made pgdata/ (run thread only)
};

}  // namespace locksmith
