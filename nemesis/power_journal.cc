#include "nemesis/power_journal.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <vector>

#include "nemesis/power_journal_format.h"
#include "nemesis/preload_library.h"

namespace locksmith {
namespace fs = std::filesystem;
namespace pj = power_journal;
namespace {

constexpr char kPowerShimFileName[] = "liblocksmith_power_shim.so";

struct Record {
  pj::Kind kind;
  uint32_t pid = 0;
  std::string path;
  uint64_t a = 0, b = 0;
  std::string payload;
  int file = -1;        // which file (renames followed), for syncs of a file
  bool dropped = false;  // made durable by a sync
};

// The journal's records; a record cut short at the end (the writer died
// mid-append) is left out.
Result<std::vector<Record>> ReadRecords(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return std::vector<Record>{};
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<Record> records;
  size_t at = 0;
  while (bytes.size() - at >= sizeof(pj::RecordHeader)) {
    pj::RecordHeader h;
    std::memcpy(&h, bytes.data() + at, sizeof(h));
    if (h.magic != pj::kMagic) return Error{file + ": no record at byte " + std::to_string(at)};
    const size_t body = sizeof(h) + h.path_len + h.payload_len;
    if (bytes.size() - at < body) break;
    const char* p = bytes.data() + at + sizeof(h);
    records.push_back({static_cast<pj::Kind>(h.kind), h.pid, std::string(p, h.path_len), h.a, h.b,
                       std::string(p + h.path_len, h.payload_len)});
    at += body;
  }
  return records;
}

std::string SavedCopy(const std::string& journal_dir, const Record& rename) {
  return journal_dir + "/" + pj::kSavedPrefix + std::to_string(rename.pid) + "-" +
         std::to_string(rename.b);
}

// Marks what each successful sync made durable: a file's changes recorded
// before the sync of that file began, and every creation and rename
// recorded before any sync began (ext4 commits its journal in order, so an
// fsync of one file commits every earlier change to a directory; a
// directory's own fsync does too).
void DropSynced(std::vector<Record>& records) {
  std::map<std::string, int> file_at;  // path -> file, following renames
  int files = 0;
  auto file_of = [&](const std::string& path) {
    auto [it, fresh] = file_at.try_emplace(path, files);
    if (fresh) ++files;
    return it->second;
  };
  std::map<uint64_t, size_t> begun;  // sync id (pid, id) -> its begin record
  for (size_t i = 0; i < records.size(); ++i) {
    Record& r = records[i];
    const uint64_t key = (static_cast<uint64_t>(r.pid) << 40) ^ r.a;
    switch (r.kind) {
      case pj::Kind::kCreate:
        r.file = file_at[r.path] = files++;
        break;
      case pj::Kind::kRename:
        r.file = file_of(r.path);
        file_at.erase(r.path);
        file_at[r.payload] = r.file;
        break;
      case pj::Kind::kSyncBegin:
        if (r.b == 0) r.file = file_of(r.path);
        begun[key] = i;
        break;
      case pj::Kind::kSyncDone: {
        auto it = begun.find(key);
        if (it == begun.end()) break;
        const Record& sync = records[it->second];
        for (size_t j = 0; j < it->second; ++j) {
          Record& old = records[j];
          const bool names = old.kind == pj::Kind::kCreate || old.kind == pj::Kind::kRename;
          old.dropped |= names || (sync.b == 0 && old.file == sync.file);
        }
        break;
      }
      default:
        r.file = file_of(r.path);
    }
  }
}

Status PutBack(const Record& r, const std::string& journal_dir, PowerLossUndo& undo) {
  std::error_code ec;
  switch (r.kind) {
    case pj::Kind::kUndo: {
      const int fd = ::open(r.path.c_str(), O_WRONLY | O_CLOEXEC);
      if (fd < 0) return OkStatus();  // removed since: a later record recreates or drops it
      const ssize_t n = ::pwrite(fd, r.payload.data(), r.payload.size(), static_cast<off_t>(r.a));
      ::close(fd);
      if (n != static_cast<ssize_t>(r.payload.size())) return Error{"cannot restore " + r.path};
      ++undo.writes_undone;
      undo.bytes_restored += r.payload.size();
      return OkStatus();
    }
    case pj::Kind::kBase:
      if (!fs::exists(r.path, ec)) return OkStatus();
      fs::resize_file(r.path, r.a, ec);
      if (ec) return Error{"cannot truncate " + r.path + ": " + ec.message()};
      ++undo.files_truncated;
      return OkStatus();
    case pj::Kind::kCreate:
      if (fs::remove(r.path, ec)) ++undo.files_removed;
      return OkStatus();
    case pj::Kind::kRename:
      fs::rename(r.payload, r.path, ec);
      if (ec) return Error{"cannot undo the rename to " + r.payload + ": " + ec.message()};
      if (r.a == 1) fs::rename(SavedCopy(journal_dir, r), r.payload, ec);
      if (ec) return Error{"cannot put back " + r.payload + ": " + ec.message()};
      ++undo.renames_undone;
      return OkStatus();
    default:
      return OkStatus();
  }
}

}  // namespace

nlohmann::json PowerLossUndo::ToJson() const {
  return {{"records", records},           {"writes_undone", writes_undone},
          {"bytes_restored", bytes_restored}, {"files_truncated", files_truncated},
          {"files_removed", files_removed}, {"renames_undone", renames_undone}};
}

Status PowerJournal::Install(Host& host, const std::string& shim_library) {
  if (Status s = host.MakeDirectory(kDirectory); !s) return s;
  if (Status s = AddPreloadLibrary(host, shim_library); !s) return s;
  if (Status s = host.SetSpawnEnv(std::string(pj::kScopeEnv) + "=" + host.Directory()); !s) {
    return s;
  }
  return host.SetSpawnEnv(std::string(pj::kJournalDirEnv) + "=" + host.PathOf(kDirectory));
}

bool PowerJournal::Installed(const Host& host) {
  const std::string entry = std::string(pj::kJournalDirEnv) + "=" + host.PathOf(kDirectory);
  for (const auto& e : host.SpawnEnv()) {
    if (e == entry) return true;
  }
  return false;
}

Result<PowerLossUndo> PowerJournal::Replay(const std::string& journal_dir) {
  auto records = ReadRecords(journal_dir + "/" + pj::kJournalFile);
  if (!records) return Error{records.error()};
  DropSynced(*records);
  PowerLossUndo undo;
  undo.records = static_cast<int>(records->size());
  for (auto it = records->rbegin(); it != records->rend(); ++it) {
    if (it->dropped) continue;
    if (Status s = PutBack(*it, journal_dir, undo); !s) return Error{s.error()};
  }
  // Empty the journal: its records and the copies durable renames replaced.
  std::error_code ec;
  std::vector<fs::path> leftovers;
  for (const auto& entry : fs::directory_iterator(journal_dir, ec)) leftovers.push_back(entry.path());
  for (const auto& path : leftovers) {
    if (fs::remove(path, ec); ec) return Error{"cannot empty " + journal_dir + ": " + ec.message()};
  }
  return undo;
}

Result<PowerLossUndo> PowerJournal::ReplayHost(const Host& host) {
  std::error_code ec;
  if (!fs::is_directory(host.Directory(), ec)) {
    return Error{"power loss: host " + host.Name() + "'s directory " + host.Directory() +
                 " is not on the controller's filesystem"};
  }
  return Replay(host.PathOf(kDirectory));
}

Result<std::string> FindPowerShimLibrary() {
#ifdef LOCKSMITH_POWER_SHIM_BUILT
  const char* built = LOCKSMITH_POWER_SHIM_BUILT;
#else
  const char* built = nullptr;
#endif
  return FindPreloadLibrary(kPowerShimFileName, "LOCKSMITH_POWER_SHIM", built, "locksmith_power_shim");
}

}  // namespace locksmith
