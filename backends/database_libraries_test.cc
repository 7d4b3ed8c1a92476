// libpq and libmariadb are opened on their first call, not at start
// (backends/libpq_library.h, backends/mariadb_library.h). CTest runs each
// case in a process of its own, so "not yet loaded" is a fresh process's.
#include <dlfcn.h>
#include <libpq-fe.h>
#include <mysql.h>

#include <string>

#include <gtest/gtest.h>

#include "backends/libpq_library.h"
#include "backends/mariadb_library.h"

namespace locksmith {
namespace {

bool Loaded(const char* soname) { return ::dlopen(soname, RTLD_LAZY | RTLD_NOLOAD) != nullptr; }

TEST(DatabaseLibrariesTest, LibpqIsLoadedByItsFirstUseOnly) {
  ASSERT_FALSE(Loaded("libpq.so.5"));
  ASSERT_TRUE(LoadLibpq()) << LoadLibpq().error();
  EXPECT_TRUE(Loaded("libpq.so.5"));
}

TEST(DatabaseLibrariesTest, LibmariadbIsLoadedByItsFirstUseOnly) {
  ASSERT_FALSE(Loaded("libmariadb.so.3"));
  ASSERT_TRUE(LoadLibmariadb()) << LoadLibmariadb().error();
  EXPECT_TRUE(Loaded("libmariadb.so.3"));
}

TEST(DatabaseLibrariesTest, ALibpqCallReachesTheLibraryUnloadedBefore) {
  ASSERT_FALSE(Loaded("libpq.so.5"));
  // An unknown option: libpq refuses it without a connection attempt.
  const char* const keys[] = {"locksmith_no_such_option", nullptr};
  const char* const values[] = {"1", nullptr};
  PGconn* conn = PQconnectStartParams(keys, values, 0);
  ASSERT_NE(conn, nullptr);
  EXPECT_EQ(PQstatus(conn), CONNECTION_BAD);
  EXPECT_NE(std::string(PQerrorMessage(conn)).find("locksmith_no_such_option"),
            std::string::npos)
      << PQerrorMessage(conn);
  PQfinish(conn);
  EXPECT_TRUE(Loaded("libpq.so.5"));
}

TEST(DatabaseLibrariesTest, ALibmariadbCallReachesTheLibraryUnloadedBefore) {
  ASSERT_FALSE(Loaded("libmariadb.so.3"));
  MYSQL* mysql = mysql_init(nullptr);
  ASSERT_NE(mysql, nullptr);
  EXPECT_EQ(mysql_errno(mysql), 0u);
  mysql_close(mysql);
  EXPECT_TRUE(Loaded("libmariadb.so.3"));
}

}  // namespace
}  // namespace locksmith
