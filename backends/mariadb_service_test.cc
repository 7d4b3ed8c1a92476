#include "backends/mariadb_service.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "backends/non_root_server.h"

namespace locksmith {
namespace {

bool Has(const std::vector<std::string>& argv, const std::string& arg) {
  return std::find(argv.begin(), argv.end(), arg) != argv.end();
}

TEST(MariadbServiceTest, TheServerReadsNoOptionFileAndListensOnlyOnItsHost) {
  const auto argv = MariadbServerArgv({}, "/run/nodes/n1/mariadb", "198.18.0.1", 3306);
  ASSERT_GE(argv.size(), 2u);
  EXPECT_EQ(argv[0], "mariadbd");
  EXPECT_EQ(argv[1], "--no-defaults");  // must come first to count
  EXPECT_TRUE(Has(argv, "--datadir=/run/nodes/n1/mariadb"));
  EXPECT_TRUE(Has(argv, "--bind-address=198.18.0.1"));
  EXPECT_TRUE(Has(argv, "--port=3306"));
  // Never the machine's own socket or pid file.
  EXPECT_TRUE(Has(argv, "--socket=mariadbd.sock"));
  EXPECT_TRUE(Has(argv, "--pid-file=mariadbd.pid"));
}

TEST(MariadbServiceTest, AsRootTheInstallAndTheServerRunAsAnOrdinaryUserOfTheirOwn) {
  const auto run_as = NonRootPrefix(true, false);
  for (const auto& argv : {MariadbServerArgv(run_as, "/d/mariadb", "198.18.0.1", 3306),
                           MariadbInstallArgv(run_as, "/d/mariadb", "/d/boot.sql")}) {
    EXPECT_EQ(std::vector<std::string>(argv.begin(), argv.begin() + run_as.size()), run_as);
    EXPECT_EQ(argv[run_as.size() + 1], "--no-defaults");  // first after the program
    EXPECT_FALSE(Has(argv, "--ipc"));
    for (const auto& arg : argv) EXPECT_NE(arg.rfind("--user=", 0), 0u) << arg;
  }
  EXPECT_EQ(run_as.front(), "unshare");
  EXPECT_TRUE(Has(run_as, "--user"));
  EXPECT_TRUE(NonRootPrefix(false, false).empty());
}

TEST(MariadbServiceTest, InstallSizesTheDataLikeTheServer) {
  const auto install = MariadbInstallArgv({}, "/d/mariadb", "/d/boot.sql");
  ASSERT_GE(install.size(), 2u);
  EXPECT_EQ(install[1], "--no-defaults");
  EXPECT_TRUE(Has(install, "--extra-file=/d/boot.sql"));
  EXPECT_TRUE(Has(install, "--datadir=/d/mariadb"));
  EXPECT_TRUE(Has(install, "--tmpdir=/d/mariadb-tmp"));
  const auto server = MariadbServerArgv({}, "/d/mariadb", "198.18.0.1", 3306);
  EXPECT_TRUE(Has(server, "--tmpdir=/d/mariadb-tmp"));
  for (const auto& arg : install) {
    if (arg.rfind("--innodb-", 0) == 0) {
      EXPECT_TRUE(Has(server, arg)) << arg;
    }
  }
}

TEST(MariadbServiceTest, TheBootstrapQuotesThePasswordAndMakesTheTables) {
  const std::string sql = MariadbBootstrapSql("p'w\\d");
  EXPECT_EQ(sql.rfind("FLUSH PRIVILEGES;\n", 0), 0u);  // grant tables loaded first
  EXPECT_NE(sql.find("IDENTIFIED BY 'p\\'w\\\\d';"), std::string::npos) << sql;
  EXPECT_NE(sql.find("CREATE TABLE locksmith.locks "), std::string::npos);
  EXPECT_NE(sql.find("CREATE TABLE locksmith.fences (id BIGINT UNSIGNED AUTO_INCREMENT"),
            std::string::npos);
}

}  // namespace
}  // namespace locksmith
