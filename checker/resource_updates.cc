#include "checker/resource_updates.h"

#include <algorithm>
#include <limits>

#include "checker/checker.h"

namespace locksmith {
namespace {

int64_t IntField(const nlohmann::json& value, const char* name, int64_t fallback = 0) {
  if (!value.is_object()) return fallback;
  auto it = value.find(name);
  if (it == value.end() || !it->is_number_integer()) return fallback;
  return it->get<int64_t>();
}

// The write's "fence" as an integer, or (any other JSON) as its text.
void ReadFence(const nlohmann::json& value, ResourceUpdate& u) {
  if (!value.is_object()) return;
  auto it = value.find("fence");
  if (it == value.end()) return;
  const bool fits = it->is_number_integer() &&
                    (!it->is_number_unsigned() ||
                     it->get<uint64_t>() <= uint64_t{std::numeric_limits<int64_t>::max()});
  if (fits) {
    u.fence = it->get<int64_t>();
  } else {
    u.other_fence = it->dump();
  }
}

void Count(ResourceCounts& counts, const ResourceUpdate& u) {
  if (u.outcome == OpType::kOk) ++counts.acknowledged;
  if (u.outcome == OpType::kInfo) ++counts.maybe;
  if (u.rejected) ++counts.rejected;
}

}  // namespace

bool IsRejected(const Op& completion) {
  return completion.type == OpType::kFail && completion.value.is_object() &&
         completion.value.value("rejected", false);
}

void ResourceUpdates::Observe(const Op& op) {
  const int64_t position = position_++;
  const CompletionPairer::Pairing pairing = pairer_.Observe(op);
  if (!op.is_client()) return;
  if (op.type == OpType::kInvoke) {
    OnInvoke(op, position);
  } else if (pairing.invoke) {
    OnCompletion(*pairing.invoke, op);
  }
}

void ResourceUpdates::OnInvoke(const Op& op, int64_t position) {
  ProcessState& p = processes_[op.process];
  // Its write in flight was never completed: a process invokes again only
  // once its last op is over.
  if (p.writing) Settle(p, nullptr);
  p.invoked = position;
  if (op.f == "release") {
    for (auto& [key, u] : p.open) {
      if (key == op.key) u->release = marks_.Mark(op);
    }
    p.open.clear();
    if (p.acquire_key == op.key) p.acquire = OpMark();
  } else if (op.f == "write") {
    OnWriteInvoke(p, op, position);
  }
}

void ResourceUpdates::OnWriteInvoke(ProcessState& p, const Op& op, int64_t position) {
  auto u = std::make_shared<ResourceUpdate>();
  u->process = op.process;
  if (p.acquire_key == op.key) u->acquire = p.acquire;
  if (p.read_key == op.key) u->read = p.read;
  u->write = marks_.Mark(op);
  u->value = IntField(op.value, "value");
  u->read_value = IntField(op.value, "read", u->read.present ? p.read_value : 0);
  if (op.value.is_object()) {
    auto order = op.value.find("order");
    if (order != op.value.end() && order->is_string()) u->order = order->get<std::string>();
  }
  ReadFence(op.value, *u);
  ResourceKey& key = keys_[op.key];
  key.has_updates = true;
  key.waiting.emplace(position, u);
  p.open.emplace_back(op.key, u);
  p.writing = std::move(u);
  p.writing_key = op.key;
}

void ResourceUpdates::OnCompletion(const Op& invoke, const Op& op) {
  ProcessState& p = processes_[invoke.process];
  const bool ok = op.type == OpType::kOk;
  if (invoke.f == "acquire") {
    if (!ok) return;
    p.acquire = marks_.Mark(op);
    p.acquire_key = invoke.key;
  } else if (invoke.f == "read") {
    ResourceKey& key = keys_[invoke.key];
    if (ok) {
      p.read = marks_.Mark(op);
      p.read_key = invoke.key;
      p.read_value = IntField(op.value, "value");
      if (p.read_value < 0) key.negative_reads.emplace_back(p.invoked, p.read);
    } else if (IsRejected(op)) {
      ++key.rejected_reads;
    }
  } else if (invoke.f == "write") {
    if (p.writing) Settle(p, &op);
  } else if (invoke.f == "final" && ok && op.value.is_object()) {
    ResourceFinal f{p.invoked, marks_.Mark(op), IntField(op.value, "value"), 0};
    auto orders = op.value.find("orders");
    if (orders != op.value.end() && orders->is_array()) {
      f.orders = std::count_if(orders->begin(), orders->end(),
                               [](const nlohmann::json& o) { return o.is_string(); });
    }
    std::optional<ResourceFinal>& last = keys_[invoke.key].final;
    if (!last || last->invoked < f.invoked) last = f;
  }
}

void ResourceUpdates::Settle(ProcessState& p, const Op* done) {
  ResourceUpdate& u = *p.writing;
  if (done != nullptr) {
    u.write_done = marks_.Mark(*done);
    u.outcome = done->type;
    u.rejected = IsRejected(*done);
  }
  u.settled = true;
  p.writing.reset();
  TakeSettled(keys_[p.writing_key]);
}

void ResourceUpdates::TakeSettled(ResourceKey& key) {
  while (!key.waiting.empty() && key.waiting.begin()->second->settled) {
    Take(key, key.waiting.begin()->second);
    key.waiting.erase(key.waiting.begin());
  }
}

void ResourceUpdates::Take(ResourceKey& key, const std::shared_ptr<ResourceUpdate>& u) {
  Count(key.all, *u);
  if (!u->order.empty()) {
    Count(key.orders, *u);
    if (u->MayHaveHappened() && u->value < 0) key.negative_orders.push_back(u->write);
  }
  // Only acknowledged writes prove an overlap: an info write may not have
  // happened.
  if (u->outcome != OpType::kOk || key.overlapping.size() >= kPairsShown) return;
  auto [it, fresh] = key.last_by_read.emplace(u->read_value, u);
  if (fresh) return;
  key.overlapping.emplace_back(it->second, u);
  it->second = u;  // the next one overlapping is paired with this one
  if (key.overlapping.size() == kPairsShown) {
    std::unordered_map<int64_t, std::shared_ptr<ResourceUpdate>>().swap(key.last_by_read);
  }
}

const std::map<std::string, ResourceKey>& ResourceUpdates::Finish() {
  for (auto& [process, p] : processes_) {
    if (p.writing) Settle(p, nullptr);
  }
  for (auto& [name, key] : keys_) {
    std::stable_sort(key.negative_reads.begin(), key.negative_reads.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    std::unordered_map<int64_t, std::shared_ptr<ResourceUpdate>>().swap(key.last_by_read);
  }
  return keys_;
}

nlohmann::json ResourceUpdates::UpdateEvidence(const ResourceUpdate& u) const {
  nlohmann::json e = {{"process", u.process},       {"hold", Ref(u.acquire)},
                      {"read", Ref(u.read)},        {"read_value", u.read_value},
                      {"write", Ref(u.write)},      {"write_done", Ref(u.write_done)},
                      {"wrote", u.value},           {"release", Ref(u.release)}};
  if (!u.order.empty()) e["order"] = u.order;
  if (u.fence) {
    e["fence"] = *u.fence;
  } else if (!u.other_fence.empty()) {
    e["fence"] = nlohmann::json::parse(u.other_fence);
  }
  return e;
}

nlohmann::json ResourceUpdates::OverlappingUpdates(const ResourceKey& key,
                                                   nlohmann::json& ops) const {
  nlohmann::json pairs = nlohmann::json::array();
  for (const auto& [first, second] : key.overlapping) {
    nlohmann::json pair = {{"buyers", {UpdateEvidence(*first), UpdateEvidence(*second)}}};
    pairs.push_back(std::move(pair));
    for (const ResourceUpdate* b : {first.get(), second.get()}) {
      for (const OpMark* m : {&b->acquire, &b->read, &b->write, &b->write_done, &b->release}) {
        if (m->present) ops.push_back(Ref(*m));
      }
    }
  }
  return pairs;
}

}  // namespace locksmith
