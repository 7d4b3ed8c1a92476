// power_shim_workout DIR: changes files in DIR through libc the way the
// servers do (an append-only log, a preallocated log, a manifest replaced by
// rename), some synced and some not, for the power shim's test
// (power_journal_test.cc) to run under the shim and undo. Exits 0 when every
// call succeeded, 1 naming the first that failed.
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <string>

namespace {

std::string dir;

int Check(int r, const char* what) {
  if (r < 0) {
    std::perror(what);
    _exit(1);
  }
  return r;
}

int Open(const char* name, int flags) {
  return Check(open((dir + "/" + name).c_str(), flags | O_CLOEXEC, 0644), name);
}

void Write(int fd, const char* text) {
  Check(static_cast<int>(write(fd, text, std::strlen(text))), "write");
}

void PWrite(int fd, const char* text, off_t at) {
  Check(static_cast<int>(pwrite(fd, text, std::strlen(text), at)), "pwrite");
}

// A file with `text`, synced.
void Durable(const char* name, const char* text) {
  const int fd = Open(name, O_CREAT | O_WRONLY | O_TRUNC);
  Write(fd, text);
  Check(fsync(fd), "fsync");
  close(fd);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: power_shim_workout DIR\n");
    return 2;
  }
  dir = argv[1];
  // Written, synced, written again: an overwrite and an append, unsynced.
  const int data = Open("data", O_CREAT | O_RDWR);
  Write(data, "hello world");
  Check(fdatasync(data), "fdatasync");
  PWrite(data, "XYZ", 0);
  Write(data, " more");
  // Redis's AOF: appends, the second one unsynced.
  const int aof = Open("aof", O_CREAT | O_WRONLY | O_APPEND);
  Write(aof, "SET a 1;");
  Check(fsync(aof), "fsync aof");
  Write(aof, "SET b 2;");

  // Preallocated (ZooKeeper pads its log by writing its last byte), synced;
  // a transaction synced, another not, then the log grows unsynced.
  const int log = Open("log", O_CREAT | O_RDWR);
  Check(static_cast<int>(pwrite(log, "", 1, 4095)), "pad");
  Check(fsync(log), "fsync log");
  PWrite(log, "txn1", 0);
  Check(fdatasync(log), "fdatasync log");
  PWrite(log, "txn2", 4);
  Check(fallocate(log, 0, 0, 8192), "fallocate");

  // Truncated below its synced size, then written.
  Durable("trunc", "0123456789");
  const int trunc = Open("trunc", O_WRONLY);
  Check(ftruncate(trunc, 4), "ftruncate");
  PWrite(trunc, "ab", 4);

  // ZooKeeper's epoch file: a synced temporary renamed in place; the next
  // fsync of any file commits the rename (ext4 commits its journal in order).
  Durable("epoch.tmp", "1");
  Check(rename((dir + "/epoch.tmp").c_str(), (dir + "/epoch").c_str()), "rename epoch");
  Durable("other", "x");

  // Renamed: a rename made durable by the directory's fsync, and a synced
  // manifest replaced by a synced temporary with no sync after the rename.
  Durable("manifest", "old manifest");
  Durable("manifest.tmp", "new manifest");
  Durable("kept.tmp", "kept");
  const int dirfd = Check(open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC), "dir");
  Check(rename((dir + "/kept.tmp").c_str(), (dir + "/kept").c_str()), "rename kept");
  Check(fsync(dirfd), "fsync dir");
  Check(rename((dir + "/manifest.tmp").c_str(), (dir + "/manifest").c_str()), "rename manifest");

  // Never synced: gone after the power loss.
  Write(Open("fresh", O_CREAT | O_WRONLY), "lost");
  std::printf("done\n");
  return 0;
}
