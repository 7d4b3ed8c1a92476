// FakeCluster (test-only): a Cluster of FakeHosts, for unit tests of backends
// and nemeses without root or servers. Teardown kills every fake process and
// refuses later spawns, like a real cluster, and can be made to fail. Given a
// FakeNet, every host gets a namespace "fake-<tag>-<host>" on the bridge
// "fake-<tag>-br" with an address in 198.18.0.0/28 (the bridge: .1, host i:
// .2+i) and clients in 198.19.0.0/24, iptables Execs act there, and
// Teardown deletes the namespaces (with their rules) and the bridge.
// Thread-safe: hosts are fixed at construction; the rest has a mutex.
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "cluster/host.h"
#include "cluster/testing/fake_host.h"

namespace locksmith::testing {

class FakeCluster : public Cluster {
 public:
  explicit FakeCluster(const std::vector<std::string>& host_names, std::string tag = "fake01",
                       FakeNet* net = nullptr)
      : tag_(std::move(tag)), net_(net) {
    for (size_t i = 0; i < host_names.size(); ++i) {
      if (net_ == nullptr) {
        hosts_.push_back(std::make_unique<FakeHost>(host_names[i]));
        continue;
      }
      const std::string address = "198.18.0." + std::to_string(2 + i);
      hosts_.push_back(std::make_unique<FakeHost>(host_names[i], address, true));
      const std::string netns = "fake-" + tag_ + "-" + host_names[i];
      net_->AddHost(Bridge(), "198.18.0.1", netns, address);
      hosts_.back()->AttachNet(net_, netns);
    }
    if (net_ != nullptr) {
      std::vector<std::string> netns;
      for (auto& h : hosts_) netns.push_back(h->netns());
      net_->AddClientRange(Bridge(), "198.18.0.1", netns, "198.19.0.0/24");
    }
  }

  const std::string& Tag() const override { return tag_; }
  std::vector<Host*> Hosts() override {
    std::vector<Host*> hosts;
    for (auto& h : hosts_) hosts.push_back(h.get());
    return hosts;
  }
  Host* FindHost(const std::string& name) override { return Fake(name); }
  // With a FakeNet, client i is 198.19.0.<i+1> (as slice 0 of the local
  // provider); without, none.
  std::string ClientAddress(int index) override {
    if (net_ == nullptr || index < 0 || index >= 254) return "";
    return "198.19.0." + std::to_string(index + 1);
  }
  Status Teardown() override {
    std::lock_guard lock(mu_);
    ++teardowns_;
    for (auto& h : hosts_) h->TearDown();
    if (net_ != nullptr) {
      for (auto& h : hosts_) {
        if (net_->NetnsExists(h->netns())) (void)net_->Ip({"netns", "del", h->netns()});
      }
      if (net_->LinkExists(Bridge())) (void)net_->Ip({"link", "del", Bridge()});
    }
    if (teardown_error_) return Error{*teardown_error_};
    return OkStatus();
  }

  // The fake behind a host name (nullptr if none), for test controls.
  FakeHost* Fake(const std::string& name) {
    for (auto& h : hosts_) {
      if (h->Name() == name) return h.get();
    }
    return nullptr;
  }
  std::string Bridge() const { return "fake-" + tag_ + "-br"; }
  // Teardown still kills everything but then reports `error`.
  void FailTeardown(std::string error) {
    std::lock_guard lock(mu_);
    teardown_error_ = std::move(error);
  }
  int teardowns() const {
    std::lock_guard lock(mu_);
    return teardowns_;
  }

 private:
  const std::string tag_;
  FakeNet* const net_;
  std::vector<std::unique_ptr<FakeHost>> hosts_;
  mutable std::mutex mu_;
  std::optional<std::string> teardown_error_;
  int teardowns_ = 0;
};

}  // namespace locksmith::testing
