#include "harness/run_config.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <regex>
#include <sstream>

#include "backends/backend_registry.h"
#include "checker/utf8.h"
#include "workloads/workload_registry.h"

namespace locksmith {
namespace {

bool Contains(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// Follows a parse that failed to say where: the key path of the value being
// read ("a.b[2]") and the offending token. Builds nothing.
class FailurePlace : public nlohmann::json_sax<nlohmann::json> {
 public:
  std::string path() const {
    std::string p;
    for (const auto& level : levels_) {
      if (level.in_array) {
        p += "[" + std::to_string(level.index) + "]";
      } else if (!level.key.empty()) {
        p += (p.empty() ? "" : ".") + level.key;
      }
    }
    return p;
  }
  const std::string& token() const { return token_; }
  int id() const { return id_; }

  bool null() override { return Value(); }
  bool boolean(bool) override { return Value(); }
  bool number_integer(number_integer_t) override { return Value(); }
  bool number_unsigned(number_unsigned_t) override { return Value(); }
  bool number_float(number_float_t, const string_t&) override { return Value(); }
  bool string(string_t&) override { return Value(); }
  bool binary(binary_t&) override { return Value(); }
  bool start_object(std::size_t) override {
    Value();
    levels_.push_back({});
    return true;
  }
  bool key(string_t& key) override {
    levels_.back().key = key;
    return true;
  }
  bool end_object() override {
    levels_.pop_back();
    return true;
  }
  bool start_array(std::size_t) override {
    Value();
    levels_.push_back({.in_array = true});
    return true;
  }
  bool end_array() override {
    levels_.pop_back();
    return true;
  }
  bool parse_error(std::size_t, const std::string& last_token,
                   const nlohmann::detail::exception& ex) override {
    token_ = last_token;
    id_ = ex.id;
    // The failing value counts as the array's next element.
    if (!levels_.empty() && levels_.back().in_array) ++levels_.back().index;
    return false;
  }

 private:
  struct Level {
    bool in_array = false;
    int64_t index = -1;  // of the current element, in an array
    std::string key;     // of the current member, in an object
  };
  bool Value() {
    if (!levels_.empty() && levels_.back().in_array) ++levels_.back().index;
    return true;
  }
  std::vector<Level> levels_;
  std::string token_;
  int id_ = 0;
};

// One line saying why `text` is not a config: for a number out of range the
// key and the number, otherwise nlohmann's position and reason.
std::string JsonErrorLine(const std::string& text, const nlohmann::json::exception& e) {
  FailurePlace place;
  nlohmann::json::sax_parse(text, &place, nlohmann::json::input_format_t::json,
                            /*strict=*/true, /*ignore_comments=*/true);
  if (place.id() == 406) {  // nlohmann: "number overflow"
    const std::string where = place.path().empty() ? "" : QuoteInput(place.path()) + ": ";
    std::string number = place.token();
    if (number.size() > 40) number = number.substr(0, 40) + "...";
    return where + "the number " + number + " is out of range (beyond a double's +-1.8e308)";
  }
  std::string reason = e.what();
  if (size_t at = reason.find("parse error at "); at != std::string::npos) {
    reason = reason.substr(at + 15);
  } else if (size_t bracket = reason.find("] "); bracket != std::string::npos) {
    reason = reason.substr(bracket + 2);
  }
  constexpr size_t kMaxReason = 200;
  if (reason.size() > kMaxReason) reason = reason.substr(0, kMaxReason) + "...";
  return "not valid JSON: " + reason;
}

// Typed readers: each names the key it failed on.
template <typename T>
Status Read(const nlohmann::json& j, const char* key, T& out) {
  auto it = j.find(key);
  if (it == j.end()) return OkStatus();
  const auto& v = *it;
  if constexpr (std::is_same_v<T, std::string>) {
    if (!v.is_string()) return Error{std::string("\"") + key + "\" must be a string"};
    out = v.get<std::string>();
  } else if constexpr (std::is_same_v<T, bool>) {
    if (!v.is_boolean()) return Error{std::string("\"") + key + "\" must be true or false"};
    out = v.get<bool>();
  } else if constexpr (std::is_same_v<T, double>) {
    if (!v.is_number()) return Error{std::string("\"") + key + "\" must be a number"};
    out = v.get<double>();
  } else if constexpr (std::is_same_v<T, uint64_t>) {
    if (!v.is_number_unsigned()) {
      return Error{std::string("\"") + key + "\" must be a non-negative integer"};
    }
    out = v.get<uint64_t>();
  } else {
    if (!v.is_number_integer()) return Error{std::string("\"") + key + "\" must be an integer"};
    const int64_t wide = v.get<int64_t>();
    if (wide < std::numeric_limits<T>::min() || wide > std::numeric_limits<T>::max()) {
      return Error{std::string("\"") + key + "\" is out of range"};
    }
    out = static_cast<T>(wide);
  }
  return OkStatus();
}

Status ReadRange(const nlohmann::json& j, const char* key, MsRange& out) {
  auto it = j.find(key);
  if (it == j.end()) return OkStatus();
  if (it->is_number_integer()) {
    out = {it->get<int64_t>(), it->get<int64_t>()};
    return OkStatus();
  }
  if (!it->is_string()) {
    return Error{std::string("\"") + key + "\" must be milliseconds like \"100-300\" or 200"};
  }
  auto range = ParseMsRange(it->get<std::string>());
  if (!range) return Error{std::string("\"") + key + "\": " + range.error()};
  out = *range;
  return OkStatus();
}

Status ReadNames(const nlohmann::json& j, const char* key, std::vector<std::string>& out) {
  auto it = j.find(key);
  if (it == j.end()) return OkStatus();
  std::vector<std::string> names;
  if (it->is_string()) {
    std::stringstream ss(it->get<std::string>());
    for (std::string part; std::getline(ss, part, ',');) {
      if (!part.empty()) names.push_back(part);
    }
  } else if (it->is_array()) {
    for (const auto& e : *it) {
      if (!e.is_string()) return Error{std::string("\"") + key + "\" must list names as strings"};
      names.push_back(e.get<std::string>());
    }
  } else {
    return Error{std::string("\"") + key + "\" must be a list of names or \"a,b\""};
  }
  out = std::move(names);
  return OkStatus();
}

Status ReadSeed(const nlohmann::json& j, std::optional<uint64_t>& seed) {
  auto it = j.find("seed");
  if (it == j.end() || it->is_null()) return OkStatus();
  uint64_t value = 0;
  if (Status s = Read(j, "seed", value); !s) return s;
  seed = value;
  return OkStatus();
}

const char* const kKeys[] = {
    "test_name", "store", "backend", "workload", "concurrency", "keys", "hold", "backoff",
    "lease_ms", "rate", "time_limit_s", "seed", "nemesis", "nemesis_interval_s",
    "restart_delay_ms", "redis_persistence", "client_timeout_ms", "loopback", "scenario",
    "prediction", "description"};

}  // namespace

std::vector<std::string> NemesisNames() { return {"kill"}; }
std::vector<std::string> PersistenceModes() { return {"none", "everysec", "always"}; }

std::string RunConfig::ResolvedTestName() const {
  if (!test_name.empty()) return test_name;
  std::string name = backend + "-" + workload;
  for (const auto& n : nemesis) name += "-" + n;
  return name;
}

nlohmann::json RunConfig::ToJson() const {
  const WorkloadOptions& w = workload_options;
  return {{"test_name", ResolvedTestName()},
          {"store", store},
          {"backend", backend},
          {"workload", workload},
          {"concurrency", w.concurrency},
          {"keys", w.keys},
          {"hold", FormatMsRange(w.hold)},
          {"backoff", FormatMsRange(w.backoff)},
          {"lease_ms", w.lease_ms},
          {"rate", w.rate},
          {"time_limit_s", time_limit_s},
          {"seed", seed ? nlohmann::json(*seed) : nlohmann::json(nullptr)},
          {"nemesis", nemesis},
          {"nemesis_interval_s", nemesis_interval_s},
          {"restart_delay_ms", restart_delay_ms},
          {"redis_persistence", redis_persistence},
          {"client_timeout_ms", client_timeout_ms},
          {"loopback", loopback},
          {"scenario", scenario},
          {"prediction", prediction},
          {"description", description}};
}

Status MergeRunConfigJson(const nlohmann::json& j, RunConfig& c) {
  if (!j.is_object()) return Error{"a config must be a JSON object"};
  for (const auto& [key, value] : j.items()) {
    if (std::find_if(std::begin(kKeys), std::end(kKeys),
                     [&](const char* k) { return key == k; }) == std::end(kKeys)) {
      return Error{"unknown config key " + QuoteInput(key)};
    }
  }
  WorkloadOptions& w = c.workload_options;
  for (Status s : {Read(j, "test_name", c.test_name), Read(j, "store", c.store),
                   Read(j, "backend", c.backend), Read(j, "workload", c.workload),
                   Read(j, "concurrency", w.concurrency), Read(j, "keys", w.keys),
                   ReadRange(j, "hold", w.hold), ReadRange(j, "backoff", w.backoff),
                   Read(j, "lease_ms", w.lease_ms), Read(j, "rate", w.rate),
                   Read(j, "time_limit_s", c.time_limit_s), ReadSeed(j, c.seed),
                   ReadNames(j, "nemesis", c.nemesis),
                   Read(j, "nemesis_interval_s", c.nemesis_interval_s),
                   Read(j, "restart_delay_ms", c.restart_delay_ms),
                   Read(j, "redis_persistence", c.redis_persistence),
                   Read(j, "client_timeout_ms", c.client_timeout_ms),
                   Read(j, "loopback", c.loopback), Read(j, "scenario", c.scenario),
                   Read(j, "prediction", c.prediction), Read(j, "description", c.description)}) {
    if (!s) return s;
  }
  return OkStatus();
}

Status LoadRunConfigFile(const std::string& path, RunConfig& config) {
  // O_NONBLOCK: opening a FIFO must not wait for a writer; the file type is
  // checked on the descriptor, so a swap after a stat cannot slip through.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) return Error{"cannot read config file " + path + ": " + std::strerror(errno)};
  std::string text;
  std::string problem;
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    problem = "cannot read config file " + path + ": " + std::strerror(errno);
  } else if (!S_ISREG(st.st_mode)) {
    problem = "config file " + path + " is not a regular file (a FIFO, device or directory " +
              "cannot be a config; save it to a file)";
  } else if (static_cast<uint64_t>(st.st_size) > kMaxConfigFileBytes) {
    problem = "config file " + path + " is " + std::to_string(st.st_size) +
              " bytes; at most " + std::to_string(kMaxConfigFileBytes) + " (1 MiB) are allowed";
  } else {
    // Read one byte past the limit: the file may have grown since fstat.
    text.resize(kMaxConfigFileBytes + 1);
    size_t got = 0;
    while (got < text.size()) {
      const ssize_t n = ::read(fd, text.data() + got, text.size() - got);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        problem = "cannot read config file " + path + ": " + std::strerror(errno);
        break;
      }
      if (n == 0) break;
      got += static_cast<size_t>(n);
    }
    text.resize(got);
    if (problem.empty() && got > kMaxConfigFileBytes) {
      problem = "config file " + path + " is larger than " + std::to_string(kMaxConfigFileBytes) +
                " bytes (1 MiB), the most allowed";
    }
  }
  ::close(fd);
  if (!problem.empty()) return Error{problem};

  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/true, /*ignore_comments=*/true);
  } catch (const nlohmann::json::exception& e) {
    return Error{path + ": " + JsonErrorLine(text, e)};
  }
  Status s = MergeRunConfigJson(j, config);
  if (!s) return Error{path + ": " + s.error()};
  return OkStatus();
}

