// `--nemesis all` on every backend, end to end: the run completes, every
// family that fits the backend struck at least once (kill, pause,
// client-pause, clock, partition; failover too where another node takes
// over), every window it opened closed, nothing is left behind, and the
// verdict is the one the options make certain:
//
//  - Short holds (10-50 ms) under 1 s leases, persistence `always` (a
//    restarted Redis keeps its locks), a clock that drifts slower for 300 ms
//    (keys expire later, never earlier; its reset jumps forward 150 ms, far
//    inside a lease, and no Sentinel goes into tilt as a backward jump would
//    make it), server pauses and partitions far shorter than the Sentinels'
//    down-after (2 s: no promotion but the failover family's): nothing the
//    servers do can grant a lock twice.
//  - A client pause of 1.5 s, past the 1 s lease (a stall shorter than the
//    lease would not be a fault at all): on the Redis backends the stalled
//    holder's key expires and the next client takes it while the stalled one
//    goes on, so the run is invalid, and only by expired-lease uses of the
//    stalled holder (each with the nonlinearizable release it makes). On
//    ZooKeeper the lock lives as long as the session (6 s here), which a
//    1.5 s stall does not end: valid. On MariaDB and PostgreSQL a lock lives
//    in its connection and has no lease: the stalled holder keeps it, valid,
//    as long as nothing ends that connection during the stall. A kill of the
//    server does, and so does a partition that cuts the stalled holder's
//    client off (each cut host aborts its connections): the server hands the
//    lock on while the stalled holder goes on, unsafe grants. The partition
//    does the same to any holder it cuts off, stalled or not: the partition
//    family picks a client (c5 on seed 555), which holds a lock at the cut
//    in some runs and not in others (its holds last 10-50 ms). So on these
//    two the run is valid, or invalid by unsafe grants each of which has a
//    holder the partition cut off, and nothing else. With a 3 s
//    interval neither can be kept out of the stall: the partition's window
//    opens 0.75-1.5 s after the client pause's, inside the stall, and the
//    second kill's 1.5-2.25 s after it, at the stall's end (on seed 3, 25 ms
//    before it, an unsafe grant whenever the resumed holder released after
//    the restart). Hence a 6 s interval and seed 555 for them: the kill at
//    6.2 s, the server pause at 7.9 s, the stall from 9.0 s to 10.5 s, the
//    partition at 11.4 s, and no second kill before the 12.5 s time limit.
//    Neither has a clock the nemesis can move, nor a replica to fail over to.
//  - etcd has no clock the nemesis can move (`all` leaves the clock family
//    out) and elects a new leader when the failover family kills the old
//    one. Its lock lives as long as its lease: a 1 s lease is a TTL of 2 s
//    (etcd's least, 1.5 election timeouts rounded up), kept alive every
//    667 ms, and the leader revokes a lease within 500 ms of its lapse, so
//    the next waiter takes the lock at most some 2.55 s after the holder's
//    last keep-alive. A client pause of 4 s outlives that: the run is
//    invalid, by the stalled holder's expired-lease uses alone. Unless the
//    leader changes first: a new leader extends every lease it finds by an
//    election timeout and a TTL (etcd's lessor Promote: 3 s here), and after
//    a kill of the leader the election takes up to 2 s (a timeout drawn
//    from 1-2 s). A failover, or a kill that hits the leader, between the
//    stalled holder's last keep-alive and the revoke of its lease keeps its
//    lock alive through the stall; with a failover every few seconds lease
//    after lease would never lapse. Hence the 6 s interval and seed 18634:
//    the failover begins 3.06 s into the stall, after the revoke, and the
//    kill 3.1 s before it, early enough for the promotion (2.05 s at most)
//    and a keep-alive after it (0.67 s at most) that renews the lease at its
//    plain TTL. The 300 ms pauses stay under the 1 s election timeout and
//    elect no one. The partition cuts a client off the members rather than
//    a member off the others: a member isolated even that briefly (its cut
//    lasts some 600 ms with the probe) loses its peer streams, hears no
//    leader for a second or more after the heal, campaigns at a higher term
//    and deposes the leader (etcd 3.4 has no pre-vote), which with the
//    isolate shape happened in 2 of 16 runs of this seed: the election
//    extended the stalled holder's lease past the stall (valid at best;
//    the failover, begun mid-election, then failed unapplied: unknown; it
//    now waits for the leader elected). The time limit ends the run before
//    the second kill.
//
// Each seed was chosen so the first window of each family opens apart from
// the windows it would spoil (a clock read from a paused or killed node, a
// failover during a cut), and every family's first window opens at least a
// second before the time limit. The client pause plays on a lane of its own
// (nemesis/nemesis_runner.h): its wait for a holder no longer holds back a
// server's resume that the holder waits on, which on ZooKeeper (seed 109:
// the peer holding the head of the lock queue paused) once made the pause
// last 4 s and left the stall too late to take effect.
#include <gtest/gtest.h>

