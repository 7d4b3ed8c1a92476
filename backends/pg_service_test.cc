// What the postgres service runs, without a server: initdb and the
// postmaster as an ordinary user of a user namespace of their own (and an
// IPC namespace of their own) when the host's commands run as root, as the
// host's user otherwise; only SCRAM-authenticated TCP clients in pg_hba.conf.
#include "backends/pg_service.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "backends/non_root_server.h"

namespace locksmith {
namespace {

bool Has(const std::vector<std::string>& argv, const std::string& arg) {
  return std::find(argv.begin(), argv.end(), arg) != argv.end();
}

TEST(PgServiceTest, AsRootTheServerRunsAsAnOrdinaryUserOfItsOwnUserNamespace) {
  const auto run_as = NonRootPrefix(true, true);
  const auto server = PgServerArgv(run_as, "/n/pgdata", "198.18.0.2", 5432);
  EXPECT_EQ(std::vector<std::string>(server.begin(), server.begin() + run_as.size() + 1),
            (std::vector<std::string>{"unshare", "--user", "--map-user=1", "--map-group=1",
                                      "--ipc", "--", "/usr/lib/postgresql/15/bin/postgres"}));
  EXPECT_TRUE(Has(server, "listen_addresses=198.18.0.2"));
  EXPECT_TRUE(Has(server, "port=5432"));
  EXPECT_TRUE(Has(server, "unix_socket_directories="));
  EXPECT_TRUE(Has(server, "/n/pgdata"));
  const auto initdb = PgInitdbArgv(run_as, "/n/pgdata", "/n/pw");
  EXPECT_EQ(initdb[run_as.size()], "/usr/lib/postgresql/15/bin/initdb");
}

TEST(PgServiceTest, WithoutRootItRunsAsTheHostsUser) {
  EXPECT_TRUE(NonRootPrefix(false, true).empty());
  const auto server = PgServerArgv({}, "/n/pgdata", "127.0.0.1", 40001);
  EXPECT_EQ(server.front(), "/usr/lib/postgresql/15/bin/postgres");
  const auto initdb = PgInitdbArgv({}, "/n/pgdata", "/n/pw");
  EXPECT_EQ(initdb.front(), "/usr/lib/postgresql/15/bin/initdb");
  EXPECT_TRUE(Has(initdb, "--pwfile=/n/pw"));
  EXPECT_TRUE(Has(initdb, "--auth=scram-sha-256"));
}

TEST(PgServiceTest, HbaAdmitsOnlyScramOverTcp) {
  const std::string hba = PgHbaText();
  EXPECT_EQ(hba.find("trust"), std::string::npos);
  EXPECT_EQ(hba.find("local"), std::string::npos);
  EXPECT_NE(hba.find("host all all 0.0.0.0/0 scram-sha-256"), std::string::npos);
}

}  // namespace
}  // namespace locksmith
