#include "backends/redlock_service.h"

#include "backends/redis_service.h"
#include "backends/redlock_client.h"
#include "base/random_secret.h"

namespace locksmith {

void RedlockOptions::Declare(OptionSet& set) {
  set.Integer("masters", "--masters", &masters, 1, 25,
              "independent Redis masters (odd), one per host n1..nN");
  set.Choice("redis_persistence", "--redis-persistence", &persistence, PersistenceModes(),
             "AOF fsync policy of every master: what a SIGKILLed master remembers");
  set.Integer("redlock_node_timeout_ms", "--redlock-node-timeout", &node_timeout_ms,
              int64_t{1}, int64_t{60'000},
              "ms the Redlock client waits for one master's SET reply");
  set.Flag("redlock_no_drift", "--redlock-no-drift", &no_drift,
           "the Redlock client subtracts no clock drift allowance (1% of the TTL + 2 ms)");
  set.Flag("redlock_sequential", "--redlock-sequential", &sequential,
           "the Redlock client sends its SETs one master after another, not in parallel");
  set.Flag("redlock_wall_clock", "--redlock-wall-clock", &wall_clock,
           "the Redlock client measures elapsed time on the wall clock, not the monotonic one");
  set.Require([this]() -> Status {
    if (masters % 2 == 0) {
      return Error{"--masters must be odd (a quorum of an even number ties), not " +
                   std::to_string(masters)};
    }
    return OkStatus();
  });
}

int RedlockHosts(const ModuleOptions& options) {
  return OptionsAs<RedlockOptions>(options).masters;
}

Result<std::unique_ptr<LockService>> MakeRedlockService(const ModuleOptions& options,
                                                        const BackendContext& context) {
  const RedlockOptions o = OptionsAs<RedlockOptions>(options);
  RedisServiceOptions r;
  r.backend = "redlock";
  r.nodes = o.masters;
  r.persistence = o.persistence;
  auto password = NewServerPassword();
  if (!password) return Error{password.error()};
  r.password = *password;
  r.client_timeout = context.client_timeout;
  r.make_client = [o, timeout = context.client_timeout](
                      boost::asio::any_io_executor executor,
                      const std::vector<RedisNodeEndpoint>& nodes,
                      const ClientSlot& slot) -> std::unique_ptr<LockClient> {
    RedlockClientOptions c;
    for (const auto& node : nodes) c.masters.push_back({node.name, node.endpoint});
    c.node_timeout = std::chrono::milliseconds(o.node_timeout_ms);
    c.timeout = timeout;
    c.connect_timeout = timeout;
    c.no_drift = o.no_drift;
    c.sequential = o.sequential;
    c.wall_clock = o.wall_clock;
    return std::make_unique<RedlockClient>(std::move(executor), std::move(c), slot.seed);
  };
  return std::unique_ptr<LockService>(new RedisService(context.cluster, r));
}

}  // namespace locksmith
