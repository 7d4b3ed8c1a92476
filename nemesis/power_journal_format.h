// The power-loss journal's record layout and the environment that turns the
// power shim on, shared by the shim (nemesis/power_shim.cc, an LD_PRELOAD
// library) and the controller that replays the journal after a kill
// (nemesis/power_journal.h).
//
// The shim appends, before each change it sees to a file under the covered
// directory ($LOCKSMITH_POWER_SCOPE), what the change would destroy: an
// undo journal. A record is a RecordHeader, then `path_len` bytes of path,
// then `payload_len` bytes of payload, appended by one writev on an
// O_APPEND file, so records of several processes never interleave. Paths
// are absolute, as the process saw them.
//
// Header-only and free of the C++ runtime (the shim has none). Thread-safe
// (constants).
#pragma once

#include <cstdint>

namespace locksmith::power_journal {

// The directory whose files the shim covers (absolute; files below it).
inline constexpr char kScopeEnv[] = "LOCKSMITH_POWER_SCOPE";
// The directory the journal lives in (inside or outside the scope; never
// covered itself): its "journal" file and copies of files a rename replaced.
inline constexpr char kJournalDirEnv[] = "LOCKSMITH_POWER_JOURNAL_DIR";
inline constexpr char kJournalFile[] = "journal";
// A replaced file's copy: kSavedPrefix + "<pid>-<n>" in the journal directory.
inline constexpr char kSavedPrefix[] = "saved-";

inline constexpr uint32_t kMagic = 0x4a525750;  // "PWRJ"

enum class Kind : uint32_t {
  // The file's size before its first change since its last sync (a: size).
  kBase = 1,
  // Bytes a change is about to overwrite (a: offset; payload: the bytes).
  kUndo = 2,
  // The file did not exist before this open created it.
  kCreate = 3,
  // path was renamed to the payload's path (a: 1 when the target existed
  // and was kept as saved copy b of this pid, else 0).
  kRename = 4,
  // An fsync or fdatasync of path began (a: its id; b: 1 for a directory).
  kSyncBegin = 5,
  // The sync with id a succeeded: what it began after is durable.
  kSyncDone = 6,
};

struct RecordHeader {
  uint32_t magic;
  uint32_t kind;
  uint32_t pid;
  uint32_t path_len;
  uint64_t a;
  uint64_t b;
  uint64_t payload_len;
};
static_assert(sizeof(RecordHeader) == 40);

// Longest path the shim covers; a file with a longer one is not covered.
inline constexpr int kMaxPath = 512;

}  // namespace locksmith::power_journal