Status ValidateRunConfig(const RunConfig& c) {
  const WorkloadOptions& w = c.workload_options;
  // A letter or digit first: "." and ".." would leave the store directory.
  static const std::regex kName("[A-Za-z0-9][A-Za-z0-9._-]{0,99}");
  if (!c.test_name.empty() && !std::regex_match(c.test_name, kName)) {
    return Error{"--test-name must be 1-100 letters, digits, '.', '_' or '-', starting with a letter or digit"};
  }
  if (c.store.empty()) return Error{"--store must not be empty"};
  if (c.store.size() > kMaxStoreBytes) {
    return Error{"--store must be at most " + std::to_string(kMaxStoreBytes) + " bytes, not " +
                 std::to_string(c.store.size())};
  }
  if (SanitizeUtf8(c.store) != c.store) return Error{"--store must be a UTF-8 path"};
  if (!Contains(BackendNames(), c.backend)) {
    return Error{"unknown backend " + QuoteInput(c.backend) + " (known: " + JoinNames(BackendNames()) +
                 ")"};
  }
  if (!Contains(WorkloadNames(), c.workload)) {
    return Error{"unknown workload " + QuoteInput(c.workload) + " (known: " +
                 JoinNames(WorkloadNames()) + ")"};
  }
  if (w.concurrency < 1 || w.concurrency > 5000) return Error{"--concurrency must be 1 to 5000"};
  if (w.keys < 1 || w.keys > 1'000'000) return Error{"--keys must be 1 to 1000000"};
  for (auto [name, r] : {std::pair{"--hold", w.hold}, std::pair{"--backoff", w.backoff}}) {
    if (r.min < 0 || r.max < r.min || r.max > 3'600'000) {
      return Error{std::string(name) + " must be MIN-MAX milliseconds with 0 <= MIN <= MAX <= 3600000"};
    }
  }
  if (w.lease_ms < 1 || w.lease_ms > 86'400'000) return Error{"--lease must be 1 to 86400000 ms"};
  if (!(w.rate >= 0) || w.rate > 1e7) return Error{"--rate must be 0 (unlimited) to 10000000 per second"};
  if (!(c.time_limit_s > 0) || c.time_limit_s > 86400) {
    return Error{"--time-limit must be more than 0 and at most 86400 seconds"};
  }
  for (size_t i = 0; i < c.nemesis.size(); ++i) {
    const std::string& n = c.nemesis[i];
    if (!Contains(NemesisNames(), n)) {
      return Error{"unknown nemesis " + QuoteInput(n) + " (known: " + JoinNames(NemesisNames()) + ")"};
    }
    if (std::find(c.nemesis.begin(), c.nemesis.begin() + i, n) != c.nemesis.begin() + i) {
      return Error{"nemesis " + QuoteInput(n) + " is listed twice"};
    }
  }
  if (c.prediction != "" && c.prediction != "Y" && c.prediction != "N") {
    return Error{"\"prediction\" must be \"Y\" (two holders at once possible) or \"N\", not " +
                 QuoteInput(c.prediction)};
  }
  if (c.scenario.size() > kMaxScenarioBytes) {
    return Error{"\"scenario\" must be at most " + std::to_string(kMaxScenarioBytes) +
                 " bytes (a debate row id), not " + std::to_string(c.scenario.size())};
  }
  if (std::any_of(c.scenario.begin(), c.scenario.end(),
                  [](unsigned char ch) { return ch < 0x20 || ch == 0x7f; })) {
    return Error{"\"scenario\" must not contain control characters: " + QuoteInput(c.scenario)};
  }
  if (c.description.size() > kMaxDescriptionBytes) {
    return Error{"\"description\" must be at most " + std::to_string(kMaxDescriptionBytes) +
                 " bytes, not " + std::to_string(c.description.size())};
  }
  if (!(c.nemesis_interval_s >= 0.1) || c.nemesis_interval_s > 86400) {
    return Error{"--nemesis-interval must be 0.1 to 86400 seconds"};
  }
  if (c.restart_delay_ms < 0 || c.restart_delay_ms > 3'600'000) {
    return Error{"--restart-delay must be 0 to 3600000 ms"};
  }
  if (!Contains(PersistenceModes(), c.redis_persistence)) {
    return Error{"--redis-persistence must be one of " + JoinNames(PersistenceModes()) + ", not " +
                 QuoteInput(c.redis_persistence)};
  }
  if (c.client_timeout_ms < 1 || c.client_timeout_ms > 600'000) {
    return Error{"--client-timeout must be 1 to 600000 ms"};
  }
  return OkStatus();
}

}  // namespace locksmith
