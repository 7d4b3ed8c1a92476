// docs/exec-clients.md shows the hello every backend sends, one fenced block
// per backend tagged `json hello=BACKEND`; an adapter writer reads them to
// know the node roles and settings to expect. This test runs each backend
// for real with a program that records the hello it was sent
// (tests/exec_programs/hello_recorder.py) and compares the two: the same
// members with the same JSON types everywhere, the same node names, hosts,
// programs and roles (as a multiset: which ZooKeeper peer or etcd member
// leads, `primary`, varies by run), the same values of the settings that do
// not vary; addresses compared by shape, ports, timings and the password by
// type. The doc's minimal adapter is also the file in adapters/minimal/.
#include <gtest/gtest.h>

#include <algorithm>
#include <regex>
#include <string>
#include <vector>

#include "base/testing/temp_dir.h"
#include "tests/locksmith_process.h"

namespace locksmith::testing {
namespace {

using nlohmann::json;
using std::chrono::seconds;

const std::string kSource = LOCKSMITH_SOURCE_DIR;
const std::string kDoc = kSource + "/docs/exec-clients.md";

// The fenced blocks of `markdown` whose info string is `info`.
std::vector<std::string> FencedBlocks(const std::string& markdown, const std::string& info) {
  std::vector<std::string> blocks;
  const std::string open = "```" + info + "\n";
  for (size_t at = markdown.find(open); at != std::string::npos;
       at = markdown.find(open, at + 1)) {
    const size_t body = at + open.size();
    const size_t close = markdown.find("\n```", body - 1);
    if (close == std::string::npos) break;
    blocks.push_back(markdown.substr(body, close + 1 - body));
  }
  return blocks;
}

// The members whose values vary by run: compared by shape or type only.
bool IsAddress(const std::string& member) {
  return member == "address" || member == "source_address";
}
bool VariesByRun(const std::string& member) {
  return member == "port" || member == "ready_ms" || member == "client" ||
         member == "password" || IsAddress(member);
}

std::string TypeOf(const json& v) {
  if (v.is_number_integer()) return "integer";  // signed or not
  return v.type_name();
}

// Differences between the documented `doc` and the recorded `real` at `path`
// (`member`: the object member holding them), appended to `out`.
void Compare(const json& doc, const json& real, const std::string& path,
             const std::string& member, std::vector<std::string>& out) {
  if (TypeOf(doc) != TypeOf(real)) {
    out.push_back(path + ": documented " + TypeOf(doc) + ", sent " + TypeOf(real));
    return;
  }
  if (doc.is_object()) {
    for (const auto& [key, value] : doc.items()) {
      if (!real.contains(key)) out.push_back(path + "." + key + ": documented, not sent");
    }
    for (const auto& [key, value] : real.items()) {
      if (!doc.contains(key)) {
        out.push_back(path + "." + key + ": sent, not documented");
        continue;
      }
      if (!(path == "hello" && key == "nodes")) {
        Compare(doc.at(key), value, path + "." + key, key, out);
      }
    }
    return;
  }
  if (doc.is_array()) {
    if (doc.size() != real.size()) {
      out.push_back(path + ": documented " + std::to_string(doc.size()) + " entries, sent " +
                    std::to_string(real.size()));
      return;
    }
    for (size_t i = 0; i < doc.size(); ++i) {
      Compare(doc[i], real[i], path + "[" + std::to_string(i) + "]", member, out);
    }
    return;
  }
  if (member == "password") {
    if (doc.get<std::string>().empty() != real.get<std::string>().empty()) {
      out.push_back(path + ": documented " + doc.dump() + ", sent " + real.dump());
    }
    return;
  }
  if (IsAddress(member)) {
    static const std::regex kIpv4(R"(\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3})");
    const std::string d = doc.get<std::string>(), r = real.get<std::string>();
    if (std::regex_match(d, kIpv4) != std::regex_match(r, kIpv4) || d.empty() != r.empty()) {
      out.push_back(path + ": documented " + doc.dump() + ", sent " + real.dump());
    }
    return;
  }
  if (!VariesByRun(member) && doc != real) {
    out.push_back(path + ": documented " + doc.dump() + ", sent " + real.dump());
  }
}

// The nodes: the same count, each the same members (names, hosts and
// programs equal), the roles the same multiset.
void CompareNodes(const json& doc, const json& real, std::vector<std::string>& out) {
  if (!doc.is_array() || !real.is_array() || doc.size() != real.size()) {
    out.push_back("hello.nodes: documented " + doc.dump() + ", sent " + real.dump());
    return;
  }
  std::vector<std::string> doc_roles, real_roles;
  for (size_t i = 0; i < doc.size(); ++i) {
    json d = doc[i], r = real[i];
    doc_roles.push_back(d.value("role", ""));
    real_roles.push_back(r.value("role", ""));
    d.erase("role");
    r.erase("role");
    const std::string at = "hello.nodes[" + std::to_string(i) + "]";
    Compare(d, r, at, "", out);
    for (const char* exact : {"name", "host", "process"}) {
      if (d.value(exact, "") != r.value(exact, "")) {
        out.push_back(at + "." + exact + ": documented " + d.value(exact, "") + ", sent " +
                      r.value(exact, ""));
      }
    }
  }
  std::sort(doc_roles.begin(), doc_roles.end());
  std::sort(real_roles.begin(), real_roles.end());
  if (doc_roles != real_roles) {
    out.push_back("hello.nodes: documented roles " + json(doc_roles).dump() + ", sent " +
                  json(real_roles).dump());
  }
}

class HelloDocTest : public ::testing::TestWithParam<std::string> {};

TEST_P(HelloDocTest, TheDocumentedHelloIsTheOneSent) {
  const std::string backend = GetParam();
  const auto blocks = FencedBlocks(ReadText(kDoc), "json hello=" + backend);
  ASSERT_EQ(blocks.size(), 1u) << kDoc << " has no block ```json hello=" << backend;
  const json documented = json::parse(blocks.front(), nullptr, /*allow_exceptions=*/false);
  ASSERT_TRUE(documented.is_object()) << "the documented hello of " << backend
                                      << " is not a JSON object:\n" << blocks.front();

  TempDir record_dir;
  const std::string record = record_dir.path() + "/hello.json";
  FinishedRun f = RunAndLoad(
      {"--backend", backend, "--client",
       "exec:/usr/bin/python3 " + kSource + "/tests/exec_programs/hello_recorder.py " + record,
       "--concurrency", "1", "--time-limit", "1", "--seed", "1"},
      seconds(180));
  ASSERT_EQ(f.code, 0) << f.out;
  const json sent = ReadJson(record);
  ASSERT_TRUE(sent.is_object()) << "the recorder wrote no hello: " << f.out;

  std::vector<std::string> differences;
  Compare(documented, sent, "hello", "", differences);
  CompareNodes(documented.value("nodes", json()), sent.value("nodes", json()), differences);
  EXPECT_TRUE(differences.empty()) << backend << ": docs/exec-clients.md says\n"
                                   << documented.dump() << "\nthe harness sent\n"
                                   << sent.dump() << "\n"
                                   << json(differences).dump(1);
}

INSTANTIATE_TEST_SUITE_P(EveryBackend, HelloDocTest,
                         ::testing::Values("redis", "redis-sentinel", "redlock", "zookeeper",
                                           "etcd", "mariadb", "postgres"),
                         [](const auto& info) {
                           std::string name = info.param;
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

// The doc's complete adapter is the one in the repository, line for line.
TEST(HelloDocTest, TheDocumentedMinimalAdapterIsTheShippedOne) {
  const auto blocks = FencedBlocks(ReadText(kDoc), "python");
  const std::string shipped = ReadText(kSource + "/adapters/minimal/lock_adapter.py");
  ASSERT_FALSE(shipped.empty());
  EXPECT_NE(std::find(blocks.begin(), blocks.end(), shipped), blocks.end())
      << kDoc << " shows no ```python block equal to adapters/minimal/lock_adapter.py";
}

}  // namespace
}  // namespace locksmith::testing
