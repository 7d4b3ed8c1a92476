// The postgres lock clients' SQL and how their answers read, without a
// server: the statements say what the clients rely on (one statement per
// acquire, the fence only where it grants, the owner checked on release),
// and the decoders refuse every answer that is not the expected shape.
#include "backends/pg_lock_sql.h"

#include <gtest/gtest.h>

namespace locksmith {
namespace {

PgRow Row(std::initializer_list<std::optional<std::string>> fields) { return PgRow(fields); }

TEST(PgLockSqlTest, AdvisoryKeyIsStableAndSpreadsKeys) {
  EXPECT_EQ(PgAdvisoryKey("lock"), PgAdvisoryKey("lock"));
  EXPECT_NE(PgAdvisoryKey("lock-1"), PgAdvisoryKey("lock-2"));
  // FNV-1a 64 of the empty string is its offset basis.
  EXPECT_EQ(static_cast<uint64_t>(PgAdvisoryKey("")), 14695981039346656037ULL);
}

TEST(PgLockSqlTest, AdvisoryAcquireTakesTheFenceOnlyWhenGranted) {
  const std::string fenced = PgAdvisoryAcquireSql(true);
  EXPECT_NE(fenced.find("AS MATERIALIZED"), std::string::npos);
  EXPECT_NE(fenced.find("pg_try_advisory_lock($1::bigint)"), std::string::npos);
  EXPECT_NE(fenced.find("CASE WHEN granted THEN nextval('locksmith_fence') END"),
            std::string::npos);
  EXPECT_EQ(PgAdvisoryAcquireSql(false).find("nextval"), std::string::npos);
  EXPECT_EQ(PgAdvisoryReleaseSql(), "SELECT pg_advisory_unlock($1::bigint)");
}

TEST(PgLockSqlTest, TableAcquireIsOneStatementThatClaimsOnlyExpiredRows) {
  const std::string sql = PgTableAcquireSql(true);
  EXPECT_EQ(sql.find(';'), std::string::npos);
  EXPECT_NE(sql.find("ON CONFLICT (key) DO UPDATE"), std::string::npos);
  EXPECT_NE(sql.find("WHERE held.expires_at < now()"), std::string::npos);
  EXPECT_NE(sql.find("RETURNING nextval('locksmith_fence')"), std::string::npos);
  EXPECT_EQ(PgTableAcquireSql(false).find("nextval"), std::string::npos);
  EXPECT_NE(PgTableReleaseSql().find("WHERE key = $1 AND owner = $2"), std::string::npos);
  EXPECT_EQ(PgSchemaSql().size(), 2u);
}

TEST(PgLockSqlTest, DecodesAdvisoryAcquires) {
  auto granted = PgDecodeAdvisoryAcquire({Row({"t", "42"})});
  ASSERT_TRUE(granted) << granted.error();
  EXPECT_TRUE(granted->granted);
  EXPECT_EQ(granted->fence, 42);
  auto unfenced = PgDecodeAdvisoryAcquire({Row({"t", std::nullopt})});
  ASSERT_TRUE(unfenced);
  EXPECT_FALSE(unfenced->fence.has_value());
  auto refused = PgDecodeAdvisoryAcquire({Row({"f", std::nullopt})});
  ASSERT_TRUE(refused);
  EXPECT_FALSE(refused->granted);
  EXPECT_FALSE(PgDecodeAdvisoryAcquire({}));
  EXPECT_FALSE(PgDecodeAdvisoryAcquire({Row({"f", "7"})}));  // a fence without the lock
  EXPECT_FALSE(PgDecodeAdvisoryAcquire({Row({"yes", std::nullopt})}));
  EXPECT_FALSE(PgDecodeAdvisoryAcquire({Row({"t"})}));
  EXPECT_FALSE(PgDecodeAdvisoryAcquire({Row({"t", "1"}), Row({"t", "2"})}));
}

TEST(PgLockSqlTest, DecodesTableAcquires) {
  auto granted = PgDecodeTableAcquire({Row({"9"})});
  ASSERT_TRUE(granted);
  EXPECT_TRUE(granted->granted);
  EXPECT_EQ(granted->fence, 9);
  auto busy = PgDecodeTableAcquire({});
  ASSERT_TRUE(busy);
  EXPECT_FALSE(busy->granted);
  EXPECT_FALSE(PgDecodeTableAcquire({Row({"9x"})}));
  EXPECT_FALSE(PgDecodeTableAcquire({Row({"1"}), Row({"2"})}));
}

TEST(PgLockSqlTest, DecodesReleases) {
  EXPECT_TRUE(*PgDecodeAdvisoryRelease({Row({"t"})}));
  EXPECT_FALSE(*PgDecodeAdvisoryRelease({Row({"f"})}));
  EXPECT_FALSE(PgDecodeAdvisoryRelease({}));
  EXPECT_FALSE(PgDecodeAdvisoryRelease({Row({std::nullopt})}));
  EXPECT_TRUE(*PgDecodeTableRelease({Row({"1"})}));
  EXPECT_FALSE(*PgDecodeTableRelease({}));
  EXPECT_FALSE(PgDecodeTableRelease({Row({"1", "2"})}));
}

TEST(PgLockSqlTest, ReadsBigints) {
  EXPECT_EQ(**PgBigint(std::string("-9223372036854775808")), INT64_MIN);
  EXPECT_FALSE(PgBigint(std::string("9223372036854775808")));
  EXPECT_FALSE(PgBigint(std::string("")));
  EXPECT_FALSE(PgBigint(std::nullopt)->has_value());
}

}  // namespace
}  // namespace locksmith
