#include "cluster/ssh_cluster.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>

#include "base/option_set.h"
#include "base/parallel.h"
#include "base/text.h"
#include "cluster/net_plan.h"
#include "cluster/proc_info.h"
#include "cluster/process_supervisor.h"
#include "cluster/ssh_process.h"
#include "cluster/ssh_scripts.h"

namespace locksmith {
namespace fs = std::filesystem;
namespace {

constexpr std::chrono::milliseconds kSetupTimeout{60000};
constexpr std::chrono::milliseconds kInstallTimeout{600000};
constexpr std::chrono::milliseconds kTeardownTimeout{60000};

// The node scripts (cluster/ssh_scripts.h).
const std::string& kPrepareScript = SshPrepareScript();
const std::string& kPackagesScript = SshPackagesScript();
const std::string& kCleanupScript = SshCleanupScript();
const std::string& kFetchScript = SshFetchScript();
const std::string& kListScript = SshListScript();


Result<std::string> ResolveNode(const std::string& node) {
  addrinfo hints{};
  hints.ai_family = AF_INET;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  const int rc = getaddrinfo(node.c_str(), nullptr, &hints, &found);
  if (rc != 0 || found == nullptr) {
    return Error{"cannot resolve node " + QuoteInput(node) + ": " + gai_strerror(rc)};
  }
  char text[INET_ADDRSTRLEN] = {};
  inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(found->ai_addr)->sin_addr, text,
            sizeof(text));
  freeaddrinfo(found);
  return std::string(text);
}

// The controller's source address towards `address` (no packet is sent).
Result<std::string> SourceAddressTowards(const std::string& address, int port) {
  const int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return Error{"socket: cannot find the controller's address"};
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(static_cast<uint16_t>(port));
  inet_pton(AF_INET, address.c_str(), &to.sin_addr);
  sockaddr_in self{};
  socklen_t len = sizeof(self);
  const bool ok = connect(fd, reinterpret_cast<sockaddr*>(&to), sizeof(to)) == 0 &&
                  getsockname(fd, reinterpret_cast<sockaddr*>(&self), &len) == 0;
  close(fd);
  if (!ok) return Error{"no route from the controller to " + address};
  char text[INET_ADDRSTRLEN] = {};
  inet_ntop(AF_INET, &self.sin_addr, text, sizeof(text));
  return std::string(text);
}

std::string MachineId() {
  std::ifstream in("/etc/machine-id");
  std::string id;
  if (in >> id && !id.empty()) return id;
  char name[256] = {};
  gethostname(name, sizeof(name) - 1);
  return std::string("host-") + name;
}

// "machine pid start-time" of this process.
std::string ControllerOwner() {
  auto st = ReadProcStat(getpid());
  return MachineId() + " " + std::to_string(getpid()) + " " +
         std::to_string(st ? st->start_time : 0);
}

// Starts the control master for `node`; one clear line when ssh cannot
// (unknown host, refused key, host key mismatch, nothing listening).
Status Connect(const SshOptions& ssh, const std::string& control_path, const std::string& node) {
  auto r = RunSshProcess(MasterArgv(ssh, control_path, node), "",
                         std::chrono::seconds(ssh.connect_timeout_s + 5));
  if (!r) return Error{"node " + node + ": " + r.error()};
  if (r->exit_code != 0) {
    std::string why = FirstLine(r->err.empty() ? r->out : r->err);
    if (why.empty()) why = "ssh exited " + std::to_string(r->exit_code);
    return Error{"cannot connect to node " + node + " as " + ssh.user + " on port " +
                 std::to_string(ssh.port) + ": " + why};
  }
  return OkStatus();
}

// The pid of the master behind `control_path` ("Master running (pid=N)"),
// or 0 when none answers.
pid_t MasterPid(const std::string& control_path, const std::string& node) {
  auto r = RunSshProcess(ControlArgv(control_path, node, "check"), "", std::chrono::seconds(10));
  if (!r || r->exit_code != 0) return 0;
  const std::string said = r->err + r->out;
  const size_t at = said.find("(pid=");
  if (at == std::string::npos) return 0;
  try {
    return static_cast<pid_t>(std::stol(said.substr(at + 5)));
  } catch (const std::exception&) {
    return 0;
  }
}

// Tells the master to exit and waits (up to 5 s) until it has: it runs in
// the background, so `-O exit` returns before it is gone, and a run that
// ends must leave no ssh process behind.
void Disconnect(const std::string& control_path, const std::string& node) {
  const pid_t master = MasterPid(control_path, node);
  const auto stat = master > 0 ? ReadProcStat(master) : std::nullopt;
  (void)RunSshProcess(ControlArgv(control_path, node, "exit"), "", std::chrono::seconds(10));
  if (stat) (void)WaitUntilGone({{master, stat->start_time}}, std::chrono::seconds(5));
}

// Removes a control directory after its masters were told to exit. A
// master unlinks its socket on its own time (it runs in the background), so
// one pass of remove_all can meet a socket that vanishes under it and give
// up; the directory is empty of anything else, so passes repeat until it is
// gone (a few hundred milliseconds at most).
Status RemoveControlDir(const std::string& dir) {
  std::error_code ec;
  for (int attempt = 0; attempt < 20; ++attempt) {
    fs::remove_all(dir, ec);
    if (!fs::exists(dir, ec)) return OkStatus();
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return Error{"cannot remove the control directory " + dir +
               (ec ? ": " + ec.message() : std::string())};
}

}  // namespace

// The name up to the suffix is no secret: what keeps another user from
// handing us a directory or link is mkdtemp's random suffix and its mkdir,
// which refuses a name that exists (a link included) and tries another.
Result<std::string> MakeSshControlDir(const std::string& tag) {
  std::string dir = "/tmp/lsm-ssh-" + tag + "-" + std::to_string(getpid()) + "-XXXXXX";
  if (mkdtemp(dir.data()) == nullptr) {
    return Error{"cannot create a control directory " + dir + ": " + std::strerror(errno)};
  }
  return dir;
}

std::vector<std::string> SshProviderPackages() { return {"iptables", "iproute2", "procps", "tar"}; }

Result<std::unique_ptr<Cluster>> CreateSshCluster(const SshClusterOptions& options) {
  const std::string tag = options.tag.empty() ? RandomTag() : options.tag;
  if (Status s = ValidateTag(tag); !s) return Error{s.error()};
  if (options.host_names.empty()) return Error{"an ssh cluster needs at least one host"};
  if (options.nodes.size() < options.host_names.size()) {
    std::string names;
    for (const auto& h : options.host_names) names += (names.empty() ? "" : ",") + h;
    return Error{"--nodes gives " + std::to_string(options.nodes.size()) +
                 " node(s) but this run needs " + std::to_string(options.host_names.size()) +
                 " (" + names + ")"};
  }
  std::set<std::string> seen;
  for (const auto& n : options.host_names) {
    if (Status s = ValidateNodeName(n); !s) return Error{s.error()};
    if (!seen.insert(n).second) return Error{"host name '" + n + "' appears twice"};
  }
  const size_t count = options.host_names.size();
  std::vector<std::string> addresses(count);
  for (size_t i = 0; i < count; ++i) {
    if (Status s = ValidateNodeAddress(options.nodes[i]); !s) return Error{s.error()};
    auto a = ResolveNode(options.nodes[i]);
    if (!a) return Error{a.error()};
    addresses[i] = *a;
  }
  auto control_dir = MakeSshControlDir(tag);
  if (!control_dir) return Error{control_dir.error()};
  std::unique_ptr<SshCluster> cluster(
      new SshCluster(tag, *control_dir, options.nodes_dir, options.ssh));
  const std::string run_dir = std::string(kSshBaseDir) + "/" + tag;
  for (size_t i = 0; i < count; ++i) {
    cluster->hosts_.push_back(std::make_unique<SshHost>(
        options.host_names[i], options.nodes[i], addresses[i], run_dir, tag, options.ssh,
        *control_dir + "/" + std::to_string(i)));
  }
  auto fail = [&](const std::string& why) -> Result<std::unique_ptr<Cluster>> {
    std::string msg = why;
    if (Status t = cluster->Teardown(); !t) msg += "; removing what was made failed: " + t.error();
    return Error{msg};
  };
  Status connected = ForEachInParallel(count, [&](size_t i) {
    return Connect(options.ssh, *control_dir + "/" + std::to_string(i), options.nodes[i]);
  });
  if (!connected) return fail(connected.error());
  const std::string owner = ControllerOwner();
  Status prepared = ForEachInParallel(count, [&](size_t i) -> Status {
    SshHost& host = *cluster->hosts_[i];
    auto made = host.RunScript(kPrepareScript, {kSshBaseDir, tag, owner, host.Name()}, "",
                               kSetupTimeout);
    if (!made) return Error{made.error()};
    if (made->exit_code != 0) return Error{"node " + host.Node() + ": " + FirstLine(made->err)};
    if (options.packages.empty()) return OkStatus();
    auto installed = host.RunScript(kPackagesScript, options.packages, "", kInstallTimeout);
    if (!installed) return Error{installed.error()};
    if (installed->exit_code != 0) {
      return Error{"node " + host.Node() + ": " + FirstLine(installed->err)};
    }
    return OkStatus();
  });
  if (!prepared) return fail(prepared.error());
  auto self = SourceAddressTowards(addresses[0], options.ssh.port);
  if (!self) return fail(self.error());
  cluster->controller_address_ = *self;
  return std::unique_ptr<Cluster>(std::move(cluster));
}

SshCluster::SshCluster(std::string tag, std::string control_dir, std::string nodes_dir,
                       SshOptions ssh)
    : tag_(std::move(tag)),
      control_dir_(std::move(control_dir)),
      nodes_dir_(std::move(nodes_dir)),
      ssh_(std::move(ssh)) {}

SshCluster::~SshCluster() { (void)Teardown(); }

std::vector<Host*> SshCluster::Hosts() {
  std::vector<Host*> hosts;
  for (auto& h : hosts_) hosts.push_back(h.get());
  return hosts;
}

Host* SshCluster::FindHost(const std::string& name) {
  for (auto& h : hosts_) {
    if (h->Name() == name) return h.get();
  }
  return nullptr;
}

std::string SshCluster::ClientAddress(int index) {
  if (index < 0) return "";
  return controller_address_;
}

Status SshCluster::FetchLogs(SshHost& host) {
  if (nodes_dir_.empty()) return OkStatus();
  auto r = host.RunScript(kFetchScript, {host.Directory()}, "", kTeardownTimeout);
  if (!r) return Error{r.error()};
  if (r->exit_code != 0) {
    return Error{"host " + host.Name() + ": cannot fetch its files: " + FirstLine(r->err)};
  }
  if (r->out.empty()) return OkStatus();
  const fs::path dir = fs::path(nodes_dir_) / host.Name();
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return Error{"cannot create " + dir.string() + ": " + ec.message()};
  const fs::path archive = fs::path(control_dir_) / (host.Name() + ".tar");
  {
    std::ofstream out(archive, std::ios::binary | std::ios::trunc);
    out.write(r->out.data(), static_cast<std::streamsize>(r->out.size()));
    if (!out) return Error{"cannot write " + archive.string()};
  }
  auto untar = RunCommand({"tar", "-xf", archive.string(), "-C", dir.string(),
                           "--no-same-owner"},
                          "", kTeardownTimeout);
  fs::remove(archive, ec);
  if (!untar) return Error{untar.error()};
  if (untar->exit_code != 0) {
    return Error{"host " + host.Name() + ": cannot unpack its files: " + untar->output};
  }
  return OkStatus();
}

Status SshCluster::Teardown() {
  std::lock_guard<std::mutex> lock(teardown_mu_);
  if (torn_down_) return OkStatus();
  const size_t n = hosts_.size();
  // Servers and rules first, then the files (logs complete), then the
  // directories: hosts may share a filesystem (namespaces of one machine).
  std::vector<std::string> failures(n);
  Status stopped = ForEachInParallel(n, [&](size_t i) -> Status {
    auto r = hosts_[i]->RunScript(kCleanupScript, {kSshBaseDir, tag_, "keep"}, "",
                                  kTeardownTimeout);
    if (!r) return Error{r.error()};
    if (r->exit_code != 0) return Error{"host " + hosts_[i]->Name() + ": " + FirstLine(r->err)};
    return OkStatus();
  });
  Status fetched = ForEachInParallel(n, [&](size_t i) { return FetchLogs(*hosts_[i]); });
  Status removed = ForEachInParallel(n, [&](size_t i) -> Status {
    auto r = hosts_[i]->RunScript(kCleanupScript, {kSshBaseDir, tag_, "all"}, "",
                                  kTeardownTimeout);
    if (!r) return Error{r.error()};
    if (r->exit_code != 0) return Error{"host " + hosts_[i]->Name() + ": " + FirstLine(r->err)};
    return OkStatus();
  });
  for (size_t i = 0; i < n; ++i) {
    Disconnect(control_dir_ + "/" + std::to_string(i), hosts_[i]->Node());
  }
  Status control_removed = RemoveControlDir(control_dir_);
  std::string errors;
  for (const Status* s : {&stopped, &removed, &control_removed}) {
    if (!*s) errors += "\n  " + s->error();
  }
  if (!errors.empty()) {
    torn_down_ = true;  // the control connections are gone: cleanup finishes the rest
    return Error{"teardown of ssh cluster " + tag_ + " incomplete (run `locksmith cleanup "
                 "--provider ssh --nodes ... --tag " + tag_ + "`):" + errors};
  }
  torn_down_ = true;
  if (!fetched) return Error{"teardown of ssh cluster " + tag_ + ": " + fetched.error()};
  return OkStatus();
}

// Whether `path` is a directory of this user that no one else may enter
// (what mkdtemp makes): a name another user took in /tmp is not ours.
bool IsOwnPrivateDirectory(const fs::path& path) {
  struct stat st {};
  return lstat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == geteuid() &&
         (st.st_mode & 077) == 0;
}

// Closes the control connections that a dead controller left on this
// machine (/tmp/lsm-ssh-<tag>-<pid>-XXXXXX/, `only_tag`'s or every tag's).
void CloseStaleControlConnections(std::ostream& out, const std::string& only_tag) {
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator("/tmp", ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("lsm-ssh-", 0) != 0) continue;
    const std::string rest = name.substr(8);  // <tag>-<pid>-XXXXXX
    const size_t dash = rest.find('-');
    if (dash == std::string::npos) continue;
    const std::string tag = rest.substr(0, dash);
    if (!ValidateTag(tag).ok() || (!only_tag.empty() && tag != only_tag)) continue;
    if (!IsOwnPrivateDirectory(entry.path())) continue;
    int pid = 0;
    try {
      pid = std::stoi(rest.substr(dash + 1));
    } catch (const std::exception&) {
      continue;
    }
    if (pid == getpid() || (pid > 0 && kill(pid, 0) == 0)) continue;  // a live controller's
    std::error_code inner;
    for (const auto& socket : fs::directory_iterator(entry.path(), inner)) {
      Disconnect(socket.path().string(), "node");
      out << "run " << tag << ": closed control connection " << socket.path().string() << "\n";
    }
    if (Status s = RemoveControlDir(entry.path().string()); !s) out << s.error() << "\n";
  }
}

