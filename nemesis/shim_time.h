// The clock shim's time arithmetic and the layout of its control file, shared
// by the shim (nemesis/clock_shim.cc, an LD_PRELOAD library) and the
// controller that writes the file (nemesis/clock_controller.h), and
// unit-tested on its own (shim_time_test.cc) by feeding it times.
//
// A host's faked wall clock is a pure function of its real wall clock and the
// parameters the nemesis last wrote:
//   fake(t) = t + offset + (rate - 1) * (t - anchor) + strobe(t)
// where strobe(t) is a square wave during [strobe_start, strobe_end): +delta
// for the first half of each period, -delta for the second, 0 outside.
// Times are nanoseconds since the Unix epoch on the host's CLOCK_REALTIME;
// anchors and strobe bounds are written by the controller from its own
// realtime clock (the same clock on the local provider).
//
// Header-only and free of the C++ runtime (no allocation, no exceptions, no
// library calls) so the shim can use it inside clock_gettime. Thread-safe
// (pure functions).
#pragma once

#include <cstddef>
#include <cstdint>

namespace locksmith::shim_time {

inline constexpr int64_t kNsPerSec = 1'000'000'000;
// Rates are integers in parts per million: kRealRate is the real speed, 0 a
// stopped clock, 2 * kRealRate twice as fast.
inline constexpr int64_t kRealRate = 1'000'000;
inline constexpr int64_t kMaxRate = 1000 * kRealRate;

struct ClockParams {
  int64_t offset_ns = 0;
  int64_t rate_ppm = kRealRate;
  int64_t anchor_ns = 0;  // real time at which the current rate took over
  int64_t strobe_delta_ns = 0;
  int64_t strobe_period_ns = 0;  // 0: no strobe
  int64_t strobe_start_ns = 0;
  int64_t strobe_end_ns = 0;  // exclusive

  bool operator==(const ClockParams&) const = default;
};

// True when the parameters leave the clock alone at every time.
constexpr bool IsIdentity(const ClockParams& p) {
  return p.offset_ns == 0 && p.rate_ppm == kRealRate && p.strobe_period_ns == 0;
}

// The strobe's contribution at real time `real_ns`.
constexpr int64_t StrobeNs(const ClockParams& p, int64_t real_ns) {
  if (p.strobe_period_ns <= 0 || real_ns < p.strobe_start_ns || real_ns >= p.strobe_end_ns) {
    return 0;
  }
  const int64_t into_period = (real_ns - p.strobe_start_ns) % p.strobe_period_ns;
  return into_period * 2 < p.strobe_period_ns ? p.strobe_delta_ns : -p.strobe_delta_ns;
}

// (rate - 1) * (real - anchor), exactly and without 128-bit integers: the
// elapsed time is split into whole and partial parts per million.
constexpr int64_t DriftNs(const ClockParams& p, int64_t real_ns) {
  const int64_t extra_ppm = p.rate_ppm - kRealRate;
  if (extra_ppm == 0) return 0;
  const int64_t elapsed = real_ns - p.anchor_ns;
  return elapsed / kRealRate * extra_ppm + elapsed % kRealRate * extra_ppm / kRealRate;
}

// The faked wall clock at real time `real_ns`.
constexpr int64_t FakeNs(const ClockParams& p, int64_t real_ns) {
  return real_ns + p.offset_ns + DriftNs(p, real_ns) + StrobeNs(p, real_ns);
}

// `p` with its clock moved by `delta_ns` from now on.
constexpr ClockParams Bumped(ClockParams p, int64_t delta_ns) {
  p.offset_ns += delta_ns;
  return p;
}

// `p` running at `rate_ppm` from real time `now_ns` on, with no jump at
// `now_ns`: the drift so far is folded into the offset and the anchor moves
// to now.
constexpr ClockParams WithRate(ClockParams p, int64_t now_ns, int64_t rate_ppm) {
  p.offset_ns += DriftNs(p, now_ns);
  p.anchor_ns = now_ns;
  p.rate_ppm = rate_ppm;
  return p;
}

// `p` with a strobe of ±delta_ns, a period of period_ns, from now_ns for
// duration_ns (replacing any earlier strobe).
constexpr ClockParams WithStrobe(ClockParams p, int64_t now_ns, int64_t delta_ns,
                                 int64_t period_ns, int64_t duration_ns) {
  p.strobe_delta_ns = delta_ns;
  p.strobe_period_ns = period_ns;
  p.strobe_start_ns = now_ns;
  p.strobe_end_ns = now_ns + duration_ns;
  return p;
}

// Seconds and nanoseconds (0 <= nsec < 1e9) of `ns`, rounding toward minus
// infinity, as struct timespec wants them also before the epoch.
struct SplitTime {
  int64_t sec = 0;
  int64_t nsec = 0;
};
constexpr SplitTime Split(int64_t ns) {
  SplitTime t{ns / kNsPerSec, ns % kNsPerSec};
  if (t.nsec < 0) {
    t.nsec += kNsPerSec;
    t.sec -= 1;
  }
  return t;
}
constexpr int64_t Join(int64_t sec, int64_t nsec) { return sec * kNsPerSec + nsec; }

// --- The control file: a fixed-size record, little-endian on every host.
//   0  magic "LSCLOCK1" (8 bytes)
//   8  generation (u64), bumped by every write
//  16  the seven ClockParams fields (i64 each)
//  72  checksum (u64): FNV-1a of bytes 0..71
// The controller replaces the file atomically (write, then rename); the
// checksum still lets the shim refuse a torn or foreign file (a host whose
// file operations are not atomic) and keep its previous parameters.
inline constexpr size_t kControlSize = 80;
inline constexpr char kControlMagic[8] = {'L', 'S', 'C', 'L', 'O', 'C', 'K', '1'};
// The shim's environment variable naming the control file.
inline constexpr char kControlFileEnv[] = "LOCKSMITH_CLOCK_FILE";

constexpr uint64_t Fnv1a(const unsigned char* bytes, size_t n) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; ++i) {
    h ^= bytes[i];
    h *= 1099511628211ull;
  }
  return h;
}

