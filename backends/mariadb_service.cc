#include "backends/mariadb_service.h"

#include <mysql.h>

#include <algorithm>

#include "backends/mariadb_library.h"
#include "backends/mariadb_lock_client.h"
#include "backends/non_root_server.h"

namespace locksmith {
namespace {

constexpr char kMariadbDataDir[] = "mariadb";
// Beside the data directory: see MariadbTmpDir.
constexpr char kMariadbTmpDirSuffix[] = "-tmp";
constexpr char kMariadbLogFile[] = "mariadb.log";
constexpr char kBootstrapFile[] = "mariadb-bootstrap.sql";
constexpr char kUser[] = "locksmith";
constexpr char kDatabase[] = "locksmith";
constexpr int kPreferredPort = 3306;
// A small server: the tests' servers hold a few rows.
constexpr const char* kInnodbSizes[] = {"--innodb-buffer-pool-size=16M",
                                     "--innodb-log-file-size=4M",
                                     "--innodb-temp-data-file-path=ibtmp1:4M:autoextend"};
constexpr std::chrono::milliseconds kInstallTimeout{60000};
constexpr std::chrono::milliseconds kMariadbProbeTimeout{1000};
constexpr std::chrono::milliseconds kMariadbProbeInterval{20};

// Why mariadb-install-db failed: the server's [ERROR] lines and the
// statement errors it printed; its closing advice, the same every time,
// only when nothing else says why.
std::string InstallFailure(const std::string& output) {
  std::string errors;
  size_t start = 0;
  while (start < output.size() && errors.size() < 600) {
    size_t end = output.find('\n', start);
    if (end == std::string::npos) end = output.size();
    const std::string line = output.substr(start, end - start);
    if (line.find("[ERROR]") != std::string::npos || line.rfind("ERROR", 0) == 0) {
      errors += (errors.empty() ? "" : " | ") + line;
    }
    start = end + 1;
  }
  if (!errors.empty()) return errors;
  return output.size() > 600 ? "..." + output.substr(output.size() - 600) : output;
}

}  // namespace

void MariadbServiceOptions::Declare(OptionSet& set) { (void)set; }

std::string MariadbBootstrapSql(const std::string& password) {
  const std::string account = SqlQuoted(kUser) + "@'%'";
  const std::string db = std::string(kDatabase);
  // mariadb-install-db runs this with the grant tables not yet loaded.
  return "FLUSH PRIVILEGES;\n"
         "CREATE USER " + account + " IDENTIFIED BY " + SqlQuoted(password) + ";\n"
         "CREATE DATABASE " + db + ";\n"
         "GRANT ALL ON " + db + ".* TO " + account + ";\n"
         // The lock rows of mysql-for-update.
         "CREATE TABLE " + db + ".locks (name VARBINARY(255) PRIMARY KEY) ENGINE=InnoDB;\n"
         // The fences: InnoDB never gives an AUTO_INCREMENT id twice.
         "CREATE TABLE " + db + ".fences (id BIGINT UNSIGNED AUTO_INCREMENT PRIMARY KEY, "
         "name VARBINARY(255) NOT NULL) ENGINE=InnoDB;\n";
}

std::string MariadbTmpDir(const std::string& data_dir) { return data_dir + kMariadbTmpDirSuffix; }

std::vector<std::string> MariadbServerArgv(const std::vector<std::string>& run_as,
                                           const std::string& data_dir, const std::string& address,
                                           int port) {
  std::vector<std::string> argv = run_as;
  argv.insert(argv.end(), {
      "mariadbd",
      "--no-defaults",  // never the machine's option files
      "--datadir=" + data_dir,
      "--tmpdir=" + MariadbTmpDir(data_dir),
      "--bind-address=" + address,
      "--port=" + std::to_string(port),
      // Relative: in the data directory, where mariadbd runs.
      "--socket=mariadbd.sock",
      "--pid-file=mariadbd.pid",
      "--skip-name-resolve",
      "--innodb-flush-log-at-trx-commit=2",
  });
  argv.insert(argv.end(), std::begin(kInnodbSizes), std::end(kInnodbSizes));
  return argv;
}

std::vector<std::string> MariadbInstallArgv(const std::vector<std::string>& run_as,
                                            const std::string& data_dir,
                                            const std::string& bootstrap_file) {
  std::vector<std::string> argv = run_as;
  argv.insert(argv.end(), {
      "mariadb-install-db",
      "--no-defaults",
      "--datadir=" + data_dir,
      "--tmpdir=" + MariadbTmpDir(data_dir),
      "--auth-root-authentication-method=socket",  // root: the system's root only, no password
      "--skip-test-db",
      "--skip-name-resolve",
      "--extra-file=" + bootstrap_file,
  });
  argv.insert(argv.end(), std::begin(kInnodbSizes), std::end(kInnodbSizes));
  return argv;
}

Status MariadbPing(const MariadbEndpoint& endpoint, std::chrono::milliseconds timeout) {
  MYSQL* mysql = mysql_init(nullptr);
  if (mysql == nullptr) return Error{"mysql_init: out of memory"};
  const auto seconds = static_cast<unsigned>(std::max<int64_t>(1, (timeout.count() + 999) / 1000));
  const unsigned protocol = MYSQL_PROTOCOL_TCP;
  mysql_options(mysql, MYSQL_OPT_PROTOCOL, &protocol);
  mysql_options(mysql, MYSQL_OPT_CONNECT_TIMEOUT, &seconds);
  mysql_options(mysql, MYSQL_OPT_READ_TIMEOUT, &seconds);
  mysql_options(mysql, MYSQL_OPT_WRITE_TIMEOUT, &seconds);
  Status answer = OkStatus();
  if (mysql_real_connect(mysql, endpoint.host.c_str(), endpoint.user.c_str(),
                         endpoint.password.c_str(), endpoint.database.c_str(), endpoint.port,
                         nullptr, 0) == nullptr ||
      mysql_query(mysql, "SELECT COUNT(*) FROM locks") != 0) {
    answer = Error{mysql_error(mysql)};
  } else if (MYSQL_RES* rows = mysql_store_result(mysql); rows != nullptr) {
    mysql_free_result(rows);
  }
  mysql_close(mysql);
  return answer;
}

Result<std::unique_ptr<LockService>> MakeMariadbService(const ModuleOptions& options,
                                                        const BackendContext& context) {
  // Its readiness check and its clients call libmariadb: a missing library
  // is said here, before any server starts.
  if (Status s = LoadLibmariadb(); !s) return Error{s.error()};
  MariadbServiceOptions m = OptionsAs<MariadbServiceOptions>(options);
  if (Status s = TakeRunSettings(m, context); !s) return Error{s.error()};
  return std::unique_ptr<LockService>(new MariadbService(context.cluster, m));
}

MariadbService::MariadbService(Cluster& cluster, MariadbServiceOptions options)
    : ServerSetService({"mariadb", "mariadb server", "nodes", options.password}),
      options_(std::move(options)) {
  for (const auto& info : PrimaryPerHost(cluster.Hosts(), 1, "mariadbd", kPreferredPort)) {
    AddServer(
        {info, cluster.FindHost(info.host), "mariadbd", kMariadbLogFile, options_.ready_timeout});
  }
}

MariadbEndpoint MariadbService::EndpointOf(const ServiceNode& node) const {
  MariadbEndpoint e;
  e.host = node.address;
  e.port = static_cast<uint16_t>(node.port);
  e.user = kUser;
  e.password = options_.password;
  e.database = kDatabase;
  return e;
}

Status MariadbService::Install(ServerProcess& node) {
  Host& host = *node.host();
  auto root = RunsAsRoot(host);
  if (!root) return Error{node.name() + ": " + root.error()};
  run_as_ = NonRootPrefix(*root, /*own_ipc=*/false);
  if (Status s = host.MakeDirectory(MariadbTmpDir(kMariadbDataDir)); !s) return s;
  if (Status s = host.WriteFile(kBootstrapFile, MariadbBootstrapSql(options_.password)); !s) {
    return s;
  }
  auto done = host.Exec(
      MariadbInstallArgv(run_as_, host.PathOf(kMariadbDataDir), host.PathOf(kBootstrapFile)),
                        kInstallTimeout);
  // The password stays in no file of the node's (the server keeps its hash).
  (void)host.RemoveFile(kBootstrapFile);
  if (!done) return Error{node.name() + ": mariadb-install-db: " + done.error()};
  if (done->exit_code != 0) {
    return Error{node.name() + ": mariadb-install-db exited " + std::to_string(done->exit_code) +
                 ": " + InstallFailure(done->output)};
  }
  return OkStatus();
}

ServerLaunch MariadbService::LaunchOf(const ServerProcess& node) const {
  const ServiceNode& info = node.info();
  return {{},
          {},
          MariadbServerArgv(run_as_, node.host()->PathOf(kMariadbDataDir), info.address,
                            info.port)};
}

ReadinessProbe MariadbService::ProbeOf(const ServerProcess& node) const {
  const MariadbEndpoint endpoint = EndpointOf(node.info());
  return {[endpoint] { return MariadbPing(endpoint, kMariadbProbeTimeout); },
          kMariadbProbeInterval, "answer a query"};
}

nlohmann::json MariadbService::Settings() const {
  return {{"client", options_.client}, {"ready_ms", ready_after_ms_.load()}};
}

Status MariadbService::Start() {
  return StartServers({.backend = "mariadb",
                       .hosts = 1,
                       .prepare = [this] { return Install(*servers_.all().front()); },
                       .launch_of = [this](size_t i) { return LaunchOf(*servers_.all()[i]); },
                       .probe_of = [this](size_t i) { return ProbeOf(*servers_.all()[i]); },
                       .ready_timeout = options_.ready_timeout});
}

void MariadbService::Stop() {
  servers_.StopAll();
  // The data directory (tens of MB, nothing a checker reads) goes with the
  // server; its log stays with the run.
  for (const auto& node : servers_.all()) {
    Host& host = *node->host();
    (void)host.Exec({"rm", "-rf", "--", host.PathOf(kMariadbDataDir)}, kInstallTimeout);
  }
}

std::unique_ptr<LockClient> MariadbService::NewClient(boost::asio::any_io_executor executor,
                                                      const ClientSlot& slot) {
  MariadbLockClientOptions o;
  // No node only when the cluster had no host; Start() failed then.
  if (!table_.empty()) o.endpoint = EndpointOf(table_.front());
  o.endpoint.source_address = slot.source_address;
  o.recipe = MariadbRecipeNamed(options_.client);
  o.timeout = options_.client_timeout;
  o.fencing = options_.fencing;
  return std::make_unique<MariadbLockClient>(std::move(executor), std::move(o), slot.seed);
}

Status MariadbService::Relaunch(size_t index) {
  ServerProcess& node = *servers_.all()[index];
  return node.Launch(LaunchOf(node), ProbeOf(node));
}

}  // namespace locksmith
