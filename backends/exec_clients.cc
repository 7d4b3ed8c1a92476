#include "backends/exec_clients.h"

#include <cstdlib>
#include <filesystem>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "backends/task_group.h"

namespace locksmith {

nlohmann::json ExecServiceFacts(const LockService& service) {
  nlohmann::json nodes = NodeTableJson(service.Table());
  return {{"backend", service.Backend()}, {"password", service.ClientPassword()},
          {"nodes", std::move(nodes)}, {"settings", service.Settings()}};
}

ExecClients::ExecClients(ExecClientsOptions options) : options_(std::move(options)) {
  // The program starts in its log directory: a relative path names a file
  // from where the run was started.
  std::string& program = options_.argv.front();
  if (program.find('/') != std::string::npos && program.front() != '/') {
    std::error_code ec;
    const auto absolute = std::filesystem::absolute(program, ec);
    if (!ec) program = absolute.lexically_normal().string();
  }
}

ExecClients::~ExecClients() {
  launched_.clear();  // their programs are killed by their own supervisor's calls
  (void)supervisor_.KillAll();
}

void ExecClients::Launch(const boost::asio::any_io_executor& executor, int count,
                         const std::function<ClientSlot(int)>& slot_of) {
  for (int i = 0; i < count; ++i) {
    auto client = Make(executor, slot_of(i));
    (void)client->Launch();  // a failure is Connect's to report
    launched_[i] = std::move(client);
  }
}

void ExecClients::CloseLaunched() {
  for (auto& [slot, client] : launched_) client->Close();
}

// The handshakes under way: the first error, how many have not ended, and
// the timer Start polls its stop on (cancelled when the last one ends).
struct ExecClients::Handshakes {
  explicit Handshakes(const boost::asio::any_io_executor& executor) : poll(executor) {}
  std::string first_error;
  size_t waiting = 0;
  boost::asio::steady_timer poll;
};

boost::asio::awaitable<void> ExecClients::AwaitHandshake(ExecLockClient& client,
                                                         Handshakes& state) {
  Status connected = co_await client.Connect();
  if (!connected && state.first_error.empty()) {
    state.first_error = connected.error();
    CloseLaunched();  // the others' handshakes end at once
  }
  if (--state.waiting == 0) state.poll.cancel();
}

boost::asio::awaitable<Status> ExecClients::Start(boost::asio::any_io_executor executor,
                                                  int count,
                                                  const std::function<ClientSlot(int)>& slot_of,
                                                  std::function<bool()> stop) {
  namespace asio = boost::asio;
  Launch(executor, count, slot_of);
  Handshakes state(executor);
  state.waiting = launched_.size();
  TaskGroup handshakes(executor);
  for (auto& [slot, client] : launched_) {
    handshakes.Spawn("handshake of client " + std::to_string(slot),
                     AwaitHandshake(*client, state));
  }
  while (state.waiting > 0) {
    state.poll.expires_after(std::chrono::milliseconds(50));
    auto [ec] = co_await state.poll.async_wait(asio::as_tuple(asio::use_awaitable));
    if (!ec && state.waiting > 0 && stop && stop() && state.first_error.empty()) {
      state.first_error = "interrupted before every lock client answered its handshake";
      CloseLaunched();
    }
  }
  Status ended = co_await handshakes.Wait();
  if (!ended && state.first_error.empty()) state.first_error = ended.error();
  if (state.first_error.empty()) co_return OkStatus();
  CloseLaunched();
  launched_.clear();
  co_return Error{state.first_error};
}

std::unique_ptr<LockClient> ExecClients::NewClient(
    boost::asio::any_io_executor executor, const ClientSlot& slot, int count,
    const std::function<ClientSlot(int)>& slot_of) {
  if (slot.index == 0 && launched_.empty()) Launch(executor, count, slot_of);
  if (auto it = launched_.find(slot.index); it != launched_.end()) {
    auto client = std::move(it->second);
    launched_.erase(it);
    return client;
  }
  return Make(std::move(executor), slot);
}

std::unique_ptr<ExecLockClient> ExecClients::Make(boost::asio::any_io_executor executor,
                                                  const ClientSlot& slot) {
  ExecClientOptions o;
  o.argv = options_.argv;
  o.facts = options_.facts;
  o.index = slot.index;
  o.source_address = slot.source_address;
  const auto index = static_cast<size_t>(slot.index);
  if (slot.index >= 0 && index < options_.hosts.size()) o.host = options_.hosts[index];
  o.timeout = options_.timeout;
  o.start_timeout = options_.start_timeout;
  o.log_path = options_.log_dir + "/client-" + std::to_string(slot.index) + ".log";
  if (const char* path = std::getenv("PATH"); path != nullptr) o.env_path = path;
  o.fencing = options_.fencing;
  o.info_backoff = options_.info_backoff;
  o.seed = slot.seed;
  o.report = options_.report;
  return std::make_unique<ExecLockClient>(std::move(executor), supervisor_, std::move(o));
}

}  // namespace locksmith
