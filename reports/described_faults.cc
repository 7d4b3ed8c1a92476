#include "reports/described_faults.h"

#include <algorithm>
#include <cctype>

#include "reports/escape.h"

namespace locksmith {
namespace {

constexpr size_t kMaxLabel = 40;
constexpr size_t kMaxText = 300;

// `name` of `j` when it is a string, repaired and cut to `max` bytes (at a
// character boundary); `otherwise` when it is none.
std::string Text(const nlohmann::json& j, const char* name, size_t max,
                 const std::string& otherwise = "") {
  auto it = j.find(name);
  if (it == j.end() || !it->is_string()) return otherwise;
  return Truncated(SanitizeUtf8(it->get<std::string>()), max);
}

}  // namespace

bool IsHexColor(const std::string& color) {
  return (color.size() == 4 || color.size() == 7) && color[0] == '#' &&
         std::all_of(color.begin() + 1, color.end(),
                     [](char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; });
}

DescribedFaults DescribedFaults::FromResults(const nlohmann::json& results) {
  DescribedFaults d;
  if (!results.is_object()) return d;
  auto it = results.find("fault_descriptions");
  if (it == results.end() || !it->is_object()) return d;
  if (auto families = it->find("families"); families != it->end() && families->is_object()) {
    for (const auto& [name, look] : families->items()) d.ReadFamily(name, look);
  }
  if (auto windows = it->find("windows"); windows != it->end() && windows->is_array()) {
    for (const auto& w : *windows) d.ReadWindow(w);
  }
  return d;
}

void DescribedFaults::ReadFamily(const std::string& name, const nlohmann::json& j) {
  if (!j.is_object()) return;
  LaneLook look;
  look.label = Text(j, "lane", kMaxLabel, SanitizeUtf8(name));
  if (auto order = j.find("order"); order != j.end() && order->is_number_integer()) {
    look.order = order->get<int64_t>();
  }
  if (std::string color = Text(j, "color", 16); IsHexColor(color)) look.color = color;
  if (std::string mark = Text(j, "client_mark", 8); mark == "span" || mark == "tick") {
    look.client_mark = mark;
  }
  if (auto ops = j.find("client_ops"); ops != j.end() && ops->is_array()) {
    for (const auto& op : *ops) {
      if (op.is_string()) client_ops_.insert(op.get<std::string>());
    }
  }
  families_[name] = std::move(look);
}

void DescribedFaults::ReadWindow(const nlohmann::json& j) {
  if (!j.is_object()) return;
  auto index = j.find("index");
  if (index == j.end() || !index->is_number_integer()) return;
  WindowSummary w;
  w.text = Text(j, "text", kMaxText);
  if (auto effective = j.find("effective"); effective != j.end() && effective->is_boolean()) {
    w.effective = effective->get<bool>();
  }
  if (auto process = j.find("process"); process != j.end() && process->is_number_integer()) {
    w.process = process->get<int64_t>();
  }
  windows_[index->get<int64_t>()] = std::move(w);
}

const LaneLook* DescribedFaults::Family(const std::string& family) const {
  auto it = families_.find(family);
  return it == families_.end() ? nullptr : &it->second;
}

const WindowSummary* DescribedFaults::Window(int64_t begin_index) const {
  auto it = windows_.find(begin_index);
  return it == windows_.end() ? nullptr : &it->second;
}

}  // namespace locksmith
