// The SQL of the postgres backend's lock clients and how their answers read,
// as pure functions (no connection), so both are unit-tested without a
// server:
//
//   pg-advisory    a session-level advisory lock on a 64-bit number made from
//                  the key (PgAdvisoryKey): pg_try_advisory_lock answers at
//                  once, true or false; pg_advisory_unlock answers whether this
//                  session held it. The lock lives as long as the session.
//   pg-lock-table  a row per held key in locksmith_locks (owner = the
//                  acquire's token, expires_at = now() + lease): the acquire
//                  inserts the row, or claims one whose expiry has passed, in
//                  one statement (INSERT ... ON CONFLICT DO UPDATE ... WHERE
//                  expires_at < now() RETURNING); the release deletes the row
//                  only where the owner is still the token.
//
// With fencing, the acquiring statement also takes nextval of the sequence
// locksmith_fence, only when it grants (the advisory lock's CASE, the row's
// insert or claim), so every grant carries a number larger than every
// earlier grant's. PgSchemaSql makes the table and the sequence once, when the
// server first starts. Stateless; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"

namespace locksmith {

// One row of a result, each field as text (nullopt: SQL NULL).
using PgRow = std::vector<std::optional<std::string>>;

// The table and the sequence both clients use, made if missing: one
// statement each (the extended protocol takes one at a time).
std::vector<std::string> PgSchemaSql();

// The advisory lock number of `key`: a 64-bit FNV-1a hash, as a signed bigint.
int64_t PgAdvisoryKey(const std::string& key);

// $1 = the key's advisory number. One row: (granted, fence or NULL).
std::string PgAdvisoryAcquireSql(bool fencing);
// $1 = the key's advisory number. One row: (released).
std::string PgAdvisoryReleaseSql();

// $1 = key, $2 = owner token, $3 = lease in ms. One row (fence or NULL) when
// granted, none when another owner's row has not expired.
std::string PgTableAcquireSql(bool fencing);
// $1 = key, $2 = owner token. One row when the owner's row was deleted.
std::string PgTableReleaseSql();

// What an acquire's rows say.
struct PgGrant {
  bool granted = false;
  std::optional<int64_t> fence;  // when granted with fencing
};

// The rows of PgAdvisoryAcquireSql: exactly one row (t|f, fence).
Result<PgGrant> PgDecodeAdvisoryAcquire(const std::vector<PgRow>& rows);
// The rows of PgTableAcquireSql: no row (not granted) or one (fence).
Result<PgGrant> PgDecodeTableAcquire(const std::vector<PgRow>& rows);
// The rows of a release: advisory, one row (t|f); table, zero or one row.
Result<bool> PgDecodeAdvisoryRelease(const std::vector<PgRow>& rows);
Result<bool> PgDecodeTableRelease(const std::vector<PgRow>& rows);

// A boolean field as PostgreSQL's text format writes it ("t" / "f").
Result<bool> PgBool(const std::optional<std::string>& field);
// A bigint field; nullopt for NULL.
Result<std::optional<int64_t>> PgBigint(const std::optional<std::string>& field);

}  // namespace locksmith
