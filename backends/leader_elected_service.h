// LeaderElectedService: a ServerSetService whose servers elect a leader
// among themselves (ZooKeeper's ensemble, etcd's cluster). The leader of
// the moment has the primary role in Table() (asked at most once per
// 100 ms: LeaderCache), is Primary() and is promoted anew when it goes; a
// leader killed, or the service stopped, is forgotten at once. A service
// says only how to ask its servers who leads now (AskLeader).
//
// Thread-safety: as ServerSetService; the leader cache guards itself and is
// not held while the servers are asked (up to a timeout each).
#pragma once

#include <chrono>
#include <string>

#include "backends/leader_cache.h"
#include "backends/server_set_service.h"

namespace locksmith {

class LeaderElectedService : public ServerSetService {
 public:
  // The table with the leader of the moment in the primary role.
  NodeTable Table() const override;
  void Stop() override;
  Result<std::string> Primary() override { return LeaderNow(); }
  bool Promotes() const override { return true; }
  Status KillNode(const std::string& node) override;

 protected:
  using ServerSetService::ServerSetService;

  // The server that leads now, asked of every server that answers; an error
  // saying what each said when none does.
  virtual Result<std::string> AskLeader() const = 0;
  // AskLeader's answer, remembered for Table() (StartServers awaits it).
  Result<std::string> LeaderNow() const;

 private:
  mutable LeaderCache leader_{std::chrono::milliseconds(100)};
};

}  // namespace locksmith
