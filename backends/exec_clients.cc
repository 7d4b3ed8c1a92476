#include "backends/exec_clients.h"

#include <cstdlib>
#include <filesystem>

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

std::unique_ptr<LockClient> ExecClients::NewClient(
    boost::asio::any_io_executor executor, const ClientSlot& slot, int count,
    const std::function<ClientSlot(int)>& slot_of) {
  if (slot.index == 0 && launched_.empty()) {
    for (int i = 0; i < count; ++i) {
      auto client = Make(executor, slot_of(i));
      (void)client->Launch();  // a failure is Connect's to report
      launched_[i] = std::move(client);
    }
  }
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
  o.report = options_.report;
  return std::make_unique<ExecLockClient>(std::move(executor), supervisor_, std::move(o));
}

}  // namespace locksmith
