#include "checker/resource_updates.h"

#include <unordered_map>

#include "checker/checker.h"

namespace locksmith {
namespace {

int64_t IntField(const nlohmann::json& value, const char* name, int64_t fallback = 0) {
  if (!value.is_object()) return fallback;
  auto it = value.find(name);
  if (it == value.end() || !it->is_number_integer()) return fallback;
  return it->get<int64_t>();
}

struct ProcessState {
  std::string acquire_key;
  int64_t acquire = -1;
  std::string read_key;
  int64_t read = -1;
  std::vector<size_t> open;  // updates (into the key's list) awaiting their release
  std::vector<std::string> open_keys;
};

}  // namespace

bool IsRejected(const Op& completion) {
  return completion.type == OpType::kFail && completion.value.is_object() &&
         completion.value.value("rejected", false);
}

std::map<std::string, ResourceKey> CollectResourceUpdates(const History& history) {
  std::map<std::string, ResourceKey> keys;
  const std::vector<int64_t> completion = PairCompletions(history);
  std::unordered_map<int64_t, ProcessState> processes;
  for (size_t i = 0; i < history.size(); ++i) {
    const Op& op = history[i];
    if (!op.is_client()) continue;
    const int64_t done = completion[i];
    if (op.type != OpType::kInvoke) continue;
    ProcessState& p = processes[op.process];
    const Op* end = done >= 0 ? &history[static_cast<size_t>(done)] : nullptr;
    if (op.f == "acquire") {
      if (end != nullptr && end->type == OpType::kOk) {
        p.acquire = done;
        p.acquire_key = op.key;
      }
    } else if (op.f == "release") {
      for (size_t k = 0; k < p.open.size(); ++k) {
        if (p.open_keys[k] == op.key) keys[op.key].updates[p.open[k]].release = static_cast<int64_t>(i);
      }
      p.open.clear();
      p.open_keys.clear();
      if (p.acquire_key == op.key) p.acquire = -1;
    } else if (op.f == "read") {
      ResourceKey& key = keys[op.key];
      if (end != nullptr && end->type == OpType::kOk) {
        p.read = done;
        p.read_key = op.key;
        if (IntField(end->value, "value") < 0) key.negative_reads.push_back(done);
      } else if (end != nullptr && IsRejected(*end)) {
        ++key.rejected_reads;
      }
    } else if (op.f == "write") {
      ResourceKey& key = keys[op.key];
      ResourceUpdate u;
      u.key = op.key;
      u.process = op.process;
      u.acquire = p.acquire_key == op.key ? p.acquire : -1;
      u.read = p.read_key == op.key ? p.read : -1;
      u.write = static_cast<int64_t>(i);
      u.write_done = done;
      u.value = IntField(op.value, "value");
      u.read_value = IntField(op.value, "read",
                              u.read >= 0 ? IntField(history[u.read].value, "value") : 0);
      if (op.value.is_object() && op.value.contains("order") && op.value["order"].is_string()) {
        u.order = op.value["order"].get<std::string>();
      }
      if (end != nullptr) {
        u.outcome = end->type;
        u.rejected = IsRejected(*end);
      }
      p.open.push_back(key.updates.size());
      p.open_keys.push_back(op.key);
      key.updates.push_back(std::move(u));
    } else if (op.f == "final") {
      if (end != nullptr && end->type == OpType::kOk && end->value.is_object()) {
        ResourceFinal f;
        f.position = done;
        f.value = IntField(end->value, "value");
        if (end->value.contains("orders") && end->value["orders"].is_array()) {
          for (const auto& o : end->value["orders"]) {
            if (o.is_string()) f.orders.push_back(o.get<std::string>());
          }
        }
        keys[op.key].final = std::move(f);
      }
    }
  }
  return keys;
}

nlohmann::json UpdateEvidence(const History& history, const ResourceUpdate& u) {
  auto ref = [&](int64_t at) -> nlohmann::json {
    return at >= 0 ? OpRef(history[static_cast<size_t>(at)]) : nlohmann::json(nullptr);
  };
  nlohmann::json e = {{"process", u.process},     {"hold", ref(u.acquire)},
                      {"read", ref(u.read)},      {"read_value", u.read_value},
                      {"write", ref(u.write)},    {"write_done", ref(u.write_done)},
                      {"wrote", u.value},         {"release", ref(u.release)}};
  if (!u.order.empty()) e["order"] = u.order;
  const Op& w = history[static_cast<size_t>(u.write)];
  if (w.value.is_object() && w.value.contains("fence")) e["fence"] = w.value["fence"];
  return e;
}

nlohmann::json OverlappingUpdates(const History& history, const ResourceKey& key, size_t limit,
                                  nlohmann::json& ops) {
  nlohmann::json pairs = nlohmann::json::array();
  std::unordered_map<int64_t, size_t> first_by_read;  // read value -> first update
  for (size_t i = 0; i < key.updates.size() && pairs.size() < limit; ++i) {
    const ResourceUpdate& u = key.updates[i];
    // Only acknowledged writes prove it: an info write may not have happened.
    if (u.outcome != OpType::kOk) continue;
    auto [it, fresh] = first_by_read.emplace(u.read_value, i);
    if (fresh) continue;
    const ResourceUpdate& first = key.updates[it->second];
    nlohmann::json pair = {{"buyers", {UpdateEvidence(history, first), UpdateEvidence(history, u)}}};
    for (const ResourceUpdate* b : {&first, &u}) {
      for (int64_t at : {b->acquire, b->read, b->write, b->write_done, b->release}) {
        if (at >= 0) ops.push_back(OpRef(history[static_cast<size_t>(at)]));
      }
    }
    pairs.push_back(std::move(pair));
    it->second = i;  // the next one overlapping is paired with this one
  }
  return pairs;
}

}  // namespace locksmith
