#include "harness/cleanup.h"

#include <algorithm>
#include <map>
#include <set>

#include "harness/net_plan.h"
#include "harness/net_setup.h"
#include "harness/run_registry.h"

namespace locksmith {

Status CleanupLeftovers(std::ostream& out, const CleanupOptions& options) {
  RunRegistry registry(options.state_dir.empty() ? RunRegistry::DefaultDir() : options.state_dir);
  // The lock keeps a starting run from registering while we look: every
  // object carrying a registered tag is then accounted for.
  auto lock = registry.Acquire();
  if (!lock.ok()) return Error{lock.error()};
  RunRegistry::Listing listing = registry.List();

  std::string errors;
  for (const auto& bad : listing.unreadable) {
    errors += "\n  unreadable run record " + bad + " (left in place)";
  }
  std::set<std::string> known;
  std::map<std::string, RunRecord> dead;
  for (auto& record : listing.records) {
    known.insert(record.tag);
    if (ControllerAlive(record)) {
      out << "run " << record.tag << ": controller pid " << record.controller_pid
          << " is alive, leaving it alone\n";
    } else {
      dead[record.tag] = record;
    }
  }

  // Objects by name: a dead run's objects the record may have missed, and
  // objects of no known run.
  std::map<std::string, RunRecord> orphans;
  auto claim = [&](const std::optional<std::string>& tag, const std::string& name, bool netns) {
    if (!tag) return;
    RunRecord* target = nullptr;
    if (auto it = dead.find(*tag); it != dead.end()) {
      target = &it->second;
    } else if (!known.contains(*tag)) {
      target = &orphans[*tag];
      target->tag = *tag;
    } else {
      return;  // a live run's
    }
    auto& list = netns ? target->netns : target->links;
    if (std::find(list.begin(), list.end(), name) == list.end()) list.push_back(name);
  };
  for (const auto& ns : ListNetns()) claim(TagFromNetnsName(ns), ns, true);
  for (const auto& link : ListLinks()) claim(TagFromLinkName(link), link, false);

  for (const auto& [tag, record] : dead) {
    out << "run " << tag << ": controller pid " << record.controller_pid
        << " is gone, removing what it left\n";
    if (auto s = RemoveRunObjects(record, &out); !s.ok()) {
      errors += "\n  " + s.error();
      continue;  // keep the record so a later cleanup retries
    }
    if (auto s = registry.Remove(tag); !s.ok()) errors += "\n  " + s.error();
  }
  for (const auto& [tag, record] : orphans) {
    if (!options.remove_unregistered) {
      out << "tag " << tag << ": " << record.netns.size() << " namespace(s) and "
          << record.links.size()
          << " link(s) with no run record here; not touching them (another state "
             "directory's run?). Remove them with --remove-unregistered\n";
      continue;
    }
    out << "tag " << tag << ": removing unregistered objects\n";
    if (auto s = RemoveRunObjects(record, &out); !s.ok()) errors += "\n  " + s.error();
  }
  if (dead.empty() && orphans.empty()) out << "nothing to clean up\n";
  if (!errors.empty()) return Error{"cleanup incomplete:" + errors};
  return OkStatus();
}

}  // namespace locksmith