#include <iostream>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "tests/locksmith_process.h"

namespace locksmith::testing {
namespace {

using std::chrono::seconds;

struct AllCase {
  std::string backend;
  std::string seed;
  std::string interval_s;
  std::string time_limit_s;
  bool promotes;  // failover fits: another node takes over
  int exit_code;  // 1: the client pause's expired-lease uses, 0: valid
  bool clocks = true;  // the clock family fits: the servers' clocks can be moved
  // Locks that live in a database session (MariaDB's GET_LOCK, PostgreSQL's
  // advisory locks): they die with their connection, which a partition
  // that cuts the holder's client off aborts.
  bool session_locks = false;
};

void PrintTo(const AllCase& c, std::ostream* os) { *os << c.backend; }

class NemesisAllTest : public ::testing::TestWithParam<AllCase> {};

std::vector<std::string> Flags(const AllCase& c) {
  std::vector<std::string> flags = {
      "--backend", c.backend, "--nemesis", "all", "--seed", c.seed, "--nemesis-interval",
      c.interval_s, "--time-limit", c.time_limit_s, "--hold", "10-50", "--lease", "1000",
      "--pause-ms", "300", "--partition-ms", "300"};
  if (c.clocks) {
    flags.insert(flags.end(), {"--clock-mode", "drift", "--clock-rate", "0.5", "--clock-hold",
                               "300", "--clock-observe-timeout", "5000"});
  }
  // A pause past the lease, which on etcd is a TTL of 2 s, counted from
  // the stalled holder's last keep-alive.
  flags.insert(flags.end(), {"--client-pause-ms", c.backend == "etcd" ? "4000" : "1500"});
  if (c.backend == "zookeeper") {
    flags.insert(flags.end(), {"--session-timeout", "6000"});
  } else if (c.backend.rfind("redis", 0) == 0 || c.backend == "redlock") {
    flags.insert(flags.end(), {"--redis-persistence", "always"});
  }
  // Sentinels that wait 2 s (not 1) before they call a master down: a
  // loaded machine's stall does not make them fail over on their own.
  if (c.backend == "redis-sentinel") flags.insert(flags.end(), {"--sentinel-down-after", "2000"});
  if (c.promotes) flags.insert(flags.end(), {"--failover-ms", "1000"});
  // An etcd member cut off the others deposes the leader once it is back
  // (see above): the partition cuts a client off the members instead.
  if (c.backend == "etcd") flags.insert(flags.end(), {"--partition-shape", "clients-from-nodes"});
  return flags;
}

// The processes the client-pause family stalled.
std::set<int64_t> StalledProcesses(const History& history) {
  std::set<int64_t> stalled;
  for (const Op& op : NemesisDone(history, "client-pause")) {
    if (op.error.empty()) stalled.insert(op.value["process"].get<int64_t>());
  }
  return stalled;
}

// The workers whose client a partition cut off (a grudge names client c<k>
// for worker k; a worker's processes are k, k + concurrency, ...).
std::set<int64_t> CutOffWorkers(const History& history) {
  std::set<int64_t> workers;
  for (const Op& cut : history) {
    if (!cut.is_nemesis() || cut.type != OpType::kInfo || cut.f != "partition" ||
        !cut.value.contains("grudge")) {
      continue;
    }
    for (const auto& [name, _] : cut.value["grudge"].items()) {
      if (name.size() > 1 && name[0] == 'c') workers.insert(std::stoll(name.substr(1)));
    }
  }
  return workers;
}

// Whether another client was granted a stalled holder's key after the
// holder's lease ran out and before its stall ended: the takeover that
// makes the stall an expired-lease use. On a loaded machine no other client
// may have asked for that key in the gap (a flake round saw a Redis run
// with its stall past the lease and no takeover: valid, rightly).
bool TakenOverDuringAStall(const History& history) {
  std::map<int64_t, int64_t> lease_end;  // process -> its last grant's lease end
  std::vector<std::tuple<std::string, int64_t, int64_t>> stalled;  // key, lease end, stall end
  for (const Op& op : history) {
    if (!op.is_client()) continue;
    if (op.f == "acquire" && op.type == OpType::kOk && op.value.is_object()) {
      lease_end[op.process] = op.time + op.value.value("validity_ms", int64_t{0}) * 1'000'000;
    } else if (op.f == "pause" && op.type == OpType::kOk && lease_end.contains(op.process)) {
      stalled.emplace_back(op.key, lease_end[op.process], op.time);
    }
  }
  for (const Op& op : history) {
    if (!op.is_client() || op.f != "acquire" || op.type != OpType::kOk) continue;
    for (const auto& [key, lease_end, stall_end] : stalled) {
      if (op.key == key && op.time > lease_end && op.time < stall_end) return true;
    }
  }
  return false;
}

TEST_P(NemesisAllTest, EveryFittingFamilyStrikesAndTheVerdictIsTheOptionsOwn) {
  const AllCase& c = GetParam();
  FinishedRun f = RunAndLoad(Flags(c), seconds(150));
  // With session locks, the unsafe grants of a holder the partition cut off.
  const std::set<int64_t> cut_off = c.session_locks ? CutOffWorkers(f.history)
                                                    : std::set<int64_t>();
  const int64_t concurrency = f.config.value("concurrency", int64_t{10});
  int cut_off_grants = 0;
  for (const auto& anomaly : f.results["anomalies"]) {
    if (anomaly.value("class", "") != "unsafe-grant") continue;
    for (const auto& holder : anomaly["holders"]) {
      if (cut_off.contains(holder["process"].get<int64_t>() % concurrency)) {
        ++cut_off_grants;
        break;
      }
    }
  }
  if (cut_off_grants > 0) {
    std::cout << c.backend << ": the partition cut off a holder: " << cut_off_grants
              << " unsafe grants\n";
  }
  // A stall past the lease is invalid once another client took the key in
  // the gap; the history says whether one did.
  const int exit_code = c.exit_code == 1 && !TakenOverDuringAStall(f.history) ? 0 : c.exit_code;
  ASSERT_EQ(f.code, cut_off_grants > 0 ? 1 : exit_code) << f.out;

  std::set<std::string> expected = {"kill", "pause", "client-pause", "partition"};
  if (c.clocks) expected.insert("clock");
  if (c.promotes) expected.insert("failover");
  EXPECT_EQ(FamiliesStruck(f.history), expected) << f.out;
  EXPECT_EQ(f.config["nemesis"], nlohmann::json::array({"all"}));
  EXPECT_EQ(f.out.find("--nemesis all: leaves out failover") != std::string::npos, !c.promotes)
      << f.out;
  EXPECT_EQ(f.out.find("--nemesis all: leaves out clock") != std::string::npos, !c.clocks)
      << f.out;
  // Every window opened was closed.
  std::map<std::string, int> open;
  for (const Op& op : f.history) {
    if (!op.is_nemesis() || op.type != OpType::kInfo || op.fault.is_null()) continue;
    open[op.fault["family"].get<std::string>()] += op.fault["phase"] == "begin" ? 1 : -1;
  }
  for (const auto& [family, n] : open) EXPECT_EQ(n, 0) << family;

  // The stall hit a holder that recorded it, and only its overlaps are
  // anomalies: expired-lease uses with the stalled process as one holder,
  // and the nonlinearizable history they make.
  const std::set<int64_t> stalled = StalledProcesses(f.history);
  ASSERT_FALSE(stalled.empty());
  int expired = 0;
  for (const auto& anomaly : f.results["anomalies"]) {
    if (!anomaly.contains("class")) {
      EXPECT_EQ(anomaly.value("type", ""), "nonlinearizable") << anomaly.dump();
      continue;
    }
    bool by_stalled = false, by_cut_off = false;
    for (const auto& holder : anomaly["holders"]) {
      by_stalled |= stalled.contains(holder["process"].get<int64_t>());
      by_cut_off |= cut_off.contains(holder["process"].get<int64_t>() % concurrency);
    }
    if (by_cut_off && anomaly["class"] == "unsafe-grant") continue;
    EXPECT_EQ(anomaly["class"], "expired-lease-use") << anomaly.dump();
    ++expired;
    EXPECT_TRUE(by_stalled) << anomaly.dump();
  }
  EXPECT_EQ(expired > 0, exit_code == 1) << f.out;
  std::cout << c.backend << ": exit " << f.code << ", expired-lease uses " << expired << "\n";
}

INSTANTIATE_TEST_SUITE_P(
    Backends, NemesisAllTest,
    ::testing::Values(AllCase{"redis", "35", "3", "6.5", false, 1},
                      AllCase{"redlock", "35", "3", "6.5", false, 1},
                      AllCase{"redis-sentinel", "292", "3.5", "8", true, 1},
                      AllCase{"zookeeper", "109", "3", "8", true, 0},
                      AllCase{"mariadb", "555", "6", "12.5", false, 0, false, true},
                      AllCase{"postgres", "555", "6", "12.5", false, 0, false, true},
                      AllCase{"etcd", "18634", "6", "13.3", true, 1, false}),
    [](const auto& info) {
      std::string name;
      for (char ch : info.param.backend) {
        if (ch != '-') name += ch;
      }
      return name;
    });

}  // namespace
}  // namespace locksmith::testing
