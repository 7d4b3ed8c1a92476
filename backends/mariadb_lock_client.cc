#include "backends/mariadb_lock_client.h"

#include <algorithm>

namespace locksmith {
namespace {

using boost::asio::awaitable;
using std::chrono::milliseconds;

constexpr char kGetLockName[] = "mysql-get-lock";
constexpr char kForUpdateName[] = "mysql-for-update";
// ER_LOCK_WAIT_TIMEOUT: the FOR UPDATE waited its whole wait; nothing held.
constexpr unsigned kLockWaitTimeout = 1205;
// The longest lock wait the server takes (innodb_lock_wait_timeout's bound).
constexpr int64_t kMaxLockWaitSeconds = 1073741824;

// A statement that failed before the lock was held: kInDoubt may have taken
// the lock (unknown), anything else certainly did not (fail).
void FailFrom(const SqlReply& reply, AcquireResult& result) {
  result.outcome = reply.failure == SqlFailure::kInDoubt ? Outcome::kUnknown : Outcome::kFail;
  result.error = reply.error;
}

}  // namespace

std::vector<std::string> MariadbClientNames() { return {kGetLockName, kForUpdateName}; }

MariadbRecipe MariadbRecipeNamed(const std::string& name) {
  return name == kForUpdateName ? MariadbRecipe::kForUpdate : MariadbRecipe::kGetLock;
}

std::string SqlQuoted(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    switch (c) {
      case '\0': out += "\\0"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\x1a': out += "\\Z"; break;
      case '\'': out += "\\'"; break;
      case '\\': out += "\\\\"; break;
      default: out.push_back(c);
    }
  }
  return out + "'";
}

int64_t LockWaitSeconds(milliseconds wait) {
  return std::clamp<int64_t>(wait.count() / 1000, 0, kMaxLockWaitSeconds);
}

MariadbLockClient::MariadbLockClient(boost::asio::any_io_executor executor,
                                     MariadbLockClientOptions options, uint64_t seed)
    : options_(std::move(options)),
      connection_(std::move(executor), options_.endpoint),
      tokens_(seed) {}

awaitable<Status> MariadbLockClient::Connect() {
  co_return co_await connection_.Connect(
      Clock::now() + std::max<Clock::duration>(options_.timeout, kFirstConnectAllowance));
}

void MariadbLockClient::Close() {
  connection_.Close();
  held_.clear();
}

std::map<std::string, int64_t> MariadbLockClient::Counters() const {
  return {{"connections", connection_.connects()}, {"locks_lost", locks_lost_}};
}

awaitable<AcquireResult> MariadbLockClient::Acquire(const std::string& key, milliseconds lease) {
  AcquireResult result;
  result.token = tokens_.Next();
  if (held_.contains(key)) {
    result.outcome = Outcome::kFail;
    result.error = "this client holds " + key + " already";
    co_return result;
  }
  if (options_.recipe == MariadbRecipe::kGetLock) {
    co_await GetLock(key, lease, result);
  } else {
    co_await SelectForUpdate(key, lease, result);
  }
  co_return result;
}

awaitable<void> MariadbLockClient::GetLock(const std::string& key, milliseconds lease,
                                           AcquireResult& result) {
  const auto deadline = Clock::now() + options_.timeout;
  // Statements are built before co_await: GCC 12 may destroy a temporary
  // of a co_await's operand twice.
  const std::string sql = "SELECT GET_LOCK(" + SqlQuoted(key) + ", 0)";
  SqlReply got = co_await connection_.Query(sql, deadline);
  if (!got.ok()) co_return FailFrom(got, result);
  const auto value = got.Scalar();
  if (value == "1") co_return co_await Granted(key, lease, deadline, result);
  result.outcome = Outcome::kFail;
  result.busy = value == "0";
  result.error = result.busy ? kHeldByAnother : "GET_LOCK returned NULL";
}

awaitable<bool> MariadbLockClient::Prepare(const std::string& sql, Clock::time_point deadline,
                                           AcquireResult& result) {
  SqlReply reply = co_await connection_.Query(sql, deadline);
  if (reply.ok()) co_return true;
  // Nothing of the lock has happened yet, whatever became of this statement.
  result.outcome = Outcome::kFail;
  result.error = reply.error;
  co_return false;
}

