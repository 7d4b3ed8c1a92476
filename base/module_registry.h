// Lookups shared by the module registries (backends, workloads, nemesis
// families): each is a table of entries with a `name`. Header-only; pure.
#pragma once

#include <string>
#include <vector>

#include "base/option_set.h"
#include "base/result.h"

namespace locksmith {

template <typename Entry>
std::vector<std::string> EntryNames(const std::vector<Entry>& entries) {
  std::vector<std::string> names;
  for (const auto& e : entries) names.emplace_back(e.name);
  return names;
}

// The entry named `name`, or "unknown <kind> "name" (known: a, b)".
template <typename Entry>
Result<const Entry*> FindEntry(const std::vector<Entry>& entries, const char* kind,
                               const std::string& name) {
  for (const auto& e : entries) {
    if (name == e.name) return &e;
  }
  return Error{std::string("unknown ") + kind + " " + QuoteInput(name) + " (known: " +
               JoinNames(EntryNames(entries)) + ")"};
}

}  // namespace locksmith
