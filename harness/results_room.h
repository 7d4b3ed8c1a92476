// ResultsRoom: room a run keeps on its store's disk from its start until it
// judges, so that when the history fills the disk (a failed write ends the
// workload), giving the room back lets results.json say so. A file of
// kBytes allocated up front (posix_fallocate), removed by GiveBack or the
// destructor; where it cannot be allocated there is no room kept, as before.
// A run killed leaves the file behind; nothing reads it. One run's, on its
// thread.
#pragma once

#include <cstdint>
#include <string>

namespace locksmith {

class ResultsRoom {
 public:
  static inline constexpr int64_t kBytes = int64_t{128} << 10;
  static inline constexpr char kFile[] = ".results-room";

  // Keeps the room in `run_dir`.
  explicit ResultsRoom(const std::string& run_dir);
  ~ResultsRoom() { GiveBack(); }
  ResultsRoom(const ResultsRoom&) = delete;
  ResultsRoom& operator=(const ResultsRoom&) = delete;

  // Frees it (again: nothing).
  void GiveBack();

 private:
  const std::string path_;
};

}  // namespace locksmith