namespace {

// What the nodes' cleanups say, gathered from their threads: every line in
// order, failures and objects left also in the report.
class NodeCleanupLog {
 public:
  explicit NodeCleanupLog(CleanupReport& report) : report_(report) {}

  void Note(const std::string& node, const std::string& line) { Add(node, line, nullptr); }
  void Fail(const std::string& node, const std::string& line) {
    Add(node, line, &report_.failed);
  }
  void Leave(const std::string& node, const std::string& line) { Add(node, line, &report_.left); }
  // Each line of a cleanup script's output, as done for run `tag`.
  void NoteRemovals(const std::string& node, const std::string& tag, const std::string& output) {
    std::istringstream done(output);
    std::string removal;
    while (std::getline(done, removal)) Note(node, "run " + tag + ": " + removal);
  }
  const std::vector<std::string>& lines() const { return lines_; }

 private:
  void Add(const std::string& node, const std::string& line, std::vector<std::string>* list) {
    std::lock_guard<std::mutex> lock(mu_);
    lines_.push_back("node " + node + ": " + line);
    if (list != nullptr) list->push_back("node " + node + ": " + line);
  }

  CleanupReport& report_;
  std::mutex mu_;
  std::vector<std::string> lines_;
};

// One line of kListScript's output ("tag machine pid start-time"): cleans up
// that run unless it is not ours to clean.
void CleanListedRun(SshHost& host, const std::string& node, const std::string& listed,
                    const SshCleanupOptions& options, const std::string& machine,
                    NodeCleanupLog& log) {
  std::istringstream words(listed);
  std::string tag, owner_machine;
  int pid = 0;
  uint64_t start = 0;
  words >> tag >> owner_machine >> pid >> start;
  if (!ValidateTag(tag).ok()) return;
  if (!options.only_tag.empty() && tag != options.only_tag) return;
  if (owner_machine == machine && IsSameProcessAlive(pid, start)) {
    log.Note(node,
             "run " + tag + ": controller pid " + std::to_string(pid) + " still runs; skipped");
    return;
  }
  if (options.only_tag.empty() && owner_machine != machine) {
    log.Leave(node, "run " + tag + " belongs to another controller (" + owner_machine +
                        "); left (name it with --tag to remove it)");
    return;
  }
  auto r = host.RunScript(kCleanupScript, {kSshBaseDir, tag, "all"}, "", kTeardownTimeout);
  if (!r || r->exit_code != 0) {
    log.Fail(node, "run " + tag + ": " + (r ? FirstLine(r->err) : r.error()));
    return;
  }
  log.NoteRemovals(node, tag, r->out);
}

// Cleans up the dead runs on one node through its own control connection.
void CleanSshNode(const SshCleanupOptions& options, const std::string& node,
                  const std::string& control, const std::string& machine, NodeCleanupLog& log) {
  if (Status s = Connect(options.ssh, control, node); !s) {
    log.Fail(node, s.error());
    return;
  }
  SshHost host("cleanup", node, node, kSshBaseDir, "", options.ssh, control);
  auto listed = host.RunScript(kListScript, {kSshBaseDir}, "", kTeardownTimeout);
  if (!listed || listed->exit_code != 0) {
    log.Fail(node, "cannot list " + std::string(kSshBaseDir) + ": " +
                       (listed ? FirstLine(listed->err) : listed.error()));
    Disconnect(control, node);
    return;
  }
  std::istringstream in(listed->out);
  std::string line;
  while (std::getline(in, line)) CleanListedRun(host, node, line, options, machine, log);
  // A tag named explicitly may have left chains without a directory.
  if (!options.only_tag.empty() && listed->out.find(options.only_tag) == std::string::npos) {
    auto r = host.RunScript(kCleanupScript, {kSshBaseDir, options.only_tag, "all"}, "",
                            kTeardownTimeout);
    if (r && r->exit_code == 0) log.NoteRemovals(node, options.only_tag, r->out);
  }
  Disconnect(control, node);
}

}  // namespace

CleanupReport CleanupSshLeftovers(std::ostream& out, const SshCleanupOptions& options) {
  CleanupReport report;
  if (!options.only_tag.empty()) {
    if (Status s = ValidateTag(options.only_tag); !s) {
      report.failed.push_back(s.error());
      return report;
    }
  }
  CloseStaleControlConnections(out, options.only_tag);
  auto control_dir = MakeSshControlDir("clean0");
  if (!control_dir) {
    report.failed.push_back(control_dir.error());
    return report;
  }
  const std::string machine = MachineId();
  NodeCleanupLog log(report);
  (void)ForEachInParallel(options.nodes.size(), [&](size_t i) -> Status {
    CleanSshNode(options, options.nodes[i], *control_dir + "/" + std::to_string(i), machine, log);
    return OkStatus();
  });
  if (Status s = RemoveControlDir(*control_dir); !s) report.failed.push_back(s.error());
  for (const auto& l : log.lines()) out << l << "\n";
  return report;
}

}  // namespace locksmith
