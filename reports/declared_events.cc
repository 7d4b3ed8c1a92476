#include "reports/declared_events.h"

#include "reports/escape.h"

namespace locksmith {
namespace {

constexpr size_t kMaxDeclaredSource = 40;

// `name` of `j` when it is a non-empty string, else "".
std::string DeclaredString(const nlohmann::json& j, const char* name) {
  auto it = j.find(name);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

}  // namespace

DeclaredEvents DeclaredEvents::FromResults(const nlohmann::json& results) {
  DeclaredEvents d;
  if (!results.is_object()) return d;
  auto it = results.find("service_events");
  if (it == results.end() || !it->is_object()) return d;
  if (std::string source = DeclaredString(*it, "source"); !source.empty()) {
    d.source_ = Truncated(SanitizeUtf8(source), kMaxDeclaredSource);
  }
  d.reporter_field_ = DeclaredString(*it, "reporter_field");
  auto kinds = it->find("kinds");
  if (kinds == it->end() || !kinds->is_array()) return d;
  for (const auto& kind : *kinds) {
    if (!kind.is_object()) continue;
    const std::string name = DeclaredString(kind, "name");
    auto new_leader = kind.find("new_leader");
    if (!name.empty() && new_leader != kind.end() && *new_leader == true) {
      d.new_leader_.insert(name);
    }
  }
  return d;
}

}  // namespace locksmith
