#include "harness/exec_client_setup.h"

#include <exception>
#include <map>
#include <utility>

#include <boost/asio/co_spawn.hpp>

#include "backends/exec_protocol.h"
#include "backends/task_group.h"
#include "base/option_set.h"
#include "cluster/process_cgroup.h"

namespace locksmith {
namespace {

// The lock keys a workload uses, when there are few enough to list: its
// key prefix and the option that counts them.
nlohmann::json WorkloadKeys(const std::string& workload, const nlohmann::json& options) {
  static const std::map<std::string, std::pair<std::string, std::string>> kKeys = {
      {"mutex", {"lock", "keys"}},
      {"inventory", {"item", "items"}},
      {"counter", {"counter", "counters"}},
      {"rw-cache", {"cache", "caches"}},
  };
  constexpr int64_t kMostListed = 10000;
  auto it = kKeys.find(workload);
  if (it == kKeys.end()) return nullptr;
  const auto count = options.find(it->second.second);
  if (count == options.end() || !count->is_number_integer()) return nullptr;
  const int64_t n = count->get<int64_t>();
  if (n > kMostListed) return nullptr;
  nlohmann::json keys = nlohmann::json::array();
  for (int64_t i = 0; i < n; ++i) keys.push_back(it->second.first + "-" + std::to_string(i));
  return keys;
}

// The pause a worker takes after a refused acquire (the workload's
// "backoff"), which the exec clients take after an info too; 5-50 ms for a
// workload without one.
MsRange WorkloadBackoff(const RunConfig& config) {
  const nlohmann::json options =
      config.workload_options ? config.workload_options->set().ToJson() : nlohmann::json::object();
  const auto backoff = options.find("backoff");
  if (backoff == options.end() || !backoff->is_string()) return MsRange{5, 50};
  auto range = ParseMsRange(backoff->get<std::string>());
  return range ? *range : MsRange{5, 50};
}

}  // namespace

nlohmann::json ExecRunFacts(const RunConfig& config, const LockService& service) {
  nlohmann::json facts = ExecServiceFacts(service);
  const nlohmann::json options =
      config.workload_options ? config.workload_options->set().ToJson() : nlohmann::json::object();
  facts["workload"] = config.workload;
  facts["lease_ms"] = options.value("lease_ms", int64_t{0});
  facts["keys"] = WorkloadKeys(config.workload, options);
  facts["fencing"] = config.fencing == "on";
  facts["timeout_ms"] = config.client_timeout_ms;
  return facts;
}

Result<std::unique_ptr<ExecClients>> MakeRunExecClients(const RunConfig& config,
                                                        const LockService& service,
                                                        Cluster& cluster,
                                                        const std::string& run_dir, RunLog& log) {
  const std::string client = config.ResolvedClient();
  if (!IsExecClient(client)) return std::unique_ptr<ExecClients>();
  auto argv = ParseExecClient(client);
  if (!argv) return std::unique_ptr<ExecClients>();  // ValidateRunConfig refused it already
  ExecClientsOptions o;
  o.argv = std::move(*argv);
  o.facts = ExecRunFacts(config, service);
  o.timeout = std::chrono::milliseconds(config.client_timeout_ms);
  o.log_dir = run_dir + "/clients";
  o.fencing = config.fencing == "on";
  o.info_backoff = WorkloadBackoff(config);
  o.cgroup_tag = cluster.Tag();
  o.report = [&log](const std::string& line) { log.Info(line); };
  for (int i = 0; i < config.concurrency; ++i) {
    auto host = cluster.ClientHost(i);
    if (!host) return Error{"lock clients: " + host.error()};
    if (*host == nullptr) break;  // the provider has none: every program beside the controller
    o.hosts.push_back(*host);
  }
  log.Info("lock clients: " + client + ", one process per client" +
           (o.hosts.empty() ? std::string(" beside the controller")
                            : ", each in a network namespace of its own") +
           ", stderr in " + o.log_dir + "; " + DescribeContainment(o.cgroup_tag));
  return std::make_unique<ExecClients>(std::move(o));
}

}  // namespace locksmith

namespace locksmith {

Status StartRunExecClients(ExecClients& clients, WorkloadContext& ctx) {
  bool ended = false;
  Status status = Error{"lock clients: stopped before every handshake ended"};
  auto start = [&]() -> boost::asio::awaitable<void> {
    status = co_await clients.Start(
        ctx.io.get_executor(), ctx.options.concurrency, [&ctx](int i) { return ctx.Slot(i); },
        [&ctx] { return ctx.ShouldStop(); });
  };
  boost::asio::co_spawn(ctx.io, start(), [&](std::exception_ptr error) {
    if (error) status = Error{"lock clients: " + DescribeException(error)};
    ended = true;
  });
  // Not io.run(): the programs' readers keep it busy once they answered.
  ctx.io.restart();
  while (!ended && ctx.io.run_one() > 0) {
  }
  if (!ended) return status;  // stopped (a second signal)
  return status ? status : Error{"lock clients: " + status.error()};
}

}  // namespace locksmith
