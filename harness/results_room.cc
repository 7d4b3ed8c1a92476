#include "harness/results_room.h"

#include <fcntl.h>
#include <unistd.h>

namespace locksmith {

ResultsRoom::ResultsRoom(const std::string& run_dir) : path_(run_dir + "/" + kFile) {
  const int fd =
      ::open(path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) return;
  if (::posix_fallocate(fd, 0, kBytes) != 0) ::unlink(path_.c_str());
  ::close(fd);
}

void ResultsRoom::GiveBack() { ::unlink(path_.c_str()); }

}  // namespace locksmith
