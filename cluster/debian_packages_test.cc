#include "cluster/debian_packages.h"

#include <gtest/gtest.h>

#include <fstream>

#include "base/testing/temp_dir.h"

namespace locksmith {
namespace {

TEST(DebianPackagesTest, OnlyInstalledParagraphsCount) {
  testing::TempDir dir;
  const std::string status = dir.path() + "/status";
  std::ofstream(status) << "Package: redis-server\n"
                           "Status: install ok installed\n"
                           "Version: 5:7.0.15-1~deb12u1\n"
                           "\n"
                           "Package: postgresql-15\n"
                           "Status: deinstall ok config-files\n"
                           "\n"
                           "Package: zookeeper\n"
                           "Status: install ok installed\n";
  EXPECT_EQ(MissingDebianPackages({"redis-server", "postgresql-15", "etcd-server", "zookeeper"},
                                  status),
            (std::vector<std::string>{"postgresql-15", "etcd-server"}));
  EXPECT_TRUE(MissingDebianPackages({"redis-server", "zookeeper"}, status).empty());
}

TEST(DebianPackagesTest, AMachineWithoutDpkgReportsNothingMissing) {
  EXPECT_TRUE(MissingDebianPackages({"redis-server"}, "/nonexistent/dpkg/status").empty());
}

}  // namespace
}  // namespace locksmith
