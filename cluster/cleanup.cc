#include "cluster/cleanup.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>
#include <optional>
#include <set>

#include "cluster/net_plan.h"
#include "cluster/net_setup.h"
#include "cluster/process_cgroup.h"
#include "cluster/run_registry.h"

namespace locksmith {
namespace {

namespace fs = std::filesystem;

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

bool Wanted(const CleanupOptions& options, const std::string& tag) {
  return options.only_tag.empty() || tag == options.only_tag;
}

// The registry's runs, sorted out.
struct RegisteredRuns {
  // Tags not to touch: live runs, and runs whose record cannot be read (it
  // may belong to a live run; a person must look at it). Dead runs too:
  // their objects are their record's.
  std::set<std::string> known;
  std::map<std::string, RunRecord> dead;  // wanted runs whose controller is gone
};

RegisteredRuns SortRegisteredRuns(const RunRegistry::Listing& listing,
                                  const CleanupOptions& options, std::ostream& out,
                                  CleanupReport& report) {
  RegisteredRuns runs;
  for (const auto& bad : listing.unreadable) {
    const std::string tag = TagOfUnreadable(bad);
    if (!tag.empty()) runs.known.insert(tag);
    if (!tag.empty() && !Wanted(options, tag)) continue;
    out << "unreadable run record " << bad << ": left in place, with its run's objects\n";
    report.left.push_back("unreadable run record " + bad);
  }
  for (const auto& record : listing.records) {
    runs.known.insert(record.tag);
    if (!Wanted(options, record.tag)) continue;
    if (ControllerAlive(record)) {
      out << "run " << record.tag << ": controller pid " << record.controller_pid
          << " is alive, leaving it alone\n";
    } else {
      runs.dead[record.tag] = record;
    }
  }
  return runs;
}

// Objects by name: a dead run's objects the record may have missed (added to
// its record), and objects of no known run (returned, by tag). A record with
// only a tag and these names is enough for RemoveRunObjects: it kills
// whatever runs in the namespaces.
std::map<std::string, RunRecord> ClaimObjects(NetOps& net, const CleanupOptions& options,
                                              RegisteredRuns& runs) {
  std::map<std::string, RunRecord> orphans;
  auto claim = [&](const std::optional<std::string>& tag, const std::string& name, bool netns) {
    if (!tag || !Wanted(options, *tag)) return;
    RunRecord* target = nullptr;
    if (auto it = runs.dead.find(*tag); it != runs.dead.end()) {
      target = &it->second;
    } else if (!runs.known.contains(*tag)) {
      target = &orphans[*tag];
      target->tag = *tag;
    } else {
      return;  // a live run's, or one with an unreadable record
    }
    auto& list = netns ? target->netns : target->links;
    if (name.empty()) return;  // a guard table: named from the tag alone
    if (std::find(list.begin(), list.end(), name) == list.end()) list.push_back(name);
  };
  for (const auto& ns : net.ListNetns()) claim(TagFromNetnsName(ns), ns, true);
  for (const auto& link : net.ListLinks()) claim(TagFromLinkName(link), link, false);
  for (const auto& table : net.ListInetTables()) claim(TagFromGuardTableName(table), "", false);
  return orphans;
}

// Run cgroups by name (locksmith-<tag>, beside where this process would put
// one): a dead run's that its record lacks (added to it), and those of no
// known run (added to `orphans`).
void ClaimCgroups(const CleanupOptions& options, RegisteredRuns& runs,
                  std::map<std::string, RunRecord>& orphans) {
  fs::path parent = options.cgroup_parent;
  if (parent.empty()) {
    auto sample = RunCgroupPath("x");
    if (!sample) return;
    parent = fs::path(*sample).parent_path();
  }
  std::error_code ec;
  for (fs::directory_iterator it(parent, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.rfind("locksmith-", 0) != 0 || it->is_symlink(ec)) continue;
    const std::string tag = name.substr(10);
    if (!ValidateTag(tag).ok() || !Wanted(options, tag)) continue;
    if (auto dead = runs.dead.find(tag); dead != runs.dead.end()) {
      if (dead->second.cgroup.empty()) dead->second.cgroup = it->path().string();
    } else if (!runs.known.contains(tag)) {
      orphans[tag].tag = tag;
      orphans[tag].cgroup = it->path().string();
    }
  }
}

// Kills every process of the run's cgroup (a contained program and all it
// started) and removes the cgroup.
Status RemoveRunCgroup(const RunRecord& record, std::ostream& out) {
  if (record.cgroup.empty()) return OkStatus();
  if (auto s = CheckRunCgroupPath(record.cgroup, record.tag, true); !s.ok()) return s;
  std::error_code ec;
  if (!fs::exists(record.cgroup, ec)) return OkStatus();
  if (auto s = KillCgroupTree(record.cgroup, std::chrono::seconds(10)); !s.ok()) return s;
  out << "killed the processes of cgroup " << record.cgroup << " and removed it\n";
  return OkStatus();
}

void RemoveDeadRuns(const std::map<std::string, RunRecord>& dead, RunRegistry& registry,
                    NetOps& net, std::ostream& out, CleanupReport& report) {
  for (const auto& [tag, record] : dead) {
    out << "run " << tag << ": controller pid " << record.controller_pid
        << " is gone, removing what it left\n";
    if (auto s = RemoveRunCgroup(record, out); !s.ok()) {
      report.failed.push_back(s.error());
      continue;
    }
    if (auto s = RemoveRunObjects(record, &out, net); !s.ok()) {
      report.failed.push_back(s.error());
      continue;  // keep the record so a later cleanup retries
    }
    if (auto s = registry.Remove(tag); !s.ok()) report.failed.push_back(s.error());
  }
}

// Removes the objects no run record claims, or only reports them unless
// options.remove_unregistered.
void HandleOrphans(const std::map<std::string, RunRecord>& orphans,
                   const CleanupOptions& options, NetOps& net, std::ostream& out,
                   CleanupReport& report) {
  for (const auto& [tag, record] : orphans) {
    const std::string what = std::to_string(record.netns.size()) + " namespace(s), " +
                             std::to_string(record.links.size()) + " link(s) and " +
                             (record.cgroup.empty() ? "no" : "a") + " cgroup of run " + tag;
    if (!options.remove_unregistered) {
      out << "tag " << tag << ": " << what
          << " with no run record (deleted, or the run used another state directory); left in "
             "place. Remove them with `locksmith cleanup --remove-unregistered`\n";
      report.left.push_back(what + " (unregistered)");
      continue;
    }
    out << "tag " << tag << ": removing unregistered objects\n";
    if (auto s = RemoveRunCgroup(record, out); !s.ok()) report.failed.push_back(s.error());
    if (auto s = RemoveRunObjects(record, &out, net); !s.ok()) report.failed.push_back(s.error());
  }
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
  RegisteredRuns runs = SortRegisteredRuns(registry.List(), options, out, report);
  std::map<std::string, RunRecord> orphans = ClaimObjects(net, options, runs);
  ClaimCgroups(options, runs, orphans);
  RemoveDeadRuns(runs.dead, registry, net, out, report);
  HandleOrphans(orphans, options, net, out, report);
  if (runs.dead.empty() && orphans.empty() && report.left.empty()) {
    out << (options.only_tag.empty() ? "nothing to clean up\n"
                                     : "nothing to clean up for run " + options.only_tag + "\n");
  }
  return report;
}

}  // namespace locksmith