awaitable<void> MariadbLockClient::SelectForUpdate(const std::string& key, milliseconds lease,
                                                   AcquireResult& result) {
  const std::string name = SqlQuoted(key);
  auto deadline = Clock::now() + options_.timeout;
  if (!rows_made_.contains(key)) {
    const std::string make_row = "INSERT IGNORE INTO locks (name) VALUES (" + name + ")";
    if (!co_await Prepare(make_row, deadline, result)) co_return;
    rows_made_.insert(key);
  }
  const std::string begin = "START TRANSACTION";
  if (!co_await Prepare(begin, deadline, result)) co_return;
  const int64_t wait_s = LockWaitSeconds(wait_);
  deadline = Clock::now() + std::chrono::seconds(wait_s) + options_.timeout;
  const std::string wait = wait_s == 0 ? "NOWAIT" : "WAIT " + std::to_string(wait_s);
  const std::string lock = "SELECT name FROM locks WHERE name = " + name + " FOR UPDATE " + wait;
  SqlReply locked = co_await connection_.Query(lock, deadline, /*may_connect=*/false);
  if (locked.ok() && !locked.rows.empty()) {
    co_return co_await Granted(key, lease, deadline, result);
  }
  if (locked.failure == SqlFailure::kInDoubt) co_return FailFrom(locked, result);
  // Refused (or the row is missing): end the transaction, holding nothing.
  const std::string end = "ROLLBACK";
  SqlReply rollback =
      co_await connection_.Query(end, Clock::now() + options_.timeout, /*may_connect=*/false);
  if (!rollback.ok()) connection_.Close();
  if (locked.ok()) rows_made_.erase(key);  // no row: make it again next time
  result.outcome = Outcome::kFail;
  result.busy = locked.code == kLockWaitTimeout;
  result.error = result.busy        ? std::string(kHeldByAnother)
                 : locked.ok()      ? "no lock row for " + key
                                    : locked.error;
}

awaitable<void> MariadbLockClient::Granted(const std::string& key, milliseconds lease,
                                           Clock::time_point deadline, AcquireResult& result) {
  if (options_.fencing) {
    const std::string insert = "INSERT INTO fences (name) VALUES (" + SqlQuoted(key) + ")";
    SqlReply fence = co_await connection_.Query(insert, deadline, /*may_connect=*/false);
    if (!fence.ok() || fence.insert_id == 0) {
      connection_.Close();  // the lock dies with the connection
      result.outcome = Outcome::kUnknown;
      result.error = "granted, then no fence: " +
                     (fence.ok() ? std::string("no AUTO_INCREMENT id") : fence.error);
      co_return;
    }
    result.fence = static_cast<int64_t>(fence.insert_id);
  }
  result.outcome = Outcome::kOk;
  result.session_lease = true;
  result.validity_ms = lease.count();
  held_[key] = Hold{result.token, connection_.connects()};
}

awaitable<ReleaseResult> MariadbLockClient::Release(const std::string& key,
                                                    const std::string& token) {
  ReleaseResult result{Outcome::kFail, ""};
  auto it = held_.find(key);
  if (it == held_.end() || it->second.token != token) {
    result.error = "not held by this client";
    co_return result;
  }
  const Hold hold = it->second;
  held_.erase(it);
  const bool get_lock = options_.recipe == MariadbRecipe::kGetLock;
  SqlReply reply;
  if (connection_.connected() && connection_.connects() == hold.connection) {
    const std::string sql = get_lock ? "SELECT RELEASE_LOCK(" + SqlQuoted(key) + ")" : "COMMIT";
    reply = co_await connection_.Query(sql, Clock::now() + options_.timeout, /*may_connect=*/false);
  } else {
    reply.failure = SqlFailure::kNotSent;
    reply.lost = true;
  }
  if (reply.lost) {
    ++locks_lost_;
    result.error = "lock lost: its connection is gone";
    co_return result;
  }
  if (reply.failure == SqlFailure::kInDoubt) {
    result.outcome = Outcome::kUnknown;
    result.error = reply.error;
    co_return result;
  }
  if (!reply.ok()) {
    if (!get_lock) connection_.Close();  // a failed COMMIT: end the transaction for sure
    result.error = reply.error;
    co_return result;
  }
  if (get_lock && reply.Scalar() != "1") {
    ++locks_lost_;
    result.error = "lock lost: RELEASE_LOCK found it not held";
    co_return result;
  }
  result.outcome = Outcome::kOk;
  co_return result;
}

}  // namespace locksmith
