#include "backends/pg_service.h"

#include <signal.h>

#include "backends/libpq_library.h"
#include "backends/pg_admin.h"
#include "backends/non_root_server.h"
#include "backends/pg_lock_client.h"
#include "base/scope_exit.h"

namespace locksmith {
namespace {

constexpr char kBinDir[] = "/usr/lib/postgresql/15/bin";
constexpr char kPgDataDir[] = "pgdata";
constexpr char kPasswordFile[] = "pg-initdb-password";
constexpr char kHbaFile[] = "pgdata/pg_hba.conf";
constexpr char kPidFile[] = "pgdata/postmaster.pid";
constexpr char kPgLogFile[] = "postgres.log";
constexpr int kPort = 5432;
constexpr std::chrono::milliseconds kPgProbeTimeout{300};
constexpr std::chrono::milliseconds kPgProbeInterval{20};
constexpr std::chrono::milliseconds kInitdbTimeout{60000};

std::string Trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

// The last line of a command's output: where initdb says what went wrong.
std::string LastLine(const std::string& output) {
  const std::string trimmed = Trimmed(output);
  const size_t newline = trimmed.rfind('\n');
  return newline == std::string::npos ? trimmed : trimmed.substr(newline + 1);
}

}  // namespace

std::vector<std::string> PgClientNames() { return {"pg-advisory", "pg-lock-table"}; }

std::vector<std::string> PgInitdbArgv(const std::vector<std::string>& run_as,
                                      const std::string& data_dir,
                                      const std::string& password_file) {
  std::vector<std::string> argv = run_as;
  argv.insert(argv.end(), {std::string(kBinDir) + "/initdb", "--pgdata=" + data_dir,
                           "--username=locksmith", "--pwfile=" + password_file,
                           "--auth=scram-sha-256", "--encoding=UTF8", "--locale=C", "--no-sync",
                           "--no-instructions"});
  return argv;
}

std::vector<std::string> PgServerArgv(const std::vector<std::string>& run_as,
                                      const std::string& data_dir, const std::string& address,
                                      int port) {
  std::vector<std::string> argv = run_as;
  argv.insert(argv.end(), {std::string(kBinDir) + "/postgres", "-D", data_dir});
  const std::vector<std::string> settings = {
      "listen_addresses=" + address, "port=" + std::to_string(port),
      "unix_socket_directories=",  // TCP only: nothing outside the host's directory
      "fsync=off", "full_page_writes=off", "shared_buffers=16MB", "max_connections=200",
      "dynamic_shared_memory_type=mmap",  // in pgdata/, not /dev/shm
      "logging_collector=off", "log_line_prefix=%m [%p] "};
  for (const auto& s : settings) argv.insert(argv.end(), {"-c", s});
  return argv;
}

std::string PgHbaText() {
  return "# Written by locksmith for one test node: TCP clients with a SCRAM password only.\n"
         "host all all 0.0.0.0/0 scram-sha-256\n"
         "host all all ::/0 scram-sha-256\n";
}

Result<std::unique_ptr<LockService>> MakePostgresService(const ModuleOptions& options,
                                                         const BackendContext& context) {
  (void)options;
  // Its readiness check and its clients call libpq: a missing library is
  // said here, before any server starts.
  if (Status s = LoadLibpq(); !s) return Error{s.error()};
  PostgresServiceOptions o;
  if (Status s = TakeRunSettings(o, context); !s) return Error{s.error()};
  return std::unique_ptr<LockService>(new PostgresService(context.cluster, o));
}

PostgresService::PostgresService(Cluster& cluster, PostgresServiceOptions options)
    : ServerSetService({"postgres", "postgres node", "nodes", options.password}),
      options_(std::move(options)) {
  for (const auto& info : PrimaryPerHost(cluster.Hosts(), 1, "postgres", kPort)) {
    AddServer({info, cluster.FindHost(info.host), "postgres", kPgLogFile, options_.ready_timeout});
  }
}

nlohmann::json PostgresService::Settings() const {
  return {{"version", 15},
          {"fsync", "off"},
          {"shared_buffers", "16MB"},
          {"ready_ms", ready_after_ms_.load()}};
}

PgEndpoint PostgresService::Endpoint() const {
  PgEndpoint e;
  if (!table_.empty()) {
    e.address = table_.front().address;
    e.port = table_.front().port;
  }
  e.password = options_.password;
  return e;
}

Result<ExecResult> PostgresService::RunOn(Host& host, const std::vector<std::string>& argv,
                                          std::chrono::milliseconds timeout) {
  return host.Exec(argv, timeout);
}

Status PostgresService::LearnUser(Host& host) {
  auto root = RunsAsRoot(host);
  if (!root) return Error{root.error()};
  run_as_ = NonRootPrefix(*root, /*own_ipc=*/true);
  return OkStatus();
}

Status PostgresService::InitCluster(Host& host) {
  if (Status s = host.MakeDirectory(kPgDataDir); !s) return s;
  if (Status s = host.WriteFile(kPasswordFile, options_.password); !s) return s;
  ScopeExit forget([&] { (void)host.RemoveFile(kPasswordFile); });
  auto initdb = RunOn(host,
                      PgInitdbArgv(run_as_, host.PathOf(kPgDataDir), host.PathOf(kPasswordFile)),
                      kInitdbTimeout);
  if (!initdb) return Error{"initdb: " + initdb.error()};
  if (initdb->exit_code != 0) {
    return Error{"initdb exited " + std::to_string(initdb->exit_code) + ": " +
                 LastLine(initdb->output)};
  }
  return host.WriteFile(kHbaFile, PgHbaText());
}

ServerLaunch PostgresService::LaunchOf(const ServerProcess& node) const {
  const ServiceNode& info = node.info();
  return {{}, {}, PgServerArgv(run_as_, node.host()->PathOf(kPgDataDir), info.address, info.port)};
}

ReadinessProbe PostgresService::Probe() const {
  const PgEndpoint endpoint = Endpoint();
  return {[endpoint]() -> Status {
            auto rows = PgRunOnce(endpoint, "SELECT 1", kPgProbeTimeout);
            return rows ? OkStatus() : Status(Error{rows.error()});
          },
          kPgProbeInterval, "answer a query"};
}

Status PostgresService::MakeSchema() {
  for (const auto& sql : PgSchemaSql()) {
    auto done = PgRunOnce(Endpoint(), sql, kCommandTimeout);
    if (!done) return Error{"postgres schema: " + done.error()};
  }
  return OkStatus();
}

Status PostgresService::Start() {
  auto install = [this]() -> Status {
    ServerProcess& node = *servers_.all().front();
    if (Status s = LearnUser(*node.host()); !s) return s;
    initialized_ = true;  // from here on Stop removes pgdata/
    if (Status s = InitCluster(*node.host()); !s) return Error{node.name() + ": " + s.error()};
    return OkStatus();
  };
  Status started =
      StartServers({.backend = "postgres",
                    .hosts = 1,
                    .prepare = install,
                    .launch_of = [this](size_t i) { return LaunchOf(*servers_.all()[i]); },
                    .probe_of = [this](size_t) { return Probe(); },
                    .ready_timeout = options_.ready_timeout});
  if (!started) return started;
  return MakeSchema();
}

Status PostgresService::SignalChildren(ServerProcess& node, const std::string& signal) {
  const std::optional<int> pid = node.Pid();
  if (!pid) return Error{node.name() + " is down"};
  auto r = RunOn(*node.host(), {"pkill", "--signal", signal, "--parent", std::to_string(*pid)});
  if (!r) return Error{r.error()};
  // 1: no child matched (none forked yet, or all gone already).
  if (r->exit_code > 1) {
    return Error{"pkill exited " + std::to_string(r->exit_code) + ": " + Trimmed(r->output)};
  }
  return OkStatus();
}

Status PostgresService::KillNode(const std::string& name) {
  auto node = servers_.FindOrError(name);
  if (!node) return Error{node.error()};
  if (const std::optional<int> pid = (*node)->Pid()) {
    // Stopped first, the postmaster can neither fork a new backend nor
    // restart the children it sees die; then every child, then it.
    (void)(*node)->host()->Signal(*pid, SIGSTOP);
    if (Status s = SignalChildren(**node, "KILL"); !s) {
      (void)(*node)->Kill();
      return s;
    }
  }
  return (*node)->Kill();
}

Status PostgresService::Relaunch(size_t index) {
  ServerProcess& node = *servers_.all()[index];
  // A SIGKILLed postmaster's lock file; nothing of it runs any more (KillNode
  // killed its children too), and its pid may be another process's by now.
  if (!node.IsUp()) (void)node.host()->RemoveFile(kPidFile);
  return node.Launch(LaunchOf(node), Probe());
}

Status PostgresService::PauseNode(const std::string& name) {
  auto node = servers_.FindOrError(name);
  if (!node) return Error{node.error()};
  if (Status s = (*node)->Pause(); !s) return s;  // no new backend from now on
  return SignalChildren(**node, "STOP");
}

Status PostgresService::ResumeNode(const std::string& name) {
  auto node = servers_.FindOrError(name);
  if (!node) return Error{node.error()};
  if ((*node)->Responsive()) return Error{name + " is not paused"};
  if (Status s = SignalChildren(**node, "CONT"); !s) return s;
  return (*node)->Resume();
}

void PostgresService::Stop() {
  for (const auto& node : servers_.all()) {
    if (node->Pid()) (void)KillNode(node->name());
    // The cluster is tens of megabytes the run has no use for afterwards.
    if (initialized_) {
      (void)RunOn(*node->host(),
                  {"rm", "-rf", "--one-file-system", node->host()->PathOf(kPgDataDir)});
    }
  }
  servers_.StopAll();
}

std::unique_ptr<LockClient> PostgresService::NewClient(boost::asio::any_io_executor executor,
                                                       const ClientSlot& slot) {
  PgLockClientOptions o;
  o.server = Endpoint();
  o.source_address = slot.source_address;
  o.timeout = options_.client_timeout;
  o.fencing = options_.fencing;
  const PgLockKind kind =
      options_.client == "pg-lock-table" ? PgLockKind::kLockTable : PgLockKind::kAdvisory;
  return std::make_unique<PgLockClient>(std::move(executor), std::move(o), kind, slot.seed);
}

}  // namespace locksmith
