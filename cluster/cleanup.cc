#include "cluster/cleanup.h"

#include <algorithm>
#include <map>
#include <set>

#include "cluster/net_plan.h"
#include "cluster/net_setup.h"
#include "cluster/run_registry.h"

namespace locksmith {
namespace {

// The tag an unreadable record's file name claims ("<dir>/runs/<tag>.json:
// reason"), or "" when the name is not a tag.
std::string TagOfUnreadable(const std::string& entry) {
  const size_t json = entry.find(".json: ");
  if (json == std::string::npos) return "";
  const size_t slash = entry.rfind('/', json);
  std::string tag = entry.substr(slash == std::string::npos ? 0 : slash + 1,
                                 json - (slash == std::string::npos ? 0 : slash + 1));
  return ValidateTag(tag).ok() ? tag : "";
}

}  // namespace

CleanupReport CleanupLeftovers(std::ostream& out, const CleanupOptions& options) {
  CleanupReport report;
  NetOps& net = options.net != nullptr ? *options.net : RealNetOps();
  RunRegistry registry(options.state_dir.empty() ? RunRegistry::DefaultDir() : options.state_dir);
  // The lock keeps a starting run from registering while we look: a run
  // registers before it creates anything, so every object of a live run
  // (of this registry) carries a registered tag.
  auto lock = registry.Acquire();
  if (!lock.ok()) {
    report.failed.push_back(lock.error());
    return report;
  }
  RunRegistry::Listing listing = registry.List();
  auto wanted = [&](const std::string& tag) {
    return options.only_tag.empty() || tag == options.only_tag;
  };

  // Tags not to touch: live runs, and runs whose record cannot be read (it
  // may belong to a live run; a person must look at it).
  std::set<std::string> known;
  for (const auto& bad : listing.unreadable) {
    const std::string tag = TagOfUnreadable(bad);
    if (!tag.empty()) known.insert(tag);
    if (!tag.empty() && !wanted(tag)) continue;
    out << "unreadable run record " << bad << ": left in place, with its run's objects\n";
    report.left.push_back("unreadable run record " + bad);
  }
  std::map<std::string, RunRecord> dead;
  for (auto& record : listing.records) {
    known.insert(record.tag);
    if (!wanted(record.tag)) continue;
    if (ControllerAlive(record)) {
      out << "run " << record.tag << ": controller pid " << record.controller_pid
          << " is alive, leaving it alone\n";
    } else {
      dead[record.tag] = record;
    }
  }

  // Objects by name: a dead run's objects the record may have missed, and
  // objects of no known run. A record with only a tag and these names is
  // enough for RemoveRunObjects: it kills whatever runs in the namespaces.
  std::map<std::string, RunRecord> orphans;
  auto claim = [&](const std::optional<std::string>& tag, const std::string& name, bool netns) {
    if (!tag || !wanted(*tag)) return;
    RunRecord* target = nullptr;
    if (auto it = dead.find(*tag); it != dead.end()) {
      target = &it->second;
    } else if (!known.contains(*tag)) {
      target = &orphans[*tag];
      target->tag = *tag;
    } else {
      return;  // a live run's, or one with an unreadable record
    }
    auto& list = netns ? target->netns : target->links;
    if (std::find(list.begin(), list.end(), name) == list.end()) list.push_back(name);
  };
  for (const auto& ns : net.ListNetns()) claim(TagFromNetnsName(ns), ns, true);
  for (const auto& link : net.ListLinks()) claim(TagFromLinkName(link), link, false);

  for (const auto& [tag, record] : dead) {
    out << "run " << tag << ": controller pid " << record.controller_pid
        << " is gone, removing what it left\n";
    if (auto s = RemoveRunObjects(record, &out, net); !s.ok()) {
      report.failed.push_back(s.error());
      continue;  // keep the record so a later cleanup retries
    }
    if (auto s = registry.Remove(tag); !s.ok()) report.failed.push_back(s.error());
  }
  for (const auto& [tag, record] : orphans) {
    const std::string what = std::to_string(record.netns.size()) + " namespace(s) and " +
                             std::to_string(record.links.size()) + " link(s) of run " + tag;
    if (!options.remove_unregistered) {
      out << "tag " << tag << ": " << what
          << " with no run record (deleted, or the run used another state directory); left in "
             "place. Remove them with `locksmith cleanup --remove-unregistered`\n";
      report.left.push_back(what + " (unregistered)");
      continue;
    }
    out << "tag " << tag << ": removing unregistered objects\n";
    if (auto s = RemoveRunObjects(record, &out, net); !s.ok()) report.failed.push_back(s.error());
  }
  if (dead.empty() && orphans.empty() && report.left.empty()) {
    out << (options.only_tag.empty() ? "nothing to clean up\n"
                                     : "nothing to clean up for run " + options.only_tag + "\n");
  }
  return report;
}

}  // namespace locksmith
