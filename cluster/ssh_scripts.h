// SshScripts: the fixed POSIX shell scripts the ssh provider runs on a node,
// each as `sh -c SCRIPT sh ARGS...` (input only ever in positional
// parameters, never in the script's text). They run as root (directly or
// under `sudo -n`) on machines other users share, so:
//
// - The base directory (kSshBaseDir, under a root-owned directory no other
//   user can write) is made with mkdir, never -p, and trusted only when it
//   is a real directory owned by the script's user (root) with mode 0700
//   whose ancestors no other user can change. Otherwise the script refuses
//   (one line on stderr, exit kSshRefusedExit): another user who made it
//   first could swap the clock shim library a server preloads, or list pids
//   for a cleanup to kill.
// - Every file the run writes there is new: mktemp (O_EXCL, mode 0600), then
//   renamed over its name, so no link is ever followed.
// - A process is signalled, killed or called alive only while its pid still
//   has the start time the spawn wrapper recorded: a pid reused by another
//   process is never touched.
//
// What each takes and prints is said at its function. Stateless;
// thread-safe.
#pragma once

#include <string>

namespace locksmith {

// The exit status of a script that refuses to go on (an unsafe base
// directory, a directory it cannot make new), with one line on stderr.
inline constexpr int kSshRefusedExit = 4;

// $1 base, $2 tag, $3 the controller's "machine pid start-time", then host
// names: makes the base if missing, checks it, makes <base>/<tag>/ (kept if
// another host of the run on the same machine made it) and a new directory
// per host, and records the controller in <base>/<tag>/.controller.
const std::string& SshPrepareScript();
// $1 base, $2 tag, $3 "all" to remove the run's directory too: kills the
// run's processes (pid files "pid start-time"), removes its LSM-<tag>-*
// chains; one line per removal on stdout. A base that is not safe is left
// untouched (the run never wrote there): only the chains go.
const std::string& SshCleanupScript();
// $1 base: "tag machine pid start-time" per run directory there; nothing
// when there is no base. Refuses an unsafe base.
const std::string& SshListScript();
// $1 host directory: its top-level files (configs, logs; no data
// directories) as a tar stream.
const std::string& SshFetchScript();
// The packages among "$@" that are missing, installed with apt-get.
const std::string& SshPackagesScript();

// The spawn wrapper: $1 working directory, $2 log, $3 pid file prefix (the
// record goes to a new file <prefix>.XXXXXX), then NAME=value entries and
// the server's argv for `env -i`. Prints "pid start-time" and execs the
// server under umask 077.
const std::string& SshSpawnScript();
// $1 pid, $2 start time: exit 0 while that process runs (not a zombie).
const std::string& SshAliveScript();
// $1 signal number, $2 pid, $3 start time: sends the signal; exit 3 when
// that process has ended.
const std::string& SshSignalScript();
// $1 pid, $2 start time: SIGKILL, then waits up to 5 s for it to end; exit
// 0 at once when it has ended already.
const std::string& SshKillScript();

// $1 path: stdin into a new file (mktemp beside it, mode 0600) renamed over
// the path.
const std::string& SshWriteScript();
// $1 path, $2 bytes: the file's last $2 bytes; exit 3 when it is missing.
const std::string& SshReadScript();

}  // namespace locksmith
