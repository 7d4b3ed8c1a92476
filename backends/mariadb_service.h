// MariadbService: the `mariadb` backend's server (one MariaDB server from
// Debian's package, on host n1, bound to the host's address) and its lock
// clients (backends/mariadb_lock_client.h). Killable (SIGKILL, started
// again on the same data directory: InnoDB recovers it), Pausable
// (SIGSTOP / SIGCONT), HasPrimary (the one server) and HasNodeProcesses.
//
// The server's files are in its host's directory: mariadb/ (the data
// directory, made once by mariadb-install-db; removed by Stop; when the
// host's commands run as root, the install and mariadbd run as an ordinary
// user of a user namespace of their own: backends/non_root_server.h),
// mariadb.log (its error log, on stderr). It reads no
// option file of the machine's (--no-defaults) and shares nothing with the
// machine's own MariaDB: its socket and pid file are in its data directory.
// The clients' account, `locksmith` with a password from the kernel's
// random source (never the run's seed), its database and its tables are
// made by mariadb-install-db from a SQL file that is removed once it ran;
// the password is one of the service's Secrets.
//
// InnoDB writes its log at every commit (innodb_flush_log_at_trx_commit =
// 2): a SIGKILLed server loses no committed transaction (the page cache
// survives it); only a machine's power loss would.
//
// Thread-safe: Start/Stop from the run thread, the capability calls from
// the nemesis thread, NewClient from the io thread; the node guards its own
// process state (ServerProcess).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "backends/backend_registry.h"
#include "backends/lock_service.h"
#include "backends/mariadb_connection.h"
#include "backends/server_process.h"
#include "backends/server_set_service.h"
#include "cluster/host.h"

namespace locksmith {

// Filled in by MakeMariadbService from the run; the backend has no option
// of its own yet.
struct MariadbServiceOptions {
  std::string password;  // the `locksmith` account's
  std::chrono::milliseconds client_timeout{500};
  std::chrono::milliseconds ready_timeout{20000};
  std::string client = "mysql-get-lock";
  bool fencing = false;

  void Declare(OptionSet& set);
};

Result<std::unique_ptr<LockService>> MakeMariadbService(const ModuleOptions& options,
                                                        const BackendContext& context);

// The account, database and tables the clients use (pure; exposed for
// tests): what mariadb-install-db runs after its own tables.
std::string MariadbBootstrapSql(const std::string& password);
// The server's own directory for temporary tables, beside its data: with
// /tmp, the machine's, servers installing at once removed each other's
// bootstrap tables (#sql-temptable-...; 6 of 24 concurrent installs failed,
// 0 of 24 with a directory each), and a server writes nowhere outside its
// host.
std::string MariadbTmpDir(const std::string& data_dir);
// mariadbd's argv for a server on `address`:`port` with data in `data_dir`,
// after the prefix `run_as` (NonRootPrefix).
std::vector<std::string> MariadbServerArgv(const std::vector<std::string>& run_as,
                                           const std::string& data_dir, const std::string& address,
                                           int port);
// mariadb-install-db's argv: `data_dir` made, `bootstrap_file` run in it,
// after the prefix `run_as`.
std::vector<std::string> MariadbInstallArgv(const std::vector<std::string>& run_as,
                                            const std::string& data_dir,
                                            const std::string& bootstrap_file);
// One try: the server at `endpoint` answers a query on the clients' tables
// within `timeout` (blocking; the readiness probe).
Status MariadbPing(const MariadbEndpoint& endpoint, std::chrono::milliseconds timeout);

class MariadbService : public ServerSetService {
 public:
  MariadbService(Cluster& cluster, MariadbServiceOptions options);

  // ready_ms: how long the last Start took, the install included.
  nlohmann::json Settings() const override;
  // Makes the data directory (once), then starts the server.
  Status Start() override;
  // Stops the server and removes its data directory.
  void Stop() override;
  std::unique_ptr<LockClient> NewClient(boost::asio::any_io_executor executor,
                                        const ClientSlot& slot) override;

 private:
  Status Relaunch(size_t index) override;
  MariadbEndpoint EndpointOf(const ServiceNode& node) const;
  // mariadb-install-db in the node's host directory, once.
  Status Install(ServerProcess& node);
  // What one start of the server runs (after Install), and when it is ready.
  ServerLaunch LaunchOf(const ServerProcess& node) const;
  ReadinessProbe ProbeOf(const ServerProcess& node) const;

  const MariadbServiceOptions options_;
  std::vector<std::string> run_as_;  // set by Start, before any fault (NonRootPrefix)
};

}  // namespace locksmith
