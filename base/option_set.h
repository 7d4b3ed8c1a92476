// OptionSet: the typed options of one module (a backend, a workload, a
// nemesis family, a checker, or the run itself), declared once, next to the
// module: config key, command-line flag, help, type, bounds and default (the
// field's value when declared). From that one declaration come the CLI flags,
// the config-file keys, validation with one-line errors naming the flag, and
// the config.json that replays a run. Adding an option is one line in its
// module; nothing in harness/ changes.
//
// Lives in base/ because every module declares options, and checkers built
// from a stored run's config (stock, fencing) read them too. Depends on
// nlohmann-json only.
//
// An OptionSet holds pointers into the struct it describes, so it is neither
// copyable nor movable; ModuleOptions below owns a struct and its set
// together. Not thread-safe (plain configuration built on the main thread).
#pragma once

#include <concepts>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <typeinfo>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/result.h"

namespace locksmith {

// An inclusive range of milliseconds ("100-300", or "200" for 200-200).
struct MsRange {
  int64_t min = 0;
  int64_t max = 0;
  bool operator==(const MsRange&) const = default;
};

Result<MsRange> ParseMsRange(const std::string& text);

// User text echoed in a one-line error: quoted, escaped (a newline stays
// "\n") and cut short, so a 60 MB value is not printed back.
std::string QuoteInput(std::string_view text);
std::string FormatMsRange(MsRange range);

enum class OptionKind { kInteger, kNumber, kText, kChoice, kFlag, kMsRange, kNames, kJson };

// What a user sees of one option: --help text, config key, accepted values.
struct OptionSpec {
  std::string key;   // config-file key, e.g. "lease_ms"
  std::string flag;  // command-line flag, e.g. "--lease"; empty: a config-file key only
  std::string help;  // one line; the default is appended by Help()
  OptionKind kind = OptionKind::kText;
  std::vector<std::string> choices;  // kChoice, and kNames when non-empty
};

// An option declared with flag "" is a config-file key only (a scenario's
// "description"): errors name it as "description".
class OptionSet {
 public:
  OptionSet() = default;
  OptionSet(const OptionSet&) = delete;
  OptionSet& operator=(const OptionSet&) = delete;

  // Whole numbers in [min, max].
  template <std::integral T>
  OptionSet& Integer(const char* key, const char* flag, T* field, T min, T max,
                     const char* help) {
    static_assert(sizeof(T) <= sizeof(int64_t));
    // uint64_t's max does not fit the int64_t the readers use.
    constexpr int64_t kTypeMax = std::is_unsigned_v<T> && sizeof(T) == sizeof(int64_t)
                                     ? std::numeric_limits<int64_t>::max()
                                     : static_cast<int64_t>(std::numeric_limits<T>::max());
    return AddInteger(key, flag, help, static_cast<int64_t>(min), static_cast<int64_t>(max),
                      static_cast<int64_t>(std::numeric_limits<T>::min()),
                      kTypeMax,
                      [field] { return static_cast<int64_t>(*field); },
                      [field](int64_t v) { *field = static_cast<T>(v); });
  }
  // Real numbers in [min, max]; with min_exclusive, in (min, max].
  OptionSet& Number(const char* key, const char* flag, double* field, double min, double max,
                    const char* help, bool min_exclusive = false);
  // A string of at most max_bytes bytes of UTF-8.
  OptionSet& Text(const char* key, const char* flag, std::string* field, size_t max_bytes,
                  const char* help);
  // One of `choices`.
  OptionSet& Choice(const char* key, const char* flag, std::string* field,
                    std::vector<std::string> choices, const char* help);
  // A switch: the flag takes no value; the config key takes true or false.
  OptionSet& Flag(const char* key, const char* flag, bool* field, const char* help);
  // Milliseconds MIN-MAX with min_ms <= MIN <= MAX <= max_ms.
  OptionSet& Range(const char* key, const char* flag, MsRange* field, int64_t min_ms,
                   int64_t max_ms, const char* help);
  // Comma-separated names ("a,b" or ["a","b"]), each listed once; when
  // `choices` is non-empty every name must be one of them.
  OptionSet& Names(const char* key, const char* flag, std::vector<std::string>* field,
                   std::vector<std::string> choices, const char* help);
  // Structured data that only a config file can give (e.g. a scenario's
  // "steps"): any JSON value, kept as is; `check` (run by Validate) says
  // what is wrong with it. No command-line flag.
  OptionSet& Json(const char* key, nlohmann::json* field,
                  std::function<Status(const nlohmann::json&)> check, const char* help);
  // A check across fields, run by Validate after every per-option check.
  OptionSet& Require(std::function<Status()> check);

  const std::vector<OptionSpec>& Specs() const { return specs_; }
  const OptionSpec* Find(std::string_view key) const;

