#include "backends/pg_lock_sql.h"

#include <charconv>

namespace locksmith {

std::vector<std::string> PgSchemaSql() {
  return {"CREATE TABLE IF NOT EXISTS locksmith_locks ("
          "key text PRIMARY KEY, owner text NOT NULL, expires_at timestamptz NOT NULL)",
          "CREATE SEQUENCE IF NOT EXISTS locksmith_fence"};
}

int64_t PgAdvisoryKey(const std::string& key) {
  uint64_t hash = 14695981039346656037ULL;
  for (unsigned char c : key) {
    hash ^= c;
    hash *= 1099511628211ULL;
  }
  return static_cast<int64_t>(hash);
}

std::string PgAdvisoryAcquireSql(bool fencing) {
  // MATERIALIZED: the lock is tried exactly once, before the fence is
  // taken, and the fence only when it was granted.
  return std::string("WITH attempt AS MATERIALIZED ("
                     "SELECT pg_try_advisory_lock($1::bigint) AS granted) "
                     "SELECT granted, ") +
         (fencing ? "CASE WHEN granted THEN nextval('locksmith_fence') END" : "NULL::bigint") +
         " FROM attempt";
}

std::string PgAdvisoryReleaseSql() { return "SELECT pg_advisory_unlock($1::bigint)"; }

std::string PgTableAcquireSql(bool fencing) {
  // RETURNING runs only for the row inserted or claimed, after its row lock
  // is held: a fence is taken by grants alone, in the order they happen.
  return std::string(
             "INSERT INTO locksmith_locks AS held (key, owner, expires_at) "
             "VALUES ($1, $2, now() + $3::bigint * interval '1 millisecond') "
             "ON CONFLICT (key) DO UPDATE SET owner = excluded.owner, "
             "expires_at = excluded.expires_at WHERE held.expires_at < now() RETURNING ") +
         (fencing ? "nextval('locksmith_fence')" : "NULL::bigint");
}

std::string PgTableReleaseSql() {
  return "DELETE FROM locksmith_locks WHERE key = $1 AND owner = $2 RETURNING 1";
}

Result<bool> PgBool(const std::optional<std::string>& field) {
  if (!field) return Error{"expected a boolean, got NULL"};
  if (*field == "t") return true;
  if (*field == "f") return false;
  return Error{"expected a boolean, got '" + *field + "'"};
}

Result<std::optional<int64_t>> PgBigint(const std::optional<std::string>& field) {
  if (!field) return std::optional<int64_t>();
  int64_t value = 0;
  const char* end = field->data() + field->size();
  auto [ptr, ec] = std::from_chars(field->data(), end, value);
  if (ec != std::errc() || ptr != end || field->empty()) {
    return Error{"expected a bigint, got '" + *field + "'"};
  }
  return std::optional<int64_t>(value);
}

namespace {

Status ExpectColumns(const std::vector<PgRow>& rows, size_t max_rows, size_t columns) {
  if (rows.size() > max_rows) {
    return Error{"expected at most " + std::to_string(max_rows) + " row(s), got " +
                 std::to_string(rows.size())};
  }
  for (const auto& row : rows) {
    if (row.size() != columns) {
      return Error{"expected " + std::to_string(columns) + " column(s), got " +
                   std::to_string(row.size())};
    }
  }
  return OkStatus();
}

}  // namespace

Result<PgGrant> PgDecodeAdvisoryAcquire(const std::vector<PgRow>& rows) {
  if (Status s = ExpectColumns(rows, 1, 2); !s) return Error{s.error()};
  if (rows.empty()) return Error{"expected one row, got none"};
  auto granted = PgBool(rows[0][0]);
  if (!granted) return Error{granted.error()};
  auto fence = PgBigint(rows[0][1]);
  if (!fence) return Error{fence.error()};
  if (!*granted && *fence) return Error{"a fence for an advisory lock not granted"};
  return PgGrant{*granted, *fence};
}

Result<PgGrant> PgDecodeTableAcquire(const std::vector<PgRow>& rows) {
  if (Status s = ExpectColumns(rows, 1, 1); !s) return Error{s.error()};
  if (rows.empty()) return PgGrant{};
  auto fence = PgBigint(rows[0][0]);
  if (!fence) return Error{fence.error()};
  return PgGrant{true, *fence};
}

Result<bool> PgDecodeAdvisoryRelease(const std::vector<PgRow>& rows) {
  if (Status s = ExpectColumns(rows, 1, 1); !s) return Error{s.error()};
  if (rows.empty()) return Error{"expected one row, got none"};
  return PgBool(rows[0][0]);
}

Result<bool> PgDecodeTableRelease(const std::vector<PgRow>& rows) {
  if (Status s = ExpectColumns(rows, 1, 1); !s) return Error{s.error()};
  return !rows.empty();
}

}  // namespace locksmith
