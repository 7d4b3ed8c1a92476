// Command construction of the ssh provider: quoting for the remote shell
// (checked against a real /bin/sh), the argv vectors handed to ssh, the
// spawn wrapper's argv, and node-list parsing with bad input.
#include "cluster/ssh_command.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "cluster/process_supervisor.h"
#include "cluster/ssh_cluster.h"
#include "cluster/ssh_host.h"

namespace locksmith {
namespace {

TEST(ShellQuoteTest, PlainWordsStayAndOthersAreSingleQuoted) {
  EXPECT_EQ(ShellQuote("iptables"), "iptables");
  EXPECT_EQ(ShellQuote("/var/lib/locksmith/abc123/n1/redis.conf"),
            "/var/lib/locksmith/abc123/n1/redis.conf");
  EXPECT_EQ(ShellQuote("LD_PRELOAD=/a/b.so"), "LD_PRELOAD=/a/b.so");
  EXPECT_EQ(ShellQuote(""), "''");
  EXPECT_EQ(ShellQuote("a b"), "'a b'");
  EXPECT_EQ(ShellQuote("it's"), "'it'\\''s'");
  EXPECT_EQ(ShellQuote("$(reboot)"), "'$(reboot)'");
  EXPECT_EQ(ShellQuote("*"), "'*'");
}

// What the remote login shell makes of RemoteCommandLine: the same words.
TEST(ShellQuoteTest, AShellSplitsTheLineBackIntoTheSameWords) {
  const std::vector<std::string> words = {
      "printf",      "%s\\n",  "plain",  "two words", "it's",         "\"dq\"", "$HOME",
      "`id`",        "$(id)",  "a;b|c&", "*",         "",             "-n",     "new\nline",
      "tab\there",   "back\\", "'",      "''",        "!history",     "~user",  "{a,b}",
      "x=1",         "#hash",  "<in",    ">out",      "\xc3\xa9t\xc3\xa9"};
  auto r = RunCommand({"/bin/sh", "-c", RemoteCommandLine(words)}, "",
                      std::chrono::seconds(10));
  ASSERT_TRUE(r.ok()) << r.error();
  ASSERT_EQ(r->exit_code, 0) << r->output;
  std::string expected;
  for (size_t i = 2; i < words.size(); ++i) expected += words[i] + "\n";
  EXPECT_EQ(r->output, expected);
}

TEST(SshArgvTest, OptionsAreSeparateWordsAndTheRemoteLineIsLast) {
  SshOptions options;
  options.user = "admin";
  options.key = "/keys/id ed25519";
  options.port = 2222;
  options.known_hosts = "/tmp/kh";
  const auto argv = RemoteArgv(options, "/tmp/lsm-ssh-abc123-1/0", "n1",
                               {"iptables-restore", "-w", "--noflush", "/a b"});
  ASSERT_GE(argv.size(), 4u);
  EXPECT_EQ(argv[0], "ssh");
  EXPECT_EQ(argv[argv.size() - 3], "--");
  EXPECT_EQ(argv[argv.size() - 2], "n1");
  EXPECT_EQ(argv.back(), "iptables-restore -w --noflush '/a b'");
  auto has = [&](const std::string& a, const std::string& b) {
    for (size_t i = 0; i + 1 < argv.size(); ++i) {
      if (argv[i] == a && argv[i + 1] == b) return true;
    }
    return false;
  };
  EXPECT_TRUE(has("-o", "ControlPath=/tmp/lsm-ssh-abc123-1/0"));
  EXPECT_TRUE(has("-o", "ControlMaster=no"));
  EXPECT_TRUE(has("-o", "BatchMode=yes"));
  EXPECT_TRUE(has("-p", "2222"));
  EXPECT_TRUE(has("-l", "admin"));
  EXPECT_TRUE(has("-i", "/keys/id ed25519"));  // one word: no shell on the controller
  EXPECT_TRUE(has("-o", "UserKnownHostsFile=/tmp/kh"));

  const auto master = MasterArgv(options, "/tmp/c/0", "198.18.4.2");
  EXPECT_TRUE(std::find(master.begin(), master.end(), "ControlMaster=yes") != master.end());
  EXPECT_TRUE(std::find(master.begin(), master.end(), "-N") != master.end());
  EXPECT_EQ(master.back(), "198.18.4.2");
  EXPECT_EQ(ControlArgv("/tmp/c/0", "n1", "exit"),
            (std::vector<std::string>{"ssh", "-o", "ControlPath=/tmp/c/0", "-O", "exit", "--",
                                      "n1"}));
}

TEST(SshArgvTest, ANonRootUserRunsEveryRemoteCommandUnderSudo) {
  SshOptions options;
  options.user = "deploy";
  SshHost host("n1", "node1", "198.18.4.2", "/var/lib/locksmith/abc123", "abc123", options,
               "/tmp/c/0");
  EXPECT_EQ(host.SshArgv({"iptables", "-S"}).back(), "sudo -n iptables -S");
  SshHost root("n1", "node1", "198.18.4.2", "/var/lib/locksmith/abc123", "abc123", SshOptions{},
               "/tmp/c/0");
  EXPECT_EQ(root.SshArgv({"iptables", "-S"}).back(), "iptables -S");
}

TEST(SshSpawnTest, TheWrapperGetsTheEnvironmentThenTheServerArgv) {
  SshHost host("n1", "node1", "198.18.4.2", "/var/lib/locksmith/abc123", "abc123", SshOptions{},
               "/tmp/c/0");
  ASSERT_TRUE(host.SetSpawnEnv("LD_PRELOAD=/x/shim.so").ok());
  ProcessSpec spec;
  spec.argv = {"redis-server", "/var/lib/locksmith/abc123/n1/redis.conf"};
  spec.env = {"A=b c"};
  spec.log_path = "/var/lib/locksmith/abc123/n1/redis.log";
  auto argv = host.SpawnArgv(spec);
  ASSERT_TRUE(argv.ok()) << argv.error();
  ASSERT_GE(argv->size(), 10u);
  EXPECT_EQ((std::vector<std::string>(argv->begin(), argv->begin() + 4)),
            (std::vector<std::string>{"setsid", "-f", "sh", "-c"}));
  EXPECT_EQ((*argv)[6], "/var/lib/locksmith/abc123/n1");  // cwd: the log's directory
  EXPECT_EQ((*argv)[7], "/var/lib/locksmith/abc123/n1/redis.log");
  EXPECT_EQ((*argv)[8], "/var/lib/locksmith/abc123/.pids-n1");
  const auto preload = std::find(argv->begin(), argv->end(), "LD_PRELOAD=/x/shim.so");
  const auto own = std::find(argv->begin(), argv->end(), "A=b c");
  const auto server = std::find(argv->begin(), argv->end(), "redis-server");
  ASSERT_TRUE(preload != argv->end() && own != argv->end() && server != argv->end());
  EXPECT_TRUE(preload < own && own < server);  // the spec's entries win in env(1)
  EXPECT_EQ(argv->back(), "/var/lib/locksmith/abc123/n1/redis.conf");

  spec.argv = {"X=1", "evil"};
  EXPECT_FALSE(host.SpawnArgv(spec).ok());
  spec.argv = {};
  EXPECT_FALSE(host.SpawnArgv(spec).ok());
  EXPECT_FALSE(host.WriteFile("../etc/passwd", "x").ok());
  EXPECT_FALSE(host.Signal(1, 9).ok());  // never a pid it did not start
}

TEST(NodeListTest, ParsesTrimmedDistinctEntries) {
  auto nodes = ParseNodeList("n1, n2 ,198.18.4.3");
  ASSERT_TRUE(nodes.ok()) << nodes.error();
  EXPECT_EQ(*nodes, (std::vector<std::string>{"n1", "n2", "198.18.4.3"}));
  auto file = ParseNodesFile("# the cluster\nn1\n\n  n2  # second\r\nn3\n");
  ASSERT_TRUE(file.ok()) << file.error();
  EXPECT_EQ(*file, (std::vector<std::string>{"n1", "n2", "n3"}));
}

TEST(NodeListTest, BadInputIsOneLineNamingTheEntry) {
  EXPECT_EQ(ParseNodeList("n1,,n2").error(), "--nodes \"n1,,n2\" has an empty entry");
  EXPECT_EQ(ParseNodeList("n1,n1").error(), "--nodes: node \"n1\" appears twice");
  EXPECT_EQ(ParseNodeList("-oProxyCommand=x").error(),
            "--nodes: node \"-oProxyCommand=x\" is not a host name or IPv4 address "
            "(letters, digits, '.' and '-')");
  EXPECT_FALSE(ParseNodeList("n1;reboot").ok());
  EXPECT_FALSE(ParseNodeList("root@n1").ok());
  EXPECT_FALSE(ParseNodeList("").ok());
  EXPECT_EQ(ParseNodesFile("# nothing\n\n").error(), "--nodes-file names no node");
  EXPECT_FALSE(ReadNodesFile("/nonexistent/nodes").ok());
  for (const auto& r : {ParseNodeList("a b"), ParseNodesFile("n1\nn$x\n")}) {
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().find('\n'), std::string::npos);
  }
}

TEST(SshClusterTest, BadNodesFailBeforeAnyConnection) {
  SshClusterOptions options;
  options.host_names = {"n1", "n2"};
  options.nodes = {"198.18.4.2"};
  auto few = CreateSshCluster(options);
  ASSERT_FALSE(few.ok());
  EXPECT_EQ(few.error(), "--nodes gives 1 node(s) but this run needs 2 (n1,n2)");
  options.nodes = {"198.18.4.2", "no-such-node.invalid"};
  auto unknown = CreateSshCluster(options);
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().rfind("cannot resolve node \"no-such-node.invalid\": ", 0), 0u)
      << unknown.error();
}

TEST(SshClusterTest, NodesGetTheToolsTheProviderRunsThere) {
  const auto tools = SshProviderPackages();
  for (const char* p : {"iptables", "iproute2", "procps", "tar"}) {
    EXPECT_TRUE(std::find(tools.begin(), tools.end(), p) != tools.end()) << p;
  }
}

}  // namespace
}  // namespace locksmith