  // Reads the keys of `object` this set knows (wrong types are errors
  // naming the key); others are left for the caller. Values are checked
  // against their bounds by Validate, not here, so a file may set one bound
  // and a flag the other.
  Status Merge(const nlohmann::json& object);
  // Every option with its current value (Json ones only when not null).
  nlohmann::json ToJson() const;
  // Bounds and choices of every option, then the Require checks. The error
  // names the flag: "--lease must be 1 to 86400000".
  Status Validate() const;
  // Help line for `spec`, with the current value as the default.
  std::string Help(const OptionSpec& spec) const;
  // The current value of `spec` as help shows it ("" for a switch or an
  // empty value).
  std::string DefaultText(const OptionSpec& spec) const;

 private:
  struct Binding {
    std::function<Status(const nlohmann::json&)> read;  // type check and store
    std::function<nlohmann::json()> write;
    std::function<Status()> validate;
  };
  OptionSet& AddInteger(const char* key, const char* flag, const char* help, int64_t min,
                        int64_t max, int64_t type_min, int64_t type_max,
                        std::function<int64_t()> get,
                        std::function<void(int64_t)> set);
  OptionSet& Add(OptionSpec spec, Binding binding);
  // Type check and store for the string kinds (Text, Choice).
  static Binding StringBinding(const std::string& key, std::string* field);
  // What errors call an option: its flag, or "key" when it has none.
  static std::string Named(const char* key, const char* flag);

  std::vector<OptionSpec> specs_;
  std::vector<Binding> bindings_;
  std::vector<std::function<Status()>> checks_;
};

// What `spec` means, for people: its help with the values it accepts
// ("(none, everysec, always)"), without the default (OptionSet::Help adds
// that). The flag tables of `run --help` and docs/running.md share it.
std::string OptionMeaning(const OptionSpec& spec);

// A flag's text as the JSON value its config key takes ("200" -> 200 for an
// integer, "a,b" stays a string for names): flags and files then share one
// reader. One line naming the flag on error.
Result<nlohmann::json> FlagValue(const OptionSpec& spec, const std::string& text);

// Owns a module's options struct together with the OptionSet bound to it.
// The struct declares itself with `void Declare(OptionSet&)`.
class ModuleOptions {
 public:
  virtual ~ModuleOptions() = default;
  OptionSet& set() { return set_; }
  const OptionSet& set() const { return set_; }
  // A copy with the same values (through ToJson, so bindings stay right).
  virtual std::unique_ptr<ModuleOptions> Clone() const = 0;

 protected:
  OptionSet set_;
};

template <typename T>
class OptionsOf : public ModuleOptions {
 public:
  OptionsOf() { value_.Declare(set_); }
  explicit OptionsOf(const T& value) : value_(value) { value_.Declare(set_); }
  T& value() { return value_; }
  const T& value() const { return value_; }
  std::unique_ptr<ModuleOptions> Clone() const override {
    return std::make_unique<OptionsOf<T>>(value_);
  }

 private:
  T value_;
};

// The options of one named module ("redis", "kill") held by value: a copy
// clones them, so a config holding them stays a plain copyable value.
class OwnedOptions {
 public:
  OwnedOptions() = default;
  OwnedOptions(std::string module, std::unique_ptr<ModuleOptions> options)
      : module_(std::move(module)), options_(std::move(options)) {}
  OwnedOptions(const OwnedOptions& other) { *this = other; }
  OwnedOptions& operator=(const OwnedOptions& other) {
    if (this != &other) {
      module_ = other.module_;
      options_ = other.options_ ? other.options_->Clone() : nullptr;
    }
    return *this;
  }
  OwnedOptions(OwnedOptions&&) = default;
  OwnedOptions& operator=(OwnedOptions&&) = default;

  explicit operator bool() const { return options_ != nullptr; }
  const std::string& module() const { return module_; }
  ModuleOptions& operator*() { return *options_; }
  const ModuleOptions& operator*() const { return *options_; }
  ModuleOptions* operator->() { return options_.get(); }
  const ModuleOptions* operator->() const { return options_.get(); }

 private:
  std::string module_;
  std::unique_ptr<ModuleOptions> options_;
};

// How a registry makes a module's options at their defaults: MakeOptions<T>.
using OptionsFactory = std::unique_ptr<ModuleOptions> (*)();
template <typename T>
std::unique_ptr<ModuleOptions> MakeOptions() {
  return std::make_unique<OptionsOf<T>>();
}

// The options of a module that has none of its own.
struct NoOptions {
  void Declare(OptionSet&) {}
};

// The struct inside `options`, which must have been made as OptionsOf<T>
// (a registry's factories pair them; a mismatch is a programming error).
template <typename T>
const T& OptionsAs(const ModuleOptions& options) {
  return dynamic_cast<const OptionsOf<T>&>(options).value();
}

}  // namespace locksmith
