#include "cluster/ssh_scripts.h"

namespace locksmith {
namespace {

// Shell functions the scripts share (see the header for why each check).
//
// lsm_base_problem BASE prints nothing when BASE is safe or missing under
// safe ancestors, else one line saying why not. An ancestor is safe when
// owned by root or the script's user and writable by no one else, unless
// sticky (/tmp): a sticky directory's entries can be renamed only by their
// owners. lsm_base BASE make|check refuses an unsafe BASE, creates a missing
// one with "make", and fails when it does not exist.
constexpr char kBaseFunctions[] = R"sh(
lsm_refuse() { echo "$*" >&2; exit 4; }
lsm_base_problem() {
  me=$(id -u); who=root; [ "$me" = 0 ] || who="uid $me"
  again="remove it and run again"
  d=$(readlink -f -- "$(dirname -- "$1")") || { echo "cannot resolve the parent of $1"; return; }
  while :; do
    if [ -n "$(find "$d" -maxdepth 0 \( \( ! -uid 0 ! -uid "$me" \) -o \
                 \( -perm /022 ! -perm -1000 \) \) -print 2>/dev/null)" ]; then
      echo "$d (above $1) can be changed by users other than $who:" \
           "locksmith keeps its files only under directories they cannot change"
      return
    fi
    [ "$d" = / ] && break
    d=$(dirname -- "$d")
  done
  [ -e "$1" ] || [ -L "$1" ] || return 0
  if [ -L "$1" ]; then
    echo "$1 is a symbolic link, not a directory $who made" \
         "(another user may have planted it): $again"
    return
  fi
  [ -d "$1" ] || { echo "$1 is not a directory: $again"; return; }
  m=$(stat -c '%u %a' -- "$1")
  [ "$m" = "$me 700" ] || echo "$1 is owned by uid ${m% *} with mode ${m#* }," \
    "not by $who with mode 0700 (another user may have made it): $again"
}
lsm_base() {
  p=$(lsm_base_problem "$1"); [ -z "$p" ] || lsm_refuse "$p"
  if [ "$2" = make ] && [ ! -e "$1" ] && [ ! -L "$1" ]; then
    err=$(mkdir -m 0700 -- "$1" 2>&1) || [ -d "$1" ] || lsm_refuse "cannot create $1: ${err##*: }"
    p=$(lsm_base_problem "$1"); [ -z "$p" ] || lsm_refuse "$p"
  fi
  [ -e "$1" ] || [ -L "$1" ]
}
)sh";

// lsm_same PID START: true while PID runs (not a zombie) and started at
// START (field 22 of /proc/PID/stat): still the process that was recorded.
constexpr char kSameProcessFunction[] = R"sh(
lsm_same() {
  case $1 in ''|*[!0-9]*) return 1;; esac
  s=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1,20)
  [ -n "$s" ] && [ "${s%% *}" != Z ] && [ "${s#* }" = "$2" ]
}
)sh";

constexpr char kPrepareBody[] = R"sh(
base=$1; tag=$2; owner=$3; shift 3
lsm_base "$base" make
run=$base/$tag
err=$(mkdir -m 0700 -- "$run" 2>&1)
if [ $? != 0 ] && { [ -L "$run" ] || [ ! -d "$run" ]; }; then
  lsm_refuse "cannot create $run: ${err##*: }"
fi
for h in "$@"; do
  err=$(mkdir -m 0700 -- "$run/$h" 2>&1) || lsm_refuse "cannot create $run/$h: ${err##*: }"
done
t=$(mktemp -- "$run/.controller.XXXXXX") && echo "$owner" > "$t" &&
  mv -f -T -- "$t" "$run/.controller" || lsm_refuse "cannot write $run/.controller"
)sh";

constexpr char kCleanupBody[] = R"sh(
base=$1; tag=$2; mode=$3; run=$base/$tag
if [ -n "$(lsm_base_problem "$base")" ] || [ -L "$run" ] || [ ! -d "$run" ]; then run=; fi
if [ -n "$run" ]; then
  for f in "$run"/.pids-*; do
    [ -f "$f" ] || continue
    while read -r pid st; do
      lsm_same "$pid" "$st" || continue
      kill -9 "$pid" 2>/dev/null && echo "killed pid $pid"
      i=0
      while [ $i -lt 500 ] && lsm_same "$pid" "$st"; do sleep 0.01; i=$((i+1)); done
    done < "$f"
  done
fi
if command -v iptables >/dev/null 2>&1; then
  iptables -w -S 2>/dev/null |
    sed -n "s/^-A \([A-Z]*\) -j \(LSM-$tag-[A-Za-z0-9_-]*\)\$/\1 \2/p" |
    while read -r c ch; do iptables -w -D "$c" -j "$ch" && echo "removed jump $c -> $ch"; done
  iptables -w -S 2>/dev/null | sed -n "s/^-N \(LSM-$tag-[A-Za-z0-9_-]*\)\$/\1/p" |
    while read -r ch; do
      iptables -w -F "$ch"; iptables -w -X "$ch" && echo "removed chain $ch"
    done
