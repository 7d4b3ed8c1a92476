// Every registered backend, workload and nemesis family, through the
// registries: its options' defaults validate, every option is documented,
// config.json round-trips, and no two modules give one flag or key two
// meanings (the CLI makes one flag of them).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "backends/backend_registry.h"
#include "cluster/ssh_cluster.h"
#include "harness/run_config.h"
#include "nemesis/nemesis_registry.h"
#include "workloads/workload_registry.h"

namespace locksmith {
namespace {

// The modules by kind and name, each with its options factory.
struct Module {
  std::string kind, name;
  OptionsFactory options;
};

std::vector<Module> AllModules() {
  std::vector<Module> all;
  for (const auto& e : Backends()) all.push_back({"backend", e.name, e.options});
  for (const auto& e : Workloads()) all.push_back({"workload", e.name, e.options});
  for (const auto& e : NemesisFamilies()) all.push_back({"nemesis", e.name, e.options});
  return all;
}

// A config choosing `module` (and the defaults for the rest).
RunConfig Choosing(const Module& module) {
  RunConfig c;
  const nlohmann::json choice =
      module.kind == "nemesis" ? nlohmann::json{{"nemesis", {module.name}}}
                               : nlohmann::json{{module.kind, module.name}};
  EXPECT_TRUE(MergeRunConfigJson(choice, c, UnusedKeys::kError).ok()) << module.name;
  return c;
}

TEST(RegistriesTest, EveryModulesDefaultsValidateAndEveryOptionIsDocumented) {
  for (const auto& m : AllModules()) {
    auto options = m.options();
    Status s = options->set().Validate();
    EXPECT_TRUE(s.ok()) << m.kind << " " << m.name << ": " << (s ? "" : s.error());
    for (const auto& spec : options->set().Specs()) {
      EXPECT_FALSE(spec.help.empty()) << m.name << " " << spec.key;
      EXPECT_FALSE(spec.flag.empty()) << m.name << " " << spec.key << ": module options have flags";
    }
    s = ValidateRunConfig(Choosing(m));
    EXPECT_TRUE(s.ok()) << m.kind << " " << m.name << ": " << (s ? "" : s.error());
  }
  RunConfig defaults;
  OptionSet common;
  defaults.Declare(common);
  for (const auto& spec : common.Specs()) EXPECT_FALSE(spec.help.empty()) << spec.key;
}

TEST(RegistriesTest, NoFlagOrKeyHasTwoMeanings) {
  RunConfig defaults;
  OptionSet common;
  defaults.Declare(common);
  std::set<std::string> common_flags = {"--config", "--seed", "--help"};
  for (const auto& spec : common.Specs()) common_flags.insert(spec.flag);

  std::map<std::string, const ModuleKey*> by_flag, by_key;
  for (const auto& m : ModuleKeys()) {
    EXPECT_EQ(common.Find(m.spec.key), nullptr) << m.name << " redeclares common " << m.spec.key;
    EXPECT_NE(m.spec.key, "seed");
    EXPECT_FALSE(common_flags.count(m.spec.flag)) << m.name << " redeclares " << m.spec.flag;
    for (auto* index : {&by_flag, &by_key}) {
      const std::string& id = index == &by_flag ? m.spec.flag : m.spec.key;
      auto [it, fresh] = index->emplace(id, &m);
      if (fresh) continue;
      // Declared twice: only with the same key, flag, kind and choices.
      const OptionSpec& a = it->second->spec;
      EXPECT_EQ(a.key, m.spec.key) << id << ": " << it->second->name << " vs " << m.name;
      EXPECT_EQ(a.flag, m.spec.flag) << id << ": " << it->second->name << " vs " << m.name;
      EXPECT_EQ(a.kind, m.spec.kind) << id << ": " << it->second->name << " vs " << m.name;
      EXPECT_EQ(a.choices, m.spec.choices) << id << ": " << it->second->name << " vs " << m.name;
    }
  }
}

TEST(RegistriesTest, ConfigJsonRoundTripsForEveryModule) {
  for (const auto& m : AllModules()) {
    RunConfig a = Choosing(m);
    a.seed = 1;
    const nlohmann::json j = a.ToJson();
    // The module's keys are in config.json, flat, beside the common ones.
    const auto options = m.options();
    for (const auto& spec : options->set().Specs()) {
      EXPECT_TRUE(j.contains(spec.key)) << m.name << " " << spec.key;
    }
    RunConfig b;
    Status s = MergeRunConfigJson(j, b, UnusedKeys::kError);
    ASSERT_TRUE(s.ok()) << m.name << ": " << s.error();
    EXPECT_EQ(b.ToJson(), j) << m.name;
    EXPECT_TRUE(b.UnusedKeyWarnings().empty()) << m.name;
  }
}

TEST(RegistriesTest, UnknownNamesListTheKnownOnes) {
  // The registry's own list, in its order (a new backend changes no test
  // here): the first four are the ones the project began with.
  const std::vector<std::string> backends = BackendNames();
  ASSERT_GE(backends.size(), 4u);
  EXPECT_EQ(std::vector<std::string>(backends.begin(), backends.begin() + 4),
            (std::vector<std::string>{"redis", "zookeeper", "redlock", "redis-sentinel"}));
  EXPECT_EQ(FindBackend("consul").error(),
            "unknown backend \"consul\" (known: " + JoinNames(backends) + ")");
  EXPECT_EQ(FindWorkload("bank").error(),
            "unknown workload \"bank\" (known: mutex, inventory, counter, rw-cache)");
  EXPECT_EQ(FindNemesis("meteor").error(),
            "unknown nemesis \"meteor\" (known: kill, pause, client-pause, clock, partition, "
            "net-loss, net-slow, failover, client-crash, client-clock)");
}

// The backend registry names the packages each backend's servers need; the
// ssh provider installs them from there, and the two places that install
// them ahead of time (setup.sh on this machine, the docker node image) must
// list every one, or a new backend would run nowhere but on ssh nodes.
TEST(RegistriesTest, SetupAndTheNodeImageInstallEveryBackendsPackages) {
  for (const char* file : {"scripts/setup.sh", "docker/Dockerfile.node"}) {
    std::ifstream in(std::string(LOCKSMITH_SOURCE_DIR) + "/" + file);
    ASSERT_TRUE(in) << file;
    std::ostringstream text;
    text << in.rdbuf();
    std::vector<std::string> wanted = SshProviderPackages();
    for (const auto& e : Backends()) {
      ASSERT_FALSE(e.packages.empty()) << e.name << " names no package";
      wanted.insert(wanted.end(), e.packages.begin(), e.packages.end());
    }
    for (const auto& package : wanted) {
      const std::regex word("(^|[\\s(])" + package + "($|[\\s)\\\\])");
      EXPECT_TRUE(std::regex_search(text.str(), word)) << file << " does not install " << package;
    }
  }
}

TEST(RegistriesTest, FencingNeedsAClientThatGivesTokens) {
  EXPECT_TRUE(CheckFencingClient("redis", ""));
  EXPECT_TRUE(CheckFencingClient("zookeeper", "zk-naive"));
  Status redlock = CheckFencingClient("redlock", "");
  ASSERT_FALSE(redlock);
  EXPECT_NE(redlock.error().find("redlock has no single counter"), std::string::npos);
  EXPECT_NE(redlock.error().find("use redis, zookeeper, redis-sentinel"), std::string::npos)
      << redlock.error();
  Status get_set = CheckFencingClient("redis-sentinel", "redis-get-set");
  ASSERT_FALSE(get_set);
  EXPECT_EQ(get_set.error(), "--fencing on: the redis-get-set client gives no fencing token "
                             "(use --client redis or redis-watchdog)");
}

// The string literals of a C++ source, comments skipped (plain and raw
// strings; enough for the project's own code).
std::vector<std::string> StringLiterals(const std::string& code) {
  std::vector<std::string> literals;
  for (size_t i = 0; i < code.size(); ++i) {
    if (code.compare(i, 2, "//") == 0) {
      i = code.find('\n', i);
      if (i == std::string::npos) break;
    } else if (code.compare(i, 2, "/*") == 0) {
      i = code.find("*/", i + 2) + 1;
    } else if (code[i] == '\'') {
      i = code.find('\'', i + (code[i + 1] == '\\' ? 3 : 2));
    } else if (code.compare(i, 3, "R\"(") == 0) {
      const size_t end = code.find(")\"", i + 3);
      literals.push_back(code.substr(i + 3, end - i - 3));
      i = end + 1;
    } else if (code[i] == '"') {
      std::string text;
      for (++i; i < code.size() && code[i] != '"'; ++i) {
        if (code[i] == '\\') ++i;
        text += code[i];
      }
      literals.push_back(text);
    }
  }
  return literals;
}

// The text of the source file `path` (relative to the source tree).
std::string SourceText(const std::string& path) {
  std::ifstream in(std::string(LOCKSMITH_SOURCE_DIR) + "/" + path);
  std::ostringstream code;
  code << in.rdbuf();
  return code.str();
}

// The project headers `code` includes ("backends/redis_service.h", ...).
std::set<std::string> ProjectIncludes(const std::string& code) {
  static const std::regex kInclude(R"re(^[ \t]*#[ \t]*include[ \t]+"([^"]+)")re");
  std::set<std::string> headers;
  std::istringstream lines(code);
  std::smatch match;
  for (std::string line; std::getline(lines, line);) {
    if (std::regex_search(line, match, kInclude)) headers.insert(match[1]);
  }
  return headers;
}

// The headers the registries include to reach one backend or one fault
// family (a service's, a family's nemesis), less the generic ones.
std::set<std::string> ModuleHeaders() {
  std::set<std::string> headers;
  for (const char* registry : {"backends/backend_registry.cc", "nemesis/nemesis_registry.cc"}) {
    for (const auto& header : ProjectIncludes(SourceText(registry))) {
      if (header.starts_with("backends/") || header.starts_with("nemesis/")) headers.insert(header);
    }
  }
  for (const char* generic :
       {"backends/backend_registry.h", "backends/exec_protocol.h", "nemesis/nemesis_registry.h"}) {
    headers.erase(generic);
  }
  return headers;
}

// A backend is its own files plus one registry line: the harness (the run
// lifecycle, config, CLI, suites) and the cluster providers never key on a
// backend's or a client's name, nor include one backend's or one fault
// family's header, so adding one touches neither.
TEST(RegistriesTest, TheHarnessAndTheClusterKnowNoBackendByName) {
  std::set<std::string> names;
  for (const auto& e : Backends()) names.insert(e.name);
  for (const auto& c : AllClientNames()) names.insert(c);
  const std::set<std::string> module_headers = ModuleHeaders();
  ASSERT_TRUE(module_headers.count("backends/redis_service.h"));
  ASSERT_TRUE(module_headers.count("nemesis/partition_nemesis.h"));
  int files = 0;
  for (const char* dir : {"harness", "cluster"}) {
    for (const auto& entry :
         std::filesystem::directory_iterator(std::string(LOCKSMITH_SOURCE_DIR) + "/" + dir)) {
      const std::string path = entry.path().string();
      const std::string stem = entry.path().stem().string();
      if (stem.ends_with("_test") || stem.ends_with("_bench")) continue;
      if (entry.path().extension() != ".cc" && entry.path().extension() != ".h") continue;
      std::ifstream in(path);
      std::ostringstream code;
      code << in.rdbuf();
      ++files;
      for (const auto& literal : StringLiterals(code.str())) {
        EXPECT_EQ(names.count(literal), 0u) << path << " names \"" << literal << "\"";
      }
      for (const auto& header : ProjectIncludes(code.str())) {
        EXPECT_EQ(module_headers.count(header), 0u) << path << " includes " << header;
      }
    }
  }
  EXPECT_GT(files, 30);
}

TEST(RegistriesTest, StringLiteralsSkipCommentsAndReadRawStrings) {
  EXPECT_EQ(StringLiterals("// \"redis\"\nx = \"a\\\"b\"; /* \"c\" */ y = R\"(raw)\"; c = '\"';"),
            (std::vector<std::string>{"a\"b", "raw"}));
}

}  // namespace
}  // namespace locksmith