constexpr void PutU64(unsigned char* out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out[i] = static_cast<unsigned char>(v >> (8 * i));
}
constexpr uint64_t GetU64(const unsigned char* in) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= static_cast<uint64_t>(in[i]) << (8 * i);
  return v;
}

// The parameters' fields in file order.
constexpr int kParamFields = 7;
constexpr void ParamFields(const ClockParams& p, int64_t (&out)[kParamFields]) {
  const int64_t fields[kParamFields] = {p.offset_ns,        p.rate_ppm,        p.anchor_ns,
                                        p.strobe_delta_ns,  p.strobe_period_ns,
                                        p.strobe_start_ns,  p.strobe_end_ns};
  for (int i = 0; i < kParamFields; ++i) out[i] = fields[i];
}
constexpr ClockParams ParamsOf(const int64_t (&f)[kParamFields]) {
  return ClockParams{f[0], f[1], f[2], f[3], f[4], f[5], f[6]};
}

// True when the shim may apply `p`: a rate in [0, kMaxRate], a strobe
// period >= 0 with an end not before its start.
constexpr bool Plausible(const ClockParams& p) {
  return p.rate_ppm >= 0 && p.rate_ppm <= kMaxRate && p.strobe_period_ns >= 0 &&
         p.strobe_end_ns >= p.strobe_start_ns;
}

constexpr void EncodeControl(const ClockParams& p, uint64_t generation,
                             unsigned char (&out)[kControlSize]) {
  for (int i = 0; i < 8; ++i) out[i] = static_cast<unsigned char>(kControlMagic[i]);
  PutU64(out + 8, generation);
  int64_t fields[kParamFields] = {};
  ParamFields(p, fields);
  for (int i = 0; i < kParamFields; ++i) PutU64(out + 16 + 8 * i, static_cast<uint64_t>(fields[i]));
  PutU64(out + 72, Fnv1a(out, 72));
}

// Decodes a control file of `n` bytes; false (outputs untouched) when it is
// not a whole, intact, plausible record.
constexpr bool DecodeControl(const unsigned char* in, size_t n, ClockParams* params,
                             uint64_t* generation) {
  if (n != kControlSize) return false;
  for (int i = 0; i < 8; ++i) {
    if (in[i] != static_cast<unsigned char>(kControlMagic[i])) return false;
  }
  if (GetU64(in + 72) != Fnv1a(in, 72)) return false;
  int64_t fields[kParamFields] = {};
  for (int i = 0; i < kParamFields; ++i) fields[i] = static_cast<int64_t>(GetU64(in + 16 + 8 * i));
  const ClockParams p = ParamsOf(fields);
  if (!Plausible(p)) return false;
  *params = p;
  *generation = GetU64(in + 8);
  return true;
}

}  // namespace locksmith::shim_time
