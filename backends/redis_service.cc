#include "backends/redis_service.h"

#include <hiredis/hiredis.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <thread>

#include "backends/redis_lock_client.h"

namespace locksmith {
namespace fs = std::filesystem;

namespace {

// Quotes a redis.conf argument (the password may hold any printable text).
std::string Quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out.push_back('\\');
    out.push_back(c);
  }
  return out + "\"";
}

// One blocking PING, with AUTH: ok only on PONG. A LOADING reply (AOF being
// replayed after a restart) is not ready yet.
Status Ping(const std::string& address, int port, const std::string& password) {
  timeval tv{0, 300'000};
  std::unique_ptr<redisContext, void (*)(redisContext*)> c(
      redisConnectWithTimeout(address.c_str(), port, tv), redisFree);
  if (!c || c->err) return Error{c ? c->errstr : "cannot allocate a redis context"};
  redisSetTimeout(c.get(), tv);
  auto command = [&](std::vector<std::string> argv) -> std::string {
    std::vector<const char*> args;
    std::vector<size_t> lens;
    for (const auto& a : argv) {
      args.push_back(a.data());
      lens.push_back(a.size());
    }
    auto* reply = static_cast<redisReply*>(
        redisCommandArgv(c.get(), static_cast<int>(args.size()), args.data(), lens.data()));
    if (reply == nullptr) return std::string("no reply: ") + c->errstr;
    std::string text = reply->str ? std::string(reply->str, reply->len) : "";
    const bool error = reply->type == REDIS_REPLY_ERROR;
    freeReplyObject(reply);
    return error ? "error: " + text : text;
  };
  if (!password.empty()) {
    std::string auth = command({"AUTH", password});
    if (auth != "OK") return Error{"AUTH: " + auth};
  }
  std::string pong = command({"PING"});
  if (pong != "PONG") return Error{"PING: " + pong};
  return OkStatus();
}

std::string LastLines(const std::string& path, size_t n) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  std::string out;
  for (size_t i = lines.size() > n ? lines.size() - n : 0; i < lines.size(); ++i) {
    out += (out.empty() ? "" : " | ") + lines[i];
  }
  return out;
}

}  // namespace

std::string RedisConfigText(const std::string& address, int port, const std::string& password,
                            const std::string& persistence, const std::string& data_dir) {
  std::ostringstream c;
  c << "# Written by locksmith for one test node.\n"
    << "bind " << address << "\n"
    << "port " << port << "\n"
    << "protected-mode yes\n"
    << "requirepass " << Quoted(password) << "\n"
    << "daemonize no\n"
    << "supervised no\n"
    << "logfile \"\"\n"  // stdout: the supervisor appends it to the node's log
    << "dir " << Quoted(data_dir) << "\n"
    << "dbfilename dump.rdb\n"
    << "save \"\"\n";  // no RDB snapshots: persistence is the AOF's alone
  if (persistence == "none") {
    c << "appendonly no\n";
  } else {
    c << "appendonly yes\n"
      << "appendfsync " << persistence << "\n";
  }
  return c.str();
}

RedisService::RedisService(Cluster& cluster, RedisServiceOptions options)
    : cluster_(cluster), options_(std::move(options)) {
  auto hosts = cluster_.Hosts();
  for (int i = 0; i < options_.nodes && i < static_cast<int>(hosts.size()); ++i) {
    Node node;
    node.name = hosts[i]->Name();
    node.host = hosts[i];
    node.port = hosts[i]->ServicePort(6379);
    node.dir = (fs::path(options_.nodes_dir) / node.name).string();
    nodes_.push_back(node);
  }
}

RedisService::Node* RedisService::FindNode(const std::string& name) {
  for (auto& n : nodes_) {
    if (n.name == name) return &n;
  }
  return nullptr;
}

Status RedisService::Launch(Node& node) {
  std::error_code ec;
  const fs::path data = fs::path(node.dir) / "data";
  fs::create_directories(data, ec);
  if (ec) return Error{"cannot create " + data.string() + ": " + ec.message()};
  const std::string conf = (fs::path(node.dir) / "redis.conf").string();
  {
    std::ofstream out(conf, std::ios::trunc);
    out << RedisConfigText(node.host->Address(), node.port, options_.password,
                           options_.persistence, data.string());
    if (!out) return Error{"cannot write " + conf};
  }
  const std::string log = (fs::path(node.dir) / "redis.log").string();
  auto pid = node.host->Spawn(ProcessSpec{{"redis-server", conf}, {}, log, node.dir});
  if (!pid) return Error{node.name + ": cannot start redis-server: " + pid.error()};
  node.pid = *pid;

  const auto give_up = std::chrono::steady_clock::now() + options_.ready_timeout;
  Status last = Error{"not tried"};
  while (std::chrono::steady_clock::now() < give_up) {
    if (!node.host->Alive(node.pid)) {
      node.pid = -1;
      return Error{node.name + ": redis-server exited at start: " + LastLines(log, 3)};
    }
    last = Ping(node.host->Address(), node.port, options_.password);
    if (last) return OkStatus();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return Error{node.name + ": redis-server did not answer within " +
               std::to_string(options_.ready_timeout.count()) + " ms: " + last.error()};
}

Status RedisService::Start() {
  if (nodes_.size() < static_cast<size_t>(options_.nodes)) {
    return Error{"the redis backend needs " + std::to_string(options_.nodes) + " hosts, the cluster has " +
                 std::to_string(nodes_.size())};
  }
  std::lock_guard lock(mu_);
  for (auto& node : nodes_) {
    if (Status s = Launch(node); !s) return s;
  }
  return OkStatus();
}

void RedisService::Stop() {
  std::lock_guard lock(mu_);
  for (auto& node : nodes_) {
    if (node.pid > 0) (void)node.host->Kill(node.pid);
    node.pid = -1;
  }
}

std::vector<std::string> RedisService::Nodes() const {
  std::vector<std::string> names;
  for (const auto& n : nodes_) names.push_back(n.name);
  return names;
}

std::unique_ptr<LockClient> RedisService::NewClient(boost::asio::any_io_executor executor,
                                                    uint64_t seed) {
  const Node& primary = nodes_.front();
  RedisLockClientOptions o;
  o.endpoint = {primary.host->Address(), static_cast<uint16_t>(primary.port), options_.password};
  o.timeout = options_.client_timeout;
  o.connect_timeout = options_.client_timeout;
  return std::make_unique<RedisLockClient>(std::move(executor), std::move(o), seed);
}

nlohmann::json RedisService::Describe() const {
  nlohmann::json nodes = nlohmann::json::array();
  for (const auto& n : nodes_) {
    nodes.push_back({{"name", n.name}, {"role", "master"}, {"address", n.host->Address()},
                     {"port", n.port}});
  }
  return {{"backend", "redis"}, {"persistence", options_.persistence}, {"nodes", nodes}};
}

Status RedisService::KillNode(const std::string& name) {
  std::lock_guard lock(mu_);
  Node* node = FindNode(name);
  if (node == nullptr) return Error{"no redis node " + name};
  if (node->pid <= 0) return Error{name + " is already down"};
  Status s = node->host->Kill(node->pid);
  node->pid = -1;
  return s;
}

Status RedisService::StartNode(const std::string& name) {
  std::lock_guard lock(mu_);
  Node* node = FindNode(name);
  if (node == nullptr) return Error{"no redis node " + name};
  if (node->pid > 0 && node->host->Alive(node->pid)) return Error{name + " is already running"};
  return Launch(*node);
}

}  // namespace locksmith
