#include "checker/model.h"

#include "checker/data_models.h"
#include "checker/lock_models.h"
#include "checker/multi_register_model.h"

namespace locksmith {

const std::vector<std::string>& ModelNames() {
  static const std::vector<std::string> kNames = {
      "mutex",        "owner-mutex", "fenced-mutex", "rw-lock", "register",
      "cas-register", "kv",          "set",          "counter", "multi-register"};
  return kNames;
}

Result<std::unique_ptr<Model>> MakeModel(const std::string& name,
                                         const std::optional<nlohmann::json>& initial,
                                         ValueTable* values) {
  const bool takes_initial =
      name == "register" || name == "cas-register" || name == "kv" || name == "counter" ||
      name == "multi-register";
  bool known = false;
  for (const auto& n : ModelNames()) known = known || n == name;
  if (!known) {
    return Error{"unknown model \"" + name + "\" (expected one of: " + JoinNames(ModelNames()) + ")"};
  }
  if (initial.has_value() && !takes_initial) {
    return Error{"model " + name +
                 " has no initial value (only register, cas-register, kv, counter and "
                 "multi-register take --initial)"};
  }
  std::unique_ptr<Model> model;
  if (name == "mutex") {
    model = std::make_unique<MutexModel>(MutexModel::Kind::kPlain);
  } else if (name == "owner-mutex") {
    model = std::make_unique<MutexModel>(MutexModel::Kind::kOwner);
  } else if (name == "fenced-mutex") {
    model = std::make_unique<MutexModel>(MutexModel::Kind::kFenced);
  } else if (name == "rw-lock") {
    model = std::make_unique<RwLockModel>();
  } else if (name == "set") {
    model = std::make_unique<SetModel>(values);
  } else if (name == "counter") {
    int64_t start = 0;
    if (initial.has_value()) {
      if (!initial->is_number_integer()) {
        return Error{"the counter's initial value must be an integer, got " +
                     SafeDump(*initial)};
      }
      start = initial->get<int64_t>();
    }
    model = std::make_unique<CounterModel>(start);
  } else if (name == "multi-register") {
    auto made = MultiRegisterModel::Make(initial.value_or(nlohmann::json(nullptr)), values);
    if (!made) return Error{made.error()};
    model = std::move(made).value();
  } else if (name == "kv") {
    // Porcupine's kv: a key never written holds the empty string.
    if (initial.has_value() && !initial->is_string()) {
      return Error{"the kv initial value (every key's value before any write) must be a "
                   "string, got " + SafeDump(*initial)};
    }
    const int64_t start = values->Intern(initial.value_or(nlohmann::json("")));
    model = std::make_unique<RegisterModel>(RegisterModel::Kind::kKv, start, values);
  } else {
    const auto kind = name == "register" ? RegisterModel::Kind::kRegister
                                         : RegisterModel::Kind::kCasRegister;
    const int64_t start = values->Intern(initial.value_or(nlohmann::json(nullptr)));
    model = std::make_unique<RegisterModel>(kind, start, values);
  }
  return model;
}

}  // namespace locksmith
