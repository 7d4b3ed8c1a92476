#include "harness/secret_redaction.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <optional>

#include "base/atomic_file.h"

namespace locksmith {
namespace fs = std::filesystem;
namespace {

// Reads `fd` to its end from where it is; false on a read error.
bool ReadRest(int fd, std::string& out) {
  char buf[1 << 16];
  while (true) {
    const ssize_t n = ::read(fd, buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return false;
    if (n == 0) return true;
    out.append(buf, static_cast<size_t>(n));
  }
}

// Whether the file holds any of `secrets`, read in chunks (a server's data
// file may be large and usually holds none); false on a read error too.
bool HoldsSecret(int fd, const std::vector<std::string>& secrets, size_t longest) {
  std::string window;
  char buf[1 << 16];
  while (true) {
    const ssize_t n = ::read(fd, buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    window.append(buf, static_cast<size_t>(n));
    for (const auto& secret : secrets) {
      if (!secret.empty() && window.find(secret) != std::string::npos) return true;
    }
    // Keep what a secret split across two chunks may start with.
    if (window.size() > longest) window.erase(0, window.size() - longest);
  }
}

// The file's content when it holds a secret (nullopt otherwise) and
// whether others may read it; never through a link.
struct FileText {
  std::string content;
  bool private_file = true;
};

Result<std::optional<FileText>> ReadIfItHoldsASecret(const std::string& path,
                                                     const std::vector<std::string>& secrets,
                                                     size_t longest) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return Error{"cannot read " + path + ": " + std::strerror(errno)};
  std::optional<FileText> file;
  bool read_ok = true;
  if (HoldsSecret(fd, secrets, longest)) {
    file.emplace();
    struct stat st {};
    if (::fstat(fd, &st) == 0) file->private_file = (st.st_mode & 077) == 0;
    read_ok = ::lseek(fd, 0, SEEK_SET) == 0 && ReadRest(fd, file->content);
  }
  const std::string error = std::strerror(errno);
  ::close(fd);
  if (!read_ok) return Error{"cannot read " + path + ": " + error};
  return file;
}

// Whether any string in `value` holds a run secret.
bool JsonHoldsSecret(const nlohmann::json& value) {
  if (value.is_string()) return HoldsRunSecret(value.get_ref<const std::string&>());
  if (value.is_object()) {
    for (const auto& [name, member] : value.items()) {
      if (HoldsRunSecret(name) || JsonHoldsSecret(member)) return true;
    }
  }
  if (value.is_array()) {
    for (const auto& member : value) {
      if (JsonHoldsSecret(member)) return true;
    }
  }
  return false;
}

nlohmann::json RedactJson(const nlohmann::json& value) {
  if (value.is_string()) return RedactRunSecrets(value.get<std::string>());
  if (value.is_array()) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& member : value) out.push_back(RedactJson(member));
    return out;
  }
  if (!value.is_object()) return value;
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [name, member] : value.items()) out[RedactRunSecrets(name)] = RedactJson(member);
  return out;
}

// Overwrites each secret in `original`'s copy on disk with as many '*':
// no new block is needed, so this works where a rewrite cannot (a full
// disk).
Status MaskInPlace(const std::string& path, const std::string& original,
                   const std::vector<std::string>& secrets) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return Error{"cannot mask the secrets in " + path + ": " + std::strerror(errno)};
  bool ok = true;
  for (const auto& secret : secrets) {
    if (secret.empty()) continue;
    const std::string mask(secret.size(), '*');
    for (size_t at = original.find(secret); ok && at != std::string::npos;
         at = original.find(secret, at + secret.size())) {
      ok = ::pwrite(fd, mask.data(), mask.size(), static_cast<off_t>(at)) ==
           static_cast<ssize_t>(mask.size());
    }
  }
  const std::string error = std::strerror(errno);
  if (::close(fd) != 0) ok = false;
  if (!ok) return Error{"cannot mask the secrets in " + path + ": " + error};
  return OkStatus();
}

}  // namespace

std::optional<Op> RedactedOp(const Op& op) {
  if (!HoldsRunSecret(op.f) && !HoldsRunSecret(op.key) && !HoldsRunSecret(op.error) &&
      !JsonHoldsSecret(op.value) && !JsonHoldsSecret(op.fault)) {
    return std::nullopt;
  }
  Op redacted = op;
  redacted.f = RedactRunSecrets(op.f);
  redacted.key = RedactRunSecrets(op.key);
  redacted.error = RedactRunSecrets(op.error);
  redacted.value = RedactJson(op.value);
  redacted.fault = RedactJson(op.fault);
  return redacted;
}

Status RedactSecrets(const std::string& dir, const std::vector<std::string>& secrets,
                     const std::set<std::string>& skip) {
  size_t longest = 0;
  for (const auto& secret : secrets) longest = std::max(longest, secret.size());
  std::error_code ec;
  if (longest == 0 || !fs::exists(dir, ec)) return OkStatus();
  std::string errors;
  // The iterator does not follow directory links; symlink_status keeps file
  // links out.
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::end(it);
       it.increment(ec)) {
    if (skip.contains(it->path().lexically_relative(dir).string())) {
      it.disable_recursion_pending();
      continue;
    }
    if (!fs::is_regular_file(it->symlink_status())) continue;
    const std::string path = it->path().string();
    auto file = ReadIfItHoldsASecret(path, secrets, longest);
    if (!file) {
      errors += (errors.empty() ? "" : "; ") + file.error();
      continue;
    }
    if (!file->has_value()) continue;
    const std::string original = (*file)->content;
    if (!RedactSecretsIn((*file)->content, secrets)) continue;
    if (Status s = WriteFileAtomically(path, (*file)->content, (*file)->private_file); !s) {
      // A full disk takes no new file: mask the secrets where they are.
      if (Status m = MaskInPlace(path, original, secrets); !m) {
        errors += (errors.empty() ? "" : "; ") + s.error() + "; " + m.error();
      }
    }
  }
  if (ec) errors += (errors.empty() ? "" : "; ") + ("cannot list " + dir + ": " + ec.message());
  if (!errors.empty()) return Error{"secrets may remain: " + errors};
  return OkStatus();
}

}  // namespace locksmith
