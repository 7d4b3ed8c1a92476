#include "checker/lock_models.h"

#include <algorithm>
#include <limits>

namespace locksmith {
namespace {

enum LockCode : uint32_t { kAcquire, kRelease, kAcquireShared, kReleaseShared };

// state.a holds the holder as process + 1 so that 0 means free.
uint64_t Holder(int64_t process) { return static_cast<uint64_t>(process) + 1; }

constexpr int64_t kNoFence = std::numeric_limits<int64_t>::min();
// ModelOp::arg1 of a nested (re-entry) acquire or release.
constexpr int64_t kReentry = 1;

bool IsReentryInput(const nlohmann::json& input) {
  if (!input.is_object()) return false;
  auto it = input.find("reentry");
  return it != input.end() && it->is_boolean() && it->get<bool>();
}

std::optional<int64_t> FenceOf(const nlohmann::json& value) {
  if (value.is_number_integer()) return value.get<int64_t>();
  if (value.is_object()) {
    auto it = value.find("fence");
    if (it != value.end() && it->is_number_integer()) return it->get<int64_t>();
  }
  return std::nullopt;
}

std::string HolderText(uint64_t holder) {
  return "process " + std::to_string(static_cast<int64_t>(holder) - 1);
}

}  // namespace

std::string_view MutexModel::Name() const {
  switch (kind_) {
    case Kind::kPlain: return "mutex";
    case Kind::kOwner: return "owner-mutex";
    case Kind::kFenced: return "fenced-mutex";
  }
  return "mutex";
}

Result<CompiledOp> MutexModel::Compile(const std::string& f, const nlohmann::json& input,
                                       const nlohmann::json* output, int64_t process) {
  CompiledOp c;
  c.op.process = process;
  c.op.known = output != nullptr;
  if ((f == "acquire" || f == "release") && IsReentryInput(input)) {
    // A re-entry nested in the holder's own hold (checker/leased_lock_checker.h):
    // legal only while its process holds the lock, and changes nothing.
    c.op.code = f == "acquire" ? kAcquire : kRelease;
    c.op.arg1 = kReentry;
    c.read_only = true;
    return c;
  }
  if (f == "acquire") {
    c.op.code = kAcquire;
    c.only_own_process_observes = kind_ != Kind::kPlain;
    if (kind_ == Kind::kFenced && output != nullptr) {
      auto fence = FenceOf(*output);
      if (!fence) {
        return Error{"fenced-mutex: an ok acquire has no fence (value.fence or an integer "
                     "value), got " + SafeDump(*output)};
      }
      c.op.arg0 = *fence;
    }
  } else if (f == "release") {
    c.op.code = kRelease;
  } else {
    c.modelled = false;
  }
  return c;
}

ModelState MutexModel::Initial() const {
  ModelState s;
  s.b = static_cast<uint64_t>(kNoFence);
  return s;
}

bool MutexModel::Step(const ModelState& state, const ModelOp& op, ModelState* next) {
  *next = state;
  if (op.arg1 == kReentry) {
    return kind_ == Kind::kPlain ? state.a != 0 : state.a == Holder(op.process);
  }
  if (op.code == kAcquire) {
    if (state.a != 0) return false;
    if (kind_ == Kind::kPlain) {
      next->a = 1;
      return true;
    }
    next->a = Holder(op.process);
    if (kind_ == Kind::kFenced) {
      const auto last = static_cast<int64_t>(state.b);
      if (op.known) {
        if (op.arg0 <= last) return false;
        next->b = static_cast<uint64_t>(op.arg0);
      } else {
        // A pending acquire that took effect got some fence above the last;
        // the smallest one constrains later acquires least.
        next->b = static_cast<uint64_t>(last == kNoFence ? kNoFence + 1 : last + 1);
      }
    }
    return true;
  }
  // release
  if (kind_ == Kind::kPlain ? state.a == 0 : state.a != Holder(op.process)) return false;
  next->a = 0;
  return true;
}

std::vector<ModelState> MutexModel::CandidateStates(const std::vector<ModelOp>& ops) const {
  if (kind_ == Kind::kFenced) return {};  // fences make the states unbounded
  std::vector<ModelState> states = {Initial()};
  if (kind_ == Kind::kPlain) {
    states.push_back(ModelState{1, Initial().b});
    return states;
  }
  std::vector<uint64_t> holders;
  for (const ModelOp& op : ops) {
    if (op.code == kAcquire) holders.push_back(Holder(op.process));
  }
  std::sort(holders.begin(), holders.end());
  holders.erase(std::unique(holders.begin(), holders.end()), holders.end());
  for (uint64_t h : holders) states.push_back(ModelState{h, Initial().b});
  return states;
}

std::string MutexModel::DescribeState(const ModelState& state) const {
  std::string text = state.a == 0 ? "free"
                     : kind_ == Kind::kPlain ? "held"
                                             : "held by " + HolderText(state.a);
  if (kind_ == Kind::kFenced) {
    const auto last = static_cast<int64_t>(state.b);
    text += last == kNoFence ? ", no fence issued yet" : ", last fence " + std::to_string(last);
  }
  return text;
}

Result<CompiledOp> RwLockModel::Compile(const std::string& f, const nlohmann::json& input,
                                        const nlohmann::json* output, int64_t process) {
  CompiledOp c;
  c.op.process = process;
  c.op.known = output != nullptr;
  // locksmith's mutex workload with readers: acquire / release with
  // "mode": "read" in the invoke's value are the shared ones.
  const bool read_mode = input.is_object() && input.contains("mode") &&
                         input["mode"].is_string() && input["mode"] == "read";
  if (read_mode && (f == "acquire" || f == "release")) {
    c.op.code = f == "acquire" ? kAcquireShared : kReleaseShared;
    c.only_own_process_observes = f == "acquire";
  } else if (f == "acquire" || f == "acquire-exclusive" || f == "acquire-write") {
    c.op.code = kAcquire;
    c.only_own_process_observes = true;
  } else if (f == "release" || f == "release-exclusive" || f == "release-write") {
    c.op.code = kRelease;
  } else if (f == "acquire-shared" || f == "acquire-read") {
    c.op.code = kAcquireShared;
    c.only_own_process_observes = true;
  } else if (f == "release-shared" || f == "release-read") {
    c.op.code = kReleaseShared;
  } else {
    c.modelled = false;
  }
  return c;
}

bool RwLockModel::Step(const ModelState& state, const ModelOp& op, ModelState* next) {
  *next = state;
  const std::vector<int64_t>& readers = readers_.Get(state.b);
  switch (op.code) {
    case kAcquire:
      if (state.a != 0 || !readers.empty()) return false;
      next->a = Holder(op.process);
      return true;
    case kRelease:
      if (state.a != Holder(op.process)) return false;
      next->a = 0;
      return true;
    case kAcquireShared: {
      if (state.a != 0) return false;
      auto it = std::lower_bound(readers.begin(), readers.end(), op.process);
      if (it != readers.end() && *it == op.process) return false;
      std::vector<int64_t> more(readers.begin(), it);
      more.push_back(op.process);
      more.insert(more.end(), it, readers.end());
      next->b = readers_.Intern(more);
      return true;
    }
    case kReleaseShared: {
      auto it = std::lower_bound(readers.begin(), readers.end(), op.process);
      if (it == readers.end() || *it != op.process) return false;
      std::vector<int64_t> fewer(readers.begin(), it);
      fewer.insert(fewer.end(), it + 1, readers.end());
      next->b = readers_.Intern(fewer);
      return true;
    }
    default: return false;
  }
}

std::string RwLockModel::DescribeState(const ModelState& state) const {
  if (state.a != 0) return "held exclusively by " + HolderText(state.a);
  const std::vector<int64_t>& readers = readers_.Get(state.b);
  if (readers.empty()) return "free";
  std::string text = "shared by process";
  text += readers.size() > 1 ? "es " : " ";
  for (size_t i = 0; i < readers.size(); ++i) {
    text += (i ? ", " : "") + std::to_string(readers[i]);
  }
  return text;
}

}  // namespace locksmith