fi
if [ "$mode" = all ] && [ -n "$run" ]; then rm -rf -- "$run" && echo "removed $run"; fi
exit 0
)sh";

constexpr char kListBody[] = R"sh(
lsm_base "$1" check || exit 0
for d in "$1"/*/; do
  [ -d "$d" ] || continue
  echo "$(basename "$d") $(cat "$d/.controller" 2>/dev/null)"
done
)sh";

constexpr char kFetchScriptText[] = R"sh(
cd "$1" 2>/dev/null || exit 0
find . -maxdepth 1 -type f -size -65536k -print0 | tar --null -T - -cf -
)sh";

constexpr char kPackagesScriptText[] = R"sh(
ok=$(dpkg-query -W -f='${db:Status-Abbrev} ${Package}\n' "$@" 2>/dev/null |
  awk '$1 == "ii" {print $2}' | tr '\n' ' ')
missing=
for p in "$@"; do case " $ok " in *" $p "*) ;; *) missing="$missing $p";; esac; done
[ -z "$missing" ] && exit 0
export DEBIAN_FRONTEND=noninteractive
out=$(apt-get install -y -qq --no-install-recommends $missing 2>&1) ||
  { apt-get update -qq >/dev/null 2>&1;
    out=$(apt-get install -y -qq --no-install-recommends $missing 2>&1); } ||
  { echo "cannot install$missing with apt-get: $(echo "$out" | grep -v '^$' | tail -n 1)" >&2;
    exit 3; }
echo "installed$missing"
)sh";

constexpr char kSpawnScriptText[] = R"sh(
cwd=$1; log=$2; pids=$3; shift 3
cd "$cwd" || exit 97
st=$(sed 's/.*) //' /proc/$$/stat | cut -d' ' -f20)
f=$(mktemp -- "$pids.XXXXXX") && echo "$$ $st" > "$f" || exit 98
echo "$$ $st"
umask 077
exec env -i "$@" </dev/null >>"$log" 2>&1
)sh";

constexpr char kAliveBody[] = R"sh(
lsm_same "$1" "$2"
)sh";

constexpr char kSignalBody[] = R"sh(
lsm_same "$2" "$3" || { echo "pid $2 has exited" >&2; exit 3; }
kill -s "$1" "$2"
)sh";

constexpr char kKillBody[] = R"sh(
lsm_same "$1" "$2" || exit 0
kill -9 "$1" 2>/dev/null
i=0
while [ $i -lt 500 ]; do lsm_same "$1" "$2" || exit 0; sleep 0.01; i=$((i+1)); done
echo "pid $1 still runs 5 s after SIGKILL" >&2
exit 1
)sh";

constexpr char kWriteScriptText[] = R"sh(
t=$(mktemp -- "$1.tmp-XXXXXX") || exit 1
cat > "$t" && mv -f -T -- "$t" "$1" || { rm -f -- "$t"; exit 1; }
)sh";

constexpr char kReadScriptText[] = R"sh(
[ -f "$1" ] || { echo "no such file" >&2; exit 3; }
exec tail -c "$2" -- "$1"
)sh";

}  // namespace

const std::string& SshPrepareScript() {
  static const std::string script = std::string(kBaseFunctions) + kPrepareBody;
  return script;
}

const std::string& SshCleanupScript() {
  static const std::string script =
      std::string(kBaseFunctions) + kSameProcessFunction + kCleanupBody;
  return script;
}

const std::string& SshListScript() {
  static const std::string script = std::string(kBaseFunctions) + kListBody;
  return script;
}

const std::string& SshFetchScript() {
  static const std::string script = kFetchScriptText;
  return script;
}

const std::string& SshPackagesScript() {
  static const std::string script = kPackagesScriptText;
  return script;
}

const std::string& SshSpawnScript() {
  static const std::string script = kSpawnScriptText;
  return script;
}

const std::string& SshAliveScript() {
  static const std::string script = std::string(kSameProcessFunction) + kAliveBody;
  return script;
}

const std::string& SshSignalScript() {
  static const std::string script = std::string(kSameProcessFunction) + kSignalBody;
  return script;
}

const std::string& SshKillScript() {
  static const std::string script = std::string(kSameProcessFunction) + kKillBody;
  return script;
}

const std::string& SshWriteScript() {
  static const std::string script = kWriteScriptText;
  return script;
}

const std::string& SshReadScript() {
  static const std::string script = kReadScriptText;
  return script;
}

}  // namespace locksmith
