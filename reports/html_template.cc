// Stylesheet and script of report.html. Kept as raw string literals in this
// file so the report writer needs no template file at runtime; each literal
// stays under the 64 KiB that -Wpedantic (overlength-strings) allows.
#include "reports/html_template.h"

namespace locksmith {
namespace {

constexpr std::string_view kCss = R"CSS(
:root{--ok:#2e9e4f;--fail:#d6455d;--info:#e8a317;--pending:#9aa0a6;--nem:#7b4fc9;--fault:rgba(255,140,0,.16);
--hold:#3b7dd8;--overlap:#e0002a;--expired:#8a5a00;--fg:#1d2430;--muted:#6b7280;--line:#e3e6eb;--bg:#fff}
*{box-sizing:border-box}
body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:#f5f6f8}
header.run{display:flex;gap:24px;align-items:center;padding:18px 28px;background:var(--bg);border-bottom:4px solid var(--muted)}
header.valid{border-color:var(--ok)}header.invalid{border-color:var(--fail)}header.unknown{border-color:var(--info)}
.verdict{font-size:28px;font-weight:800;padding:10px 22px;border-radius:8px;color:#fff;background:var(--muted);letter-spacing:.5px}
.valid .verdict{background:var(--ok)}.invalid .verdict{background:var(--fail)}.unknown .verdict{background:var(--info)}
h1{margin:0 0 6px;font-size:20px;word-break:break-all}
h2{font-size:17px;margin:0 0 10px}
dl.meta{display:flex;flex-wrap:wrap;gap:4px 22px;margin:0}
dl.meta div{display:flex;gap:6px}dt{color:var(--muted)}dd{margin:0;font-weight:600;word-break:break-all}
.reason{margin:8px 0 0;color:#8a5a00}
nav{position:sticky;top:0;z-index:5;background:#fff;border-bottom:1px solid var(--line);padding:6px 28px;display:flex;gap:18px}
nav a{color:#2456a6;text-decoration:none}
main{padding:0 28px 40px}
section{background:var(--bg);border:1px solid var(--line);border-radius:8px;margin:18px 0;padding:16px 18px}
.muted{color:var(--muted)}
.bad{color:var(--fail);font-weight:600}
table.grid{border-collapse:collapse;margin-top:10px}
table.grid th,table.grid td{border-bottom:1px solid var(--line);padding:4px 10px;text-align:left;vertical-align:top}
table.grid td.n{text-align:right;font-variant-numeric:tabular-nums}
tr.total td{font-weight:700}
.badge{display:inline-block;padding:1px 8px;border-radius:10px;color:#fff;font-weight:700;font-size:12px}
.badge.valid{background:var(--ok)}.badge.invalid{background:var(--fail)}.badge.unknown{background:var(--info)}
table.kv{border-collapse:collapse;font-size:13px}
table.kv th{color:var(--muted);font-weight:500;text-align:left;padding:1px 10px 1px 0;vertical-align:top;white-space:nowrap}
table.kv td{padding:1px 0;word-break:break-word}
.anomaly{border:1px solid var(--line);border-left:4px solid var(--fail);border-radius:6px;padding:8px 12px;margin:8px 0}
.anomaly.selected{background:#fff8d6;border-left-color:#e0b000}
.ahead{display:flex;align-items:center;gap:8px;flex-wrap:wrap;margin-bottom:4px}
.num{color:var(--muted);font-size:12px}
.atype{font-weight:700;color:#a1132b;font-family:ui-monospace,monospace}
.checker{font-size:12px;background:#eef1f5;border-radius:8px;padding:0 8px}
.aops{margin:4px 0}.label{color:var(--muted);margin-right:4px}
.item{border-left:2px solid var(--line);padding-left:8px;margin:2px 0}
a.opref{display:inline-block;font:12px ui-monospace,monospace;padding:0 6px;margin:1px 2px;border-radius:4px;background:#eef1f5;color:var(--fg);text-decoration:none;border-left:3px solid var(--muted)}
a.opref:hover{background:#dfe6f3}
a.opref.t-ok{border-color:var(--ok)}a.opref.t-fail{border-color:var(--fail)}a.opref.t-info{border-color:var(--info)}a.opref.t-invoke{border-color:var(--hold)}
button{font:inherit;font-size:12px;padding:2px 10px;border:1px solid #c8ced8;border-radius:4px;background:#fff;cursor:pointer}
button:hover{background:#eef1f5}
.controls{display:flex;gap:8px;align-items:center;margin-bottom:8px}
.tl-wrap{position:relative;border:1px solid var(--line)}
#tl{display:block;width:100%;cursor:grab;touch-action:none}
#tl.dragging{cursor:grabbing}
.tip{position:absolute;z-index:4;pointer-events:none;background:rgba(20,24,32,.94);color:#fff;font:12px/1.4 ui-monospace,monospace;padding:6px 9px;border-radius:5px;white-space:pre;max-width:640px;overflow:hidden}
.legend{margin-top:6px;font-size:12px}
.sw{display:inline-block;width:12px;height:10px;margin:0 4px 0 10px;vertical-align:middle;border-radius:2px}
.sw.ok{background:var(--ok)}.sw.fail{background:var(--fail)}.sw.info{background:var(--info)}.sw.pending{background:var(--pending)}
.sw.nem{background:var(--nem)}.sw.fault{background:rgba(255,140,0,.35)}.sw.hold{background:var(--hold)}.sw.overlap{background:var(--overlap)}.sw.expired{background:var(--expired)}
.plots{display:grid;grid-template-columns:repeat(auto-fit,minmax(380px,1fr));gap:14px}
figure{margin:0}figcaption{font-size:12px;color:var(--muted);margin-bottom:4px}
.plots canvas{width:100%;height:300px;display:block;border:1px solid var(--line)}
pre{font-size:12px;max-height:480px;overflow:auto;background:#f7f8fa;padding:10px}
code{font-family:ui-monospace,monospace;font-size:12px;background:#f1f3f6;padding:0 4px;border-radius:3px}
.story{margin:4px 0 6px}.story p{margin:4px 0}.story-cause{color:#5b3a00}
.story-svg{display:block;max-width:100%;height:auto;margin:4px 0;font:11px system-ui,sans-serif}
.sv-hold{fill:#3b7dd8}.sv-expired{fill:#8a5a00}.sv-overlap{fill:rgba(224,0,42,.28)}
.sv-fault{fill:rgba(255,140,0,.22)}.sv-flabel{fill:#8a5a00;font-size:10px}
.sv-lease{stroke:#8a5a00;stroke-dasharray:3 2}.sv-mark{stroke:#111;stroke-width:1.5}
.sv-axis{stroke:#9aa0a6}.sv-small{font-size:9px;fill:#555}.sv-label{font-size:11px;fill:#1d2430}
details.record summary{cursor:pointer;color:var(--muted);font-size:12px}
.aclass{font-size:12px;background:#fde7eb;color:#a1132b;border-radius:8px;padding:0 8px}
.fam{display:inline-block;font-size:11px;padding:0 6px;border-radius:8px;color:#fff;background:#555}
.fam-kill{background:#c62828}.fam-pause{background:#6a1b9a}.fam-partition{background:#ef6c00}
.fam-clock{background:#00838f}.fam-client-pause{background:#7b4fc9}
.fam-client-crash{background:#ad1457}.fam-failover{background:#1565c0}
.fam-promotion{background:#2e7d32}.fam-lock-lost{background:#d84315}
.avail{display:flex;gap:18px;flex-wrap:wrap}
.avail-box{border:1px solid var(--line);border-radius:6px;padding:8px 14px;min-width:260px}
.avail-title{color:var(--muted);font-size:12px}.avail-num{font-size:24px;font-weight:700}
.bar{height:8px;background:#eef1f5;border-radius:4px;overflow:hidden;margin:4px 0}
.bar span{display:block;height:100%;background:var(--ok)}
table.stats{margin-top:2px;font-size:12px}table.stats th,table.stats td{padding:1px 8px}
)CSS";

constexpr std::string_view kJs = R"JS(
(function () {
'use strict';
const D = JSON.parse(document.getElementById('report-data').textContent);
const COLORS = ['#2e9e4f', '#d6455d', '#e8a317', '#9aa0a6', '#7b4fc9'];
const OUTCOME = ['ok', 'fail', 'info', 'never completed'];
// Ops and holds come as packed tables (reports/packed_table.h; fields in
// report_model.h): numbers of base-59 digits, least significant first, then
// one base-32 digit; signed fields zigzag-coded. One loop per table reads
// its rows.
const DIGIT = new Int8Array(128).fill(-1);
for (let c = 33, n = 0; c < 127; c++) if (c !== 34 && c !== 60 && c !== 92) DIGIT[c] = n++;
function reader(str) {
  let p = 0;
  function next() {
    let d = DIGIT[str.charCodeAt(p++)];
    if (d < 32) return d;
    let u = d - 32, m = 59;
    while ((d = DIGIT[str.charCodeAt(p++)]) >= 32) { u += (d - 32) * m; m *= 59; }
    return u + d * m;
  }
  function signed() { const u = next(), h = Math.floor(u / 2); return u === 2 * h ? h : -h - 1; }
  return { next, signed };
}
// What only hovering or a click needs is decoded on first use.
function lazy(make) { let v = null; return () => v || (v = make()); }
const O = D.ops, N = O.n, T1 = Math.max(D.t1, 1);
// Ops by start: f, key, outcome and error through their kind.
const KF = Int32Array.from(D.kinds.f), KK = Int32Array.from(D.kinds.k);
const KO = Uint8Array.from(D.kinds.o), KE = Int32Array.from(D.kinds.e);
const S = new Float64Array(N), E = new Float64Array(N), DUR = new Float64Array(N);
const LANE = new Int32Array(N), KIND = new Int32Array(N);
let maxDur = 0;
// The decode loops run in small functions of their own: the JIT compiles
// one of those far sooner than this whole script's function.
(function decodeOps() {
  const r = reader(O.rows);
  for (let i = 0, s = O.t0; i < N; i++) {
    s += r.next();
    const d = r.next() - 1, e = d < 0 ? T1 : s + d;
    S[i] = s; DUR[i] = d; E[i] = e;
    if (e - s > maxDur) maxDur = e - s;
    LANE[i] = r.next(); KIND[i] = r.next();
  }
})();
// Invoke index and completion index minus it (-1: none).
const opIds = lazy(() => {
  const idx = new Float64Array(N), ci = new Float64Array(N), r = reader(O.ids);
  for (let i = 0, ix = 0; i < N; i++) { ix += r.signed(); idx[i] = ix; ci[i] = r.signed(); }
  return { idx, ci };
});
const pauseF = D.fs.indexOf('pause');
// Each kind's colour on the timeline: its outcome's, a pause's purple.
const KCOLOR = KF.map((f, k) => f === pauseF ? 4 : KO[k]);
const VAL = new Map();
D.values.rows.forEach((r, j) => VAL.set(r, D.values.text[j]));
const NL = D.lanes.length;
const nemLane = D.lane_process.indexOf(-1);
// Processes sharing a lane, by start time, to name the process of an op
// or a hold.
const segments = lazy(() => {
  const start = D.lanes.map(() => []), proc = D.lanes.map(() => []);
  D.segments.lane.forEach((l, k) => { start[l].push(D.segments.s[k]); proc[l].push(D.segments.process[k]); });
  return { start, proc };
});
function processAt(l, t) {
  const st = segments().start[l];
  let lo = 0, hi = st.length;
  while (lo < hi) { const m = (lo + hi) >> 1; if (st[m] <= t) lo = m + 1; else hi = m; }
  return segments().proc[l][Math.max(0, lo - 1)];
}
function processOf(i) {
  return LANE[i] === nemLane ? 'nemesis' : 'process ' + processAt(LANE[i], S[i]);
}
const laneRows = lazy(() => {
  const rows = [], cnt = new Int32Array(NL);
  for (let i = 0; i < N; i++) cnt[LANE[i]]++;
  for (let l = 0; l < NL; l++) rows.push(new Int32Array(cnt[l]));
  cnt.fill(0);
  for (let i = 0; i < N; i++) rows[LANE[i]][cnt[LANE[i]]++] = i;
  return rows;
});
// Holds (sorted by start) and key lanes (only keys that were ever held).
const HN = D.holds.n, MAX_KEY_LANES = 400;
const H = {k: new Int32Array(HN), p: new Int32Array(HN), s: new Float64Array(HN),
  e: new Float64Array(HN), x: new Float64Array(HN)};
const keyLane = new Int32Array(D.keys.length).fill(-1), keyList = [];
let keysDropped = 0;
// Overlaps per key, in the same pass: holds come sorted by start, so a
// sweep with the latest end seen per key finds every instant where two
// processes held the key.
const overlaps = [], sweepEnd = [], sweepLane = [];
(function decodeHolds() {
  const r = reader(D.holds.rows);
  for (let j = 0, s = D.holds.t0, lease = 0; j < HN; j++) {
    const k = r.next(), l = r.next();
    s += r.next();
    const e = s + r.next();
    lease += r.signed();
    H.k[j] = k; H.p[j] = l; H.s[j] = s; H.e[j] = e; H.x[j] = s + lease;
    let kl = keyLane[k];
    if (kl === -1) {
      if (keyList.length >= MAX_KEY_LANES) { keysDropped++; keyLane[k] = -2; continue; }
      kl = keyLane[k] = keyList.length; keyList.push(k); sweepEnd.push(-Infinity); sweepLane.push(-1);
    }
    if (kl < 0) continue;
    if (s < sweepEnd[kl] && l !== sweepLane[kl]) overlaps.push([kl, s, Math.min(e, sweepEnd[kl])]);
    if (e > sweepEnd[kl]) { sweepEnd[kl] = e; sweepLane[kl] = l; }
  }
})();
// Each hold's acquire index and whether it was never released.
const holdIds = lazy(() => {
  const acquire = new Float64Array(HN), open = new Uint8Array(HN), r = reader(D.holds.ids);
  for (let j = 0, a = 0; j < HN; j++) { a += r.signed(); acquire[j] = a; open[j] = r.next(); }
  return { acquire, open };
});
const keyHolds = lazy(() => {
  const lists = keyList.map(() => []);
  for (let j = 0; j < HN; j++) if (keyLane[H.k[j]] >= 0) lists[keyLane[H.k[j]]].push(j);
  return lists;
});

function lowerBound(arr, x, lo, hi) {
  lo = lo || 0; hi = hi === undefined ? arr.length : hi;
  while (lo < hi) { const m = (lo + hi) >> 1; if (arr[m] < x) lo = m + 1; else hi = m; }
  return lo;
}
function fmtNs(ns) {
  const a = Math.abs(ns);
  if (a >= 1e9) return (ns / 1e9).toFixed(a >= 1e11 ? 1 : 3) + ' s';
  if (a >= 1e6) return (ns / 1e6).toPrecision(3) + ' ms';
  if (a >= 1e3) return (ns / 1e3).toPrecision(3) + ' µs';
  return Math.round(ns) + ' ns';
}
// Axis labels: as many decimals as the tick step needs, no more.
function fmtTick(t, step) {
  const [div, unit] = step >= 1e9 ? [1e9, ' s'] : step >= 1e6 ? [1e6, ' ms'] : step >= 1e3 ? [1e3, ' µs'] : [1, ' ns'];
  const digits = Math.max(0, Math.min(6, -Math.floor(Math.log10(step / div) + 1e-9)));
  return (t / div).toFixed(digits) + unit;
}
function niceStep(span, target) {
  const raw = span / target, p = Math.pow(10, Math.floor(Math.log10(raw))), r = raw / p;
  return (r < 1.5 ? 1 : r < 3.5 ? 2 : r < 7.5 ? 5 : 10) * p;
}
function setup(canvas, h) {
  const dpr = window.devicePixelRatio || 1, w = canvas.clientWidth || canvas.width;
  canvas.width = Math.round(w * dpr); canvas.height = Math.round(h * dpr);
  canvas.style.height = h + 'px';
  const ctx = canvas.getContext('2d');
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  return { ctx, w, h };
}

// ---------------------------------------------------------------- timeline
const tl = document.getElementById('tl'), tip = document.getElementById('tip');
const GUT = 70, AX = 22, KEYHDR = keyList.length ? 20 : 0;
const totalLanes = NL + keyList.length;
// Fault lanes, one per nemesis family (and promotions, lost locks), above
// the op lanes; the clock lane is taller: it plots each node's offset.
const FL = D.fault_lanes, FLH = 16, CLOCKH = 46;
const clockLane = FL.indexOf('clock');
const flTop = [];
let FB = 0;
for (let f = 0; f < FL.length; f++) {
  flTop.push(FB);
  FB += f === clockLane && D.clocks.length ? CLOCKH : FLH;
}
if (FB) FB += 4;
const flH = f => (f === clockLane && D.clocks.length ? CLOCKH : FLH);
const FAMC = {kill: '#c62828', pause: '#6a1b9a', partition: '#ef6c00', clock: '#00838f',
  'client-pause': '#7b4fc9', 'client-crash': '#ad1457', failover: '#1565c0',
  promotion: '#2e7d32', 'lock-lost': '#d84315'};
const famColor = f => FAMC[f] || '#555';
const procLane = new Map();
D.segments.process.forEach((p, k) => procLane.set(p, D.segments.lane[k]));
const laneH = Math.max(4, Math.min(18, Math.floor(560 / Math.max(1, totalLanes))));
// The nemesis lane stays readable however many client lanes there are.
const hasNem = nemLane === 0, NEMH = hasNem ? Math.max(laneH, 14) : 0;
const procH = hasNem ? NEMH + (NL - 1) * laneH : NL * laneH;
const contentH = AX + FB + procH + KEYHDR + keyList.length * laneH + 4;
const viewH = Math.min(contentH, 640);
let v0 = 0, v1 = T1, yOff = 0, W = 0, ctx = null;
let highlight = [], highlightHolds = new Set(), spanH = null;
let showFaults = true, showHolds = true, pending = false;
const laneHt = l => (hasNem && l === 0 ? NEMH : laneH);
const laneY = l => AX + FB + (hasNem && l > 0 ? NEMH + (l - 1) * laneH : l * laneH) - yOff;
const keyY = kl => AX + FB + procH + KEYHDR + kl * laneH - yOff;
const faultY = f => AX + flTop[f] - yOff;
// Lane under content offset yy (from the top of the lanes): >= NL for none.
function laneAt(yy) {
  yy -= FB;
  if (yy < 0) return -1;
  if (hasNem) return yy < NEMH ? 0 : 1 + Math.floor((yy - NEMH) / laneH);
  return Math.floor(yy / laneH);
}
const X = t => GUT + (t - v0) * (W - GUT) / (v1 - v0);
const T = x => v0 + (x - GUT) * (v1 - v0) / (W - GUT);
function keyColor(k) { return 'hsl(' + ((k * 137.5) % 360) + ',60%,48%)'; }

function resize() { const s = setup(tl, viewH); ctx = s.ctx; W = s.w; schedule(); }
function schedule() { if (!pending) { pending = true; requestAnimationFrame(draw); } }
// Rows of runs: add(r, x0, x1) extends row r's run when [x0, x1]
// touches it, else adds the run to the row's path and starts another.
function runSet(pathOf, n, y, ht) {
  const a = new Float64Array(n), b = new Float64Array(n).fill(-Infinity);
  const set = {};
  set.add = (r, x0, x1) => {
    if (x0 <= b[r] && x1 >= a[r]) {
      if (x0 < a[r]) a[r] = x0;
      if (x1 > b[r]) b[r] = x1;
      return;
    }
    if (b[r] > -Infinity) pathOf(r).rect(a[r], y[r], b[r] - a[r], ht[r]);
    a[r] = x0; b[r] = x1;
  };
  set.flush = () => {
    for (let r = 0; r < n; r++) if (b[r] > -Infinity) pathOf(r).rect(a[r], y[r], b[r] - a[r], ht[r]);
  };
  return set;
}
// Ops: one bar per visible pixel and lane at most; a later op in a pixel
// already drawn only paints when it is more alarming (fail > info > ok).
// The bars that touch merge into one rect per lane and colour (their
// union, which filling them all would paint, in a few thousand rects).
// (draw's loops are functions of their own, each compiled on its own.)
function drawOps(h) {
  const PRI = [0, 3, 2, 1, 0];
  // One row per colour and lane: c * NL + l.
  const bh = Math.max(1, laneH - (laneH >= 8 ? 5 : 1)), NC = COLORS.length;
  const top = new Float64Array(NC * NL), barH = new Float64Array(NC * NL), shown = new Uint8Array(NL);
  for (let l = 0; l < NL; l++) {
    const y = laneY(l);
    for (let c = 0; c < NC; c++) { top[c * NL + l] = y + 1; barH[c * NL + l] = l === nemLane ? NEMH - 2 : bh; }
    shown[l] = y + laneHt(l) >= AX && y <= h ? 1 : 0;
  }
  const paths = COLORS.map(() => new Path2D());
  const opRuns = runSet(r => paths[Math.floor(r / NL)], NC * NL, top, barH);
  const lastPx = new Float64Array(NL).fill(-1e9), lastPri = new Int8Array(NL);
  const px = (W - GUT) / (v1 - v0), xMin = GUT - 2, xMax = W + 2;
  for (let i = lowerBound(S, v0 - maxDur); i < N && S[i] <= v1; i++) {
    const l = LANE[i];
    if (E[i] < v0 || !shown[l]) continue;
    const c = l === nemLane ? 4 : KCOLOR[KIND[i]];
    const x0 = Math.max(xMin, GUT + (S[i] - v0) * px), x1 = Math.min(xMax, GUT + (E[i] - v0) * px);
    const end = Math.floor(x1);
    if (end <= lastPx[l] && PRI[c] <= lastPri[l]) continue;
    if (end > lastPx[l]) lastPx[l] = end;
    lastPri[l] = PRI[c];
    opRuns.add(c * NL + l, x0, x0 + Math.max(1, x1 - x0));
  }
  opRuns.flush();
  paths.forEach((p, c) => { ctx.fillStyle = COLORS[c]; ctx.fill(p); });
}
// Holds: a band under each holder's lane, a bar per hold in its key's lane
// (brown past the lease end); merged into runs the same way.
function drawHolds(h) {
  const px = (W - GUT) / (v1 - v0), xMin = GUT - 2, xMax = W + 2;
  const KL = keyList.length, band = new Path2D(), bars = new Path2D(), expired = new Path2D();
  const bandY = new Float64Array(NL), bandH = new Float64Array(NL).fill(3);
  for (let l = 0; l < NL; l++) bandY[l] = laneY(l) + laneH - 4;
  const keyTop = new Float64Array(KL), keyH = new Float64Array(KL).fill(laneH - 2);
  for (let kl = 0; kl < KL; kl++) keyTop[kl] = keyY(kl) + 1;
  const bandRuns = runSet(() => band, NL, bandY, bandH), barRuns = runSet(() => bars, KL, keyTop, keyH);
  const expiredRuns = runSet(() => expired, KL, keyTop, keyH);
  const lastK = new Float64Array(KL).fill(-1e9), lastB = new Float64Array(NL).fill(-1e9);
  const always = highlightHolds.size > 0;
  for (let j = 0; j < HN; j++) {
    if (H.e[j] < v0 || H.s[j] > v1) continue;
    const x0 = Math.max(xMin, GUT + (H.s[j] - v0) * px), x1 = Math.min(xMax, GUT + (H.e[j] - v0) * px);
    const l = H.p[j];
    if (laneH >= 8 && x1 > lastB[l]) {
      lastB[l] = Math.floor(x1);
      bandRuns.add(l, x0, x0 + Math.max(1, x1 - x0));
    }
    const kl = keyLane[H.k[j]];
    if (kl < 0) continue;
    const y = keyTop[kl] - 1;
    if (y + laneH < AX || y > h) continue;
    const xe = H.x[j] >= 0 && H.x[j] < H.e[j] ? Math.max(x0, GUT + (H.x[j] - v0) * px) : x1;
    if (Math.floor(x1) > lastK[kl] || (always && highlightHolds.has(j))) {
      lastK[kl] = Math.floor(x1);
      barRuns.add(kl, x0, x0 + Math.max(1, xe - x0));
      if (xe < x1) expiredRuns.add(kl, xe, x1);
    }
  }
  [bandRuns, barRuns, expiredRuns].forEach(set => set.flush());
  ctx.fillStyle = 'rgba(59,125,216,.55)'; ctx.fill(band);
  ctx.fillStyle = 'rgba(59,125,216,.45)'; ctx.fill(bars);
  ctx.fillStyle = 'rgba(138,90,0,.6)'; ctx.fill(expired);
}
function draw() {
  pending = false;
  const h = viewH;
  ctx.clearRect(0, 0, W, h);
  ctx.save();
  ctx.beginPath(); ctx.rect(GUT, AX, W - GUT, h - AX); ctx.clip();
  for (let l = 0; l < NL; l++) {
    const y = laneY(l);
    if (y + laneHt(l) < AX || y > h) continue;
    ctx.fillStyle = l === nemLane ? '#f3effa' : (l % 2 ? '#fafbfc' : '#fff');
    ctx.fillRect(GUT, y, W - GUT, laneHt(l));
  }
  if (KEYHDR) {
    ctx.fillStyle = '#eef1f5'; ctx.fillRect(GUT, keyY(0) - KEYHDR, W - GUT, KEYHDR);
    for (let kl = 0; kl < keyList.length; kl++) {
      ctx.fillStyle = kl % 2 ? '#f6f9fd' : '#fff'; ctx.fillRect(GUT, keyY(kl), W - GUT, laneH);
    }
  }
  if (showFaults) {
    for (const f of D.faults) {
      if (f.point || !f.ok) continue;
      const x0 = Math.max(GUT, X(f.s)), x1 = Math.min(W, X(f.e));
      if (x1 < GUT || x0 > W) continue;
      ctx.fillStyle = f.open ? 'rgba(255,140,0,.10)' : 'rgba(255,140,0,.18)';
      ctx.fillRect(x0, AX, Math.max(1, x1 - x0), h - AX);
    }
  }
  drawFaultLanes(h);
  if (spanH) {
    ctx.fillStyle = 'rgba(255,220,0,.35)';
    ctx.fillRect(X(spanH[0]), AX, Math.max(2, X(spanH[1]) - X(spanH[0])), h - AX);
  }
  drawOps(h);
  if (showHolds && HN) {
    drawHolds(h);
    ctx.fillStyle = '#e0002a';
    for (const [kl, s, e] of overlaps) {
      if (e < v0 || s > v1) continue;
      const x0 = X(s); ctx.fillRect(x0, keyY(kl) + 1, Math.max(2, X(e) - x0), laneH - 2);
    }
  }
  ctx.lineWidth = 2; ctx.strokeStyle = '#111';
  for (const i of highlight) {
    const x0 = X(S[i]), x1 = X(E[i]), y = laneY(LANE[i]);
    ctx.strokeRect(x0 - 2, y - 1, Math.max(4, x1 - x0 + 4), laneHt(LANE[i]) + 2);
    ctx.fillStyle = '#111';
    ctx.beginPath(); ctx.moveTo(x0, y - 1); ctx.lineTo(x0 - 5, y - 8); ctx.lineTo(x0 + 5, y - 8); ctx.fill();
  }
  for (const j of highlightHolds) {
    const kl = keyLane[H.k[j]];
    if (kl < 0) continue;
    const x0 = X(H.s[j]);
    ctx.strokeRect(x0 - 1, keyY(kl), Math.max(3, X(H.e[j]) - x0 + 2), laneH);
  }
  ctx.restore();
  // Axis and lane labels.
  ctx.fillStyle = '#fff'; ctx.fillRect(0, 0, W, AX); ctx.fillRect(0, AX, GUT, h - AX);
  ctx.fillStyle = '#1d2430'; ctx.strokeStyle = '#c8ced8'; ctx.lineWidth = 1;
  ctx.font = '11px system-ui,sans-serif'; ctx.textBaseline = 'middle';
  const step = niceStep(v1 - v0, Math.max(2, (W - GUT) / 110));
  for (let t = Math.ceil(v0 / step) * step; t <= v1; t += step) {
    const x = Math.round(X(t)) + 0.5;
    ctx.beginPath(); ctx.moveTo(x, AX - 5); ctx.lineTo(x, AX); ctx.stroke();
    ctx.fillText(fmtTick(t, step), x + 3, AX / 2);
  }
  ctx.beginPath(); ctx.moveTo(GUT, AX - 0.5); ctx.lineTo(W, AX - 0.5); ctx.stroke();
  const every = Math.ceil(11 / laneH);
  ctx.save(); ctx.beginPath(); ctx.rect(0, AX, GUT, h - AX); ctx.clip();
  for (let l = 0; l < NL; l += (l === nemLane ? 1 : every)) {
    if (l === 1 && hasNem && laneH < 11) continue;  // would overlap the nemesis label
    const y = laneY(l);
    if (y + laneHt(l) < AX || y > h) continue;
    ctx.fillText(D.lanes[l], 4, y + laneHt(l) / 2);
  }
  for (let f = 0; f < FL.length; f++) {
    const y = faultY(f);
    if (y + flH(f) < AX || y > h) continue;
    ctx.fillStyle = famColor(FL[f]);
    ctx.fillText(FL[f].slice(0, 12), 4, y + flH(f) / 2);
  }
  ctx.fillStyle = '#1d2430';
  if (KEYHDR) {
    ctx.fillText('lock holds' + (keysDropped ? ' (' + MAX_KEY_LANES + ' keys)' : ''), 4, keyY(0) - KEYHDR / 2);
    for (let kl = 0; kl < keyList.length; kl += every) {
      const y = keyY(kl);
      if (y + laneH < AX || y > h) continue;
      ctx.fillText(D.keys[keyList[kl]].slice(0, 11), 4, y + laneH / 2);
    }
  }
  ctx.restore();
  document.getElementById('tl-range').textContent =
    fmtNs(v0) + ' – ' + fmtNs(v1) + ' (' + fmtNs(v1 - v0) + ' visible, ' + N + ' ops, ' +
    NL + ' lanes' + (contentH > viewH ? '; drag up/down for more lanes' : '') + ')';
}
function drawFaultLanes(h) {
  if (!FB) return;
  ctx.font = '10px system-ui,sans-serif'; ctx.textBaseline = 'middle';
  for (let f = 0; f < FL.length; f++) {
    const y = faultY(f);
    if (y + flH(f) < AX || y > h) continue;
    ctx.fillStyle = f % 2 ? '#f7f5fb' : '#fbfaf7'; ctx.fillRect(GUT, y, W - GUT, flH(f));
  }
  ctx.strokeStyle = '#c8ced8'; ctx.beginPath();
  ctx.moveTo(GUT, AX + FB - 2.5 - yOff); ctx.lineTo(W, AX + FB - 2.5 - yOff); ctx.stroke();
  // A client pause also shows on the paused holder's own lane, a client
  // crash as a mark on the crashed worker's.
  for (const ft of D.faults) {
    if (ft.proc < 0 || !procLane.has(ft.proc)) continue;
    if (ft.family === 'client-crash') {
      const l = procLane.get(ft.proc), x = X(ft.s);
      if (x < GUT || x > W) continue;
      ctx.fillStyle = famColor(ft.family); ctx.fillRect(x - 1.5, laneY(l), 3, laneHt(l));
      continue;
    }
    if (ft.family !== 'client-pause') continue;
    const l = procLane.get(ft.proc), y = laneY(l), x0 = Math.max(GUT, X(ft.s));
    const x1 = Math.min(W, X(ft.e));
    if (x1 < GUT || x0 > W) continue;
    ctx.fillStyle = 'rgba(123,79,201,.22)';
    ctx.fillRect(x0, y, Math.max(2, x1 - x0), laneHt(l));
    ctx.strokeStyle = '#7b4fc9'; ctx.lineWidth = 1;
    ctx.strokeRect(x0 + .5, y + .5, Math.max(2, x1 - x0) - 1, laneHt(l) - 1);
  }
  for (const ft of D.faults) {
    const y = faultY(ft.lane), fh = flH(ft.lane);
    if (y + fh < AX || y > h) continue;
    const col = famColor(ft.family), x0 = X(ft.s);
    if (ft.point) {
      if (x0 < GUT - 4 || x0 > W + 4) continue;
      ctx.fillStyle = col; ctx.beginPath();
      ctx.moveTo(x0, y + 2); ctx.lineTo(x0 + 5, y + fh / 2); ctx.lineTo(x0, y + fh - 2);
      ctx.lineTo(x0 - 5, y + fh / 2); ctx.fill();
      continue;
    }
    const a = Math.max(GUT, x0), b = Math.min(W, X(ft.e));
    if (b < GUT || a > W) continue;
    const bh = ft.lane === clockLane && D.clocks.length ? 6 : fh - 4;
    ctx.globalAlpha = ft.ok ? (ft.open ? 0.45 : 0.8) : 0.25;
    ctx.fillStyle = col; ctx.fillRect(a, y + 2, Math.max(2, b - a), bh);
    ctx.globalAlpha = 1;
    if (b - a > 40 && bh > 8) {
      ctx.save(); ctx.beginPath(); ctx.rect(a, y, b - a - 2, fh); ctx.clip();
      ctx.fillStyle = '#fff'; ctx.fillText(ft.label, a + 3, y + fh / 2);
      ctx.restore();
    }
  }
  // Clock offsets per node as observed, a step line each, between the
  // lowest and highest offset seen.
  if (clockLane >= 0 && D.clocks.length) {
    const y = faultY(clockLane) + 10, ch = CLOCKH - 14;
    let lo = 0, hi = 0;
    for (const c of D.clocks) for (const v of c.ms) { lo = Math.min(lo, v); hi = Math.max(hi, v); }
    const Y = v => y + ch - (v - lo) / Math.max(1, hi - lo) * ch;
    ctx.strokeStyle = '#cfd8dc'; ctx.beginPath();
    ctx.moveTo(GUT, Y(0)); ctx.lineTo(W, Y(0)); ctx.stroke();
    D.clocks.forEach((c, n) => {
      const dy = n * 0.8, last = c.ms.length - 1;
      ctx.strokeStyle = 'hsl(' + ((n * 67 + 180) % 360) + ',70%,35%)'; ctx.lineWidth = 1.5;
      ctx.beginPath();
      for (let k = 0; k <= last; k++) {
        const x = X(c.t[k]), yy = Y(c.ms[k]) + dy;
        if (k === 0) ctx.moveTo(x, yy);
        else { ctx.lineTo(x, Y(c.ms[k - 1]) + dy); ctx.lineTo(x, yy); }
      }
      ctx.lineTo(W, Y(c.ms[last]) + dy); ctx.stroke();
    });
    const mx = Math.max(hi, -lo);
    ctx.lineWidth = 1; ctx.fillStyle = '#00838f';
    ctx.fillText('offsets up to ' + fmtNs(mx * 1e6), GUT + 4, y + 2);
  }
}
function faultsAt(f, t, tol) {
  const out = [];
  for (const ft of D.faults) {
    if (ft.lane !== f) continue;
    if (ft.point ? Math.abs(ft.s - t) <= 3 * tol : ft.s - tol <= t && t <= ft.e + tol) out.push(ft);
  }
  return out;
}
function describeFault(ft) {
  return [ft.family + ': ' + ft.label + (ft.ok ? '' : ' (no effect)'),
    ft.point ? 'at ' + fmtNs(ft.s)
      : fmtNs(ft.s) + ' \u2013 ' + (ft.open ? 'not healed' : fmtNs(ft.e))];
}
function clockAt(t) {
  const lines = [];
  for (const c of D.clocks) {
    const k = lowerBound(c.t, t + 1) - 1;
    if (k >= 0) lines.push(c.node + ' observed offset ' + fmtNs(c.ms[k] * 1e6));
  }
  return lines;
}
function setView(a, b) {
  const minSpan = 1000, pad = T1 * 0.05;
  if (b - a < minSpan) { const m = (a + b) / 2; a = m - minSpan / 2; b = m + minSpan / 2; }
  const span = b - a;
  if (span > T1 + 2 * pad) { a = -pad; b = T1 + pad; }
  else { if (a < -pad) { b += -pad - a; a = -pad; } if (b > T1 + pad) { a -= b - T1 - pad; b = T1 + pad; } }
  v0 = a; v1 = b; schedule();
}
function zoom(factor, t) { setView(t - (t - v0) * factor, t + (v1 - t) * factor); }
function setYOff(y) { yOff = Math.max(0, Math.min(contentH - viewH, y)); schedule(); }

// Hit testing for the tooltip.
function opAt(l, t, tol) {
  const rows = laneRows()[l];
  let lo = 0, hi = rows.length;
  while (lo < hi) { const m = (lo + hi) >> 1; if (S[rows[m]] <= t + tol) lo = m + 1; else hi = m; }
  let best = -1, bestD = Infinity;
  for (let k = lo - 1; k >= 0 && k >= lo - 4; k--) {
    const i = rows[k], d = t < S[i] ? S[i] - t : t > E[i] ? t - E[i] : 0;
    if (d <= tol && d < bestD) { best = i; bestD = d; }
  }
  return best;
}
function describeOp(i) {
  const ci = opIds().ci[i], idx = opIds().idx[i], kind = KIND[i], lines = [];
  const who = processOf(i);
  lines.push('#' + idx + '  ' + who + '  ' + D.fs[KF[kind]] + (KK[kind] >= 0 ? '  ' + D.keys[KK[kind]] : ''));
  lines.push(OUTCOME[KO[kind]] + (DUR[i] >= 0 ? ' after ' + fmtNs(DUR[i]) : ''));
  lines.push('invoke @ ' + fmtNs(S[i]) + (ci >= 0 ? '   completion #' + (idx + ci) + ' @ ' + fmtNs(E[i]) : ''));
  if (KE[kind] >= 0) lines.push('error: ' + D.errors[KE[kind]]);
  if (VAL.has(i)) lines.push('value: ' + VAL.get(i));
  else if (D.values.truncated) lines.push('value: see history.jsonl');
  return lines;
}
function describeHold(j) {
  const lines = ['lock ' + D.keys[H.k[j]] + ' held by process ' + processAt(H.p[j], H.s[j]),
    fmtNs(H.s[j]) + ' – ' + fmtNs(H.e[j]) + (holdIds().open[j] ? ' (never released)' : '') +
    ' acquired by #' + holdIds().acquire[j]];
  if (H.x[j] >= 0) lines.push('lease valid until ' + fmtNs(H.x[j]) + (H.x[j] < H.e[j] ? ' — held ' + fmtNs(H.e[j] - H.x[j]) + ' past it' : ''));
  return lines;
}
function hover(ev) {
  const r = tl.getBoundingClientRect(), x = ev.clientX - r.left, y = ev.clientY - r.top;
  if (x < GUT || y < AX) { tip.hidden = true; return; }
  const t = T(x), tol = 3 * (v1 - v0) / (W - GUT);
  let lines = [];
  const l = laneAt(y + yOff - AX), fy = y + yOff - AX;
  if (fy >= 0 && fy < FB) {
    for (let f = 0; f < FL.length; f++) {
      if (fy < flTop[f] || fy >= flTop[f] + flH(f)) continue;
      for (const ft of faultsAt(f, t, tol).slice(0, 8)) lines = lines.concat(describeFault(ft));
      if (f === clockLane) lines = lines.concat(clockAt(t));
    }
  } else if (l >= 0 && l < NL) {
    const i = opAt(l, t, tol);
    if (i >= 0) lines = describeOp(i);
  } else {
    const kl = Math.floor((y + yOff - AX - FB - procH - KEYHDR) / laneH);
    if (kl >= 0 && kl < keyList.length) {
      const list = keyHolds()[kl];
      let lo = 0, hi = list.length;
      while (lo < hi) { const m = (lo + hi) >> 1; if (H.s[list[m]] <= t + tol) lo = m + 1; else hi = m; }
      for (let k = lo - 1, seen = 0; k >= 0 && seen < 4000; k--, seen++) {
        const j = list[k];
        if (H.e[j] >= t - tol) { if (lines.length) lines.push(''); lines = lines.concat(describeHold(j)); }
        if (lines.length > 24) break;
      }
    }
  }
  if (showFaults) {
    for (const f of D.faults) {
      if (f.point || f.s > t || t > f.e || fy < FB) continue;
      lines.push('fault ' + f.label + ' since ' + fmtNs(f.s) +
        (f.open ? ' (not healed)' : ' until ' + fmtNs(f.e)));
    }
  }
  if (!lines.length) { tip.hidden = true; return; }
  tip.textContent = lines.join('\n');
  tip.hidden = false;
  const tw = tip.offsetWidth, th = tip.offsetHeight;
  tip.style.left = Math.max(0, Math.min(W - tw, x + 14)) + 'px';
  tip.style.top = (y + 16 + th > viewH ? Math.max(0, y - th - 8) : y + 16) + 'px';
}

let drag = null;
tl.addEventListener('wheel', ev => {
  ev.preventDefault();
  const r = tl.getBoundingClientRect(), x = ev.clientX - r.left;
  if (ev.shiftKey) { setYOff(yOff + ev.deltaY); return; }
  if (Math.abs(ev.deltaX) > Math.abs(ev.deltaY)) {
    const dt = ev.deltaX * (v1 - v0) / (W - GUT); setView(v0 + dt, v1 + dt); return;
  }
  zoom(Math.exp(ev.deltaY * 0.0015), T(Math.max(GUT, x)));
}, { passive: false });
tl.addEventListener('mousedown', ev => { drag = { x: ev.clientX, y: ev.clientY, v0, v1, yOff }; tl.classList.add('dragging'); tip.hidden = true; });
window.addEventListener('mouseup', () => { drag = null; tl.classList.remove('dragging'); });
window.addEventListener('mousemove', ev => {
  if (!drag) return;
  const dt = (drag.x - ev.clientX) * (drag.v1 - drag.v0) / (W - GUT);
  setView(drag.v0 + dt, drag.v1 + dt);
  setYOff(drag.yOff + drag.y - ev.clientY);
});
tl.addEventListener('mousemove', ev => { if (!drag) hover(ev); });
tl.addEventListener('mouseleave', () => { tip.hidden = true; });
tl.addEventListener('dblclick', () => setView(0, T1));
document.querySelectorAll('.controls button').forEach(b => b.addEventListener('click', () => {
  const m = (v0 + v1) / 2;
  if (b.dataset.act === 'fit') setView(0, T1);
  else zoom(b.dataset.act === 'in' ? 0.5 : 2, m);
}));
document.getElementById('tl-faults').addEventListener('change', e => { showFaults = e.target.checked; schedule(); });
document.getElementById('tl-holds').addEventListener('change', e => { showHolds = e.target.checked; schedule(); });

// Anomaly ops: highlight them and zoom the timeline to them.
function focusOps(indices, span, el) {
  const want = new Set(indices);
  highlight = [];
  const completions = new Set(), CIS = opIds().ci, IDXS = opIds().idx;
  for (let i = 0; i < N; i++) {
    const ci = CIS[i], idx = IDXS[i];
    if (want.has(idx) || (ci >= 0 && want.has(idx + ci))) {
      highlight.push(i);
      if (ci >= 0) completions.add(idx + ci);
    }
  }
  highlightHolds = new Set();
  const acq = holdIds().acquire;
  for (let j = 0; j < HN; j++) if (want.has(acq[j]) || completions.has(acq[j])) highlightHolds.add(j);
  spanH = span ? span.split(',').map(v => v === 'end' ? T1 : Number(v)) : null;
  let a = Infinity, b = -Infinity;
  for (const i of highlight) { a = Math.min(a, S[i]); b = Math.max(b, DUR[i] >= 0 ? E[i] : S[i]); }
  for (const j of highlightHolds) { a = Math.min(a, H.s[j]); b = Math.max(b, H.e[j]); }
  if (spanH) { a = Math.min(a, spanH[0]); b = Math.max(b, spanH[1]); }
  document.querySelectorAll('.anomaly.selected').forEach(n => n.classList.remove('selected'));
  if (el) el.classList.add('selected');
  if (a <= b) {
    const pad = Math.max((b - a) * 0.25, 1e6);
    setView(a - pad, b + pad);
    if (highlight.length) {
      const y = laneY(LANE[highlight[0]]) + yOff;
      if (y < yOff + AX || y > yOff + viewH - laneH) setYOff(y - AX - 2 * laneH);
    }
  }
  schedule();
  document.getElementById('timeline').scrollIntoView({ behavior: 'smooth', block: 'start' });
}
document.addEventListener('click', ev => {
  const chip = ev.target.closest('a.opref');
  if (chip) { ev.preventDefault(); focusOps([Number(chip.dataset.idx)], null, chip.closest('.anomaly')); return; }
  const btn = ev.target.closest('button.show');
  if (btn) {
    const a = btn.closest('.anomaly');
    focusOps(a.dataset.ops.split(',').filter(Boolean).map(Number), a.dataset.span || null, a);
  }
});

// ---------------------------------------------------------------- plots
const P = D.plots;
function chart(id, yLo, yHi, yLog, yFmt) {
  const c = document.getElementById(id);
  const { ctx, w, h } = setup(c, 300);
  const L = 62, R = 10, TP = 10, B = 24;
  const X = t => L + t / T1 * (w - L - R);
  const ly0 = yLog ? Math.log10(Math.max(yLo, 1)) : yLo, ly1 = yLog ? Math.log10(Math.max(yHi, yLo * 10, 10)) : Math.max(yHi, yLo + 1);
  const Y = v => { const u = yLog ? Math.log10(Math.max(v, 1)) : v; return h - B - (u - ly0) / (ly1 - ly0) * (h - B - TP); };
  ctx.fillStyle = '#fff'; ctx.fillRect(0, 0, w, h);
  for (const f of D.faults) {
    if (f.point || !f.ok) continue;
    ctx.fillStyle = 'rgba(255,140,0,.16)';
    ctx.fillRect(X(f.s), TP, Math.max(1, X(f.e) - X(f.s)), h - B - TP);
  }
  ctx.strokeStyle = '#e3e6eb'; ctx.fillStyle = '#555'; ctx.font = '11px system-ui,sans-serif'; ctx.lineWidth = 1;
  ctx.textBaseline = 'middle'; ctx.textAlign = 'right';
  const ticks = [];
  if (yLog) for (let e = Math.floor(ly0); e <= Math.ceil(ly1); e++) ticks.push(Math.pow(10, e));
  else { const st = niceStep(ly1 - ly0, 5); for (let v = Math.ceil(ly0 / st) * st; v <= ly1; v += st) ticks.push(v); }
  for (const v of ticks) {
    const y = Math.round(Y(v)) + 0.5;
    if (y < TP - 1 || y > h - B + 1) continue;
    ctx.beginPath(); ctx.moveTo(L, y); ctx.lineTo(w - R, y); ctx.stroke();
    ctx.fillText(yFmt(v), L - 4, y);
  }
  ctx.textAlign = 'center'; ctx.textBaseline = 'top';
  const st = niceStep(T1, Math.max(2, (w - L) / 90));
  for (let t = 0; t <= T1; t += st) ctx.fillText(fmtTick(t, st), X(t), h - B + 5);
  ctx.strokeStyle = '#9aa0a6'; ctx.strokeRect(L + 0.5, TP + 0.5, w - L - R, h - B - TP);
  ctx.save(); ctx.beginPath(); ctx.rect(L, TP, w - L - R, h - B - TP); ctx.clip();
  return { ctx, X, Y, w, h, L, R, TP, B, done: () => ctx.restore() };
}
function legend(g, items) {
  const ctx = g.ctx; ctx.restore(); ctx.font = '11px system-ui,sans-serif'; ctx.textAlign = 'left'; ctx.textBaseline = 'middle';
  let x = g.L + 8;
  for (const [label, color, dash] of items) {
    ctx.strokeStyle = color; ctx.fillStyle = color; ctx.lineWidth = 2; ctx.setLineDash(dash || []);
    ctx.beginPath(); ctx.moveTo(x, g.TP + 10); ctx.lineTo(x + 14, g.TP + 10); ctx.stroke(); ctx.setLineDash([]);
    ctx.fillStyle = '#333'; ctx.fillText(label, x + 18, g.TP + 10); x += 26 + ctx.measureText(label).width;
  }
}
// The latency grid's cells: a packed table of (cell minus the previous
// one, count - 1), a cell being (x * yb + y) * 3 + outcome; unpacked as
// (x, y, outcome, count).
function unpackCells(sc) {
  const c = new Float64Array(sc.n * 4), cells = reader(sc.cells);
  for (let i = 0, cell = 0; i < sc.n; i++) {
    cell += cells.next();
    const o = cell % 3, xy = (cell - o) / 3;
    c[4 * i] = Math.floor(xy / sc.yb); c[4 * i + 1] = xy % sc.yb; c[4 * i + 2] = o; c[4 * i + 3] = cells.next() + 1;
  }
  return c;
}
// Tens of thousands of small translucent cells: blended into a pixel
// buffer (premultiplied, in order, as the canvas would), then one image;
// far cheaper than rasterizing each. Cell columns x span pixels
// [xl[x], xr[x]), rows y [yt[y], yb[y]).
function blendCells(c, maxN, xl, xr, yt, yb, pw, ph) {
  const acc = new Float32Array(pw * ph * 4), logMax = Math.log(1 + maxN);
  const rgb = COLORS.map(hex => [1, 3, 5].map(k => parseInt(hex.slice(k, k + 2), 16)));
  for (let i = 0; i < c.length; i += 4) {
    const a = 0.25 + 0.75 * Math.log(1 + c[i + 3]) / logMax, k = 1 - a;
    const col = rgb[c[i + 2]], r = col[0] * a, gr = col[1] * a, b = col[2] * a;
    const x0 = xl[c[i]], x1 = xr[c[i]], y1 = yb[c[i + 1]];
    for (let y = yt[c[i + 1]]; y < y1; y++) {
      for (let x = x0, o = (y * pw + x0) * 4; x < x1; x++, o += 4) {
        acc[o] = r + acc[o] * k; acc[o + 1] = gr + acc[o + 1] * k;
        acc[o + 2] = b + acc[o + 2] * k; acc[o + 3] = a + acc[o + 3] * k;
      }
    }
  }
  const img = new ImageData(pw, ph), px = img.data;
  for (let o = 0; o < acc.length; o += 4) {
    const a = acc[o + 3];
    if (a <= 0) continue;
    px[o] = acc[o] / a; px[o + 1] = acc[o + 1] / a; px[o + 2] = acc[o + 2] / a; px[o + 3] = a * 255;
  }
  return img;
}
function drawPlots() {
  const sc = P.sc;
  if (sc.mode === 'raw') {
    let hi = 10; for (const l of sc.l) hi = Math.max(hi, l);
    let lo = hi; for (const l of sc.l) lo = Math.min(lo, Math.max(l, 1));
    const g = chart('p-scatter', Math.max(1, lo / 2), hi * 2, true, fmtNs);
    for (let i = 0; i < sc.t.length; i++) {
      g.ctx.fillStyle = COLORS[sc.o[i]]; g.ctx.globalAlpha = 0.7;
      g.ctx.fillRect(g.X(sc.t[i]) - 1.5, g.Y(Math.max(sc.l[i], 1)) - 1.5, 3, 3);
    }
    g.ctx.globalAlpha = 1;
    legend(g, [['ok', COLORS[0]], ['fail', COLORS[1]], ['info', COLORS[2]]]);
  } else {
    const g = chart('p-scatter', sc.lmin / 1.5, sc.lmax * 1.5, true, fmtNs);
    const ll0 = Math.log10(sc.lmin), ll1 = Math.log10(sc.lmax);
    const c = unpackCells(sc);
    let maxN = 1; for (let i = 3; i < c.length; i += 4) if (c[i] > maxN) maxN = c[i];
    const cw = Math.max(2, (g.w - g.L - g.R) / sc.xb);
    // Each column's and row's pixels in the plot area, then the cells.
    const dpr = window.devicePixelRatio || 1;
    const ox = Math.round(g.L * dpr), oy = Math.round(g.TP * dpr);
    const pw = Math.max(1, Math.round((g.w - g.R) * dpr) - ox), ph = Math.max(1, Math.round((g.h - g.B) * dpr) - oy);
    const xl = new Int32Array(sc.xb), xr = new Int32Array(sc.xb), yt = new Int32Array(sc.yb), yb = new Int32Array(sc.yb);
    for (let x = 0; x < sc.xb; x++) {
      const cx = g.X((x + 0.5) / sc.xb * T1);
      xl[x] = Math.max(0, Math.round((cx - cw / 2) * dpr) - ox); xr[x] = Math.min(pw, Math.round((cx + cw / 2) * dpr) - ox);
    }
    for (let y = 0; y < sc.yb; y++) {
      const cy = g.Y(Math.pow(10, ll0 + (y + 0.5) / sc.yb * (ll1 - ll0)));
      yt[y] = Math.max(0, Math.round((cy - 1.5) * dpr) - oy); yb[y] = Math.min(ph, Math.round((cy + 1.5) * dpr) - oy);
    }
    const img = blendCells(c, maxN, xl, xr, yt, yb, pw, ph);
    const layer = document.createElement('canvas');
    layer.width = pw; layer.height = ph;
    layer.getContext('2d').putImageData(img, 0, 0);
    g.ctx.save(); g.ctx.setTransform(1, 0, 0, 1, 0, 0); g.ctx.drawImage(layer, ox, oy); g.ctx.restore();
    g.ctx.globalAlpha = 1;
    legend(g, [['ok', COLORS[0]], ['fail', COLORS[1]], ['info', COLORS[2]], ['(density)', '#fff']]);
  }
  {
    let lo = Infinity, hi = 10;
    for (const s of P.q) for (const k of ['p50', 'max']) for (const v of s[k]) if (v >= 0) { lo = Math.min(lo, Math.max(v, 1)); hi = Math.max(hi, v); }
    if (!isFinite(lo)) lo = 1;
    const g = chart('p-quant', lo / 1.5, hi * 1.5, true, fmtNs), bw = P.bucket_ns;
    const pal = ['#2456a6', '#d6455d', '#2e9e4f', '#7b4fc9', '#e8a317', '#00897b', '#6d4c41', '#c2185b'];
    const items = [];
    P.q.forEach((s, n) => {
      const color = pal[n % pal.length];
      items.push([s.f, color]);
      [['p50', []], ['p95', [6, 3]], ['p99', [2, 3]]].forEach(([k, dash]) => {
        g.ctx.strokeStyle = color; g.ctx.lineWidth = 1.5; g.ctx.setLineDash(dash); g.ctx.beginPath();
        let open = false;
        s[k].forEach((v, b) => {
          if (v < 0) { open = false; return; }
          const x = g.X((b + 0.5) * bw), y = g.Y(Math.max(v, 1));
          if (open) g.ctx.lineTo(x, y); else g.ctx.moveTo(x, y);
          open = true;
        });
        g.ctx.stroke();
      });
    });
    g.ctx.setLineDash([]);
    legend(g, items.slice(0, 8));
  }
  {
    const tp = P.tp, sec = P.bucket_ns / 1e9, keys = ['ok', 'fail', 'info'];
    let hi = 1; for (const k of keys) for (const v of tp[k]) hi = Math.max(hi, v / sec);
    const g = chart('p-tp', 0, hi * 1.1, false, v => v >= 1000 ? (v / 1000).toPrecision(3) + 'k' : String(Math.round(v * 10) / 10));
    keys.forEach((k, n) => {
      g.ctx.strokeStyle = COLORS[n]; g.ctx.lineWidth = 1.5; g.ctx.beginPath();
      tp[k].forEach((v, b) => { const x = g.X((b + 0.5) * P.bucket_ns), y = g.Y(v / sec); if (b) g.ctx.lineTo(x, y); else g.ctx.moveTo(x, y); });
      g.ctx.stroke();
    });
    legend(g, keys.map((k, n) => [k + '/s', COLORS[n]]));
  }
}
// The resource's reads and writes (inventory, counter): each key's value
// over time; acknowledged writes as a line, reads as dots (one per pixel),
// init and final reads as squares.
function drawResource() {
  if (!document.getElementById('p-res')) return;
  const R = D.res, n = R.t.length, TT = new Float64Array(n);
  for (let i = 0, t = 0; i < n; i++) { t += R.t[i]; TT[i] = t; }
  let lo = Infinity, hi = -Infinity;
  for (const v of R.v) { lo = Math.min(lo, v); hi = Math.max(hi, v); }
  if (!isFinite(lo)) return;
  const pad = Math.max(1, (hi - lo) * 0.05);
  const g = chart('p-res', lo - pad, hi + pad, false, v => String(Math.round(v)));
  const keys = [...new Set(R.k)].slice(0, 8), items = [];
  for (const k of keys) {
    const color = keyColor(k);
    items.push([D.keys[k], color]);
    g.ctx.strokeStyle = color; g.ctx.lineWidth = 1.2; g.ctx.beginPath();
    let started = false, lastPx = -1;
    for (let i = 0; i < n; i++) {
      if (R.k[i] !== k || R.kind[i] !== 1 || R.o[i] !== 0) continue;
      const x = g.X(TT[i]), y = g.Y(R.v[i]);
      if (started) g.ctx.lineTo(x, y); else g.ctx.moveTo(x, y);
      started = true;
    }
    g.ctx.stroke();
    g.ctx.fillStyle = color;
    for (let i = 0; i < n; i++) {
      if (R.k[i] !== k) continue;
      const x = g.X(TT[i]), y = g.Y(R.v[i]);
      if (R.kind[i] >= 2) { g.ctx.fillRect(x - 3, y - 3, 6, 6); continue; }
      if (R.kind[i] !== 0 || Math.floor(x) === lastPx) continue;
      lastPx = Math.floor(x);
      g.ctx.globalAlpha = 0.5; g.ctx.fillRect(x - 1, y - 1, 2, 2); g.ctx.globalAlpha = 1;
    }
  }
  legend(g, items);
}
window.addEventListener('resize', () => { resize(); drawPlots(); drawResource(); });
drawResource();
resize();
drawPlots();
// #anomaly-N in the URL (links from the suite index or a CI comment) opens
// the report focused on that anomaly.
// Anomalies past the first few come as text (the page's first frame does
// not wait for their markup): added after that frame, or at once when a
// link asks for one of them.
function moreAnomalies() {
  const text = document.getElementById('anomalies-more');
  if (!text) return;
  text.remove();
  document.getElementById('anomalies-later').insertAdjacentHTML('beforeend', text.textContent);
}
function focusHash() {
  const m = /^#anomaly-(\d+)$/.exec(location.hash);
  if (m && !document.getElementById('anomaly-' + m[1])) moreAnomalies();
  const a = m && document.getElementById('anomaly-' + m[1]);
  if (a) focusOps(a.dataset.ops.split(',').filter(Boolean).map(Number), a.dataset.span || null, a);
}
window.addEventListener('hashchange', focusHash);
focusHash();
// Lets tooling measure time to first paint (ms since navigation start).
// The browser's own first-contentful-paint, when it reports one, beside it.
// What the timeline drew, for tests: its fault lanes and clock nodes.
tl.dataset.faultLanes = FL.join(',');
tl.dataset.clockNodes = D.clocks.map(c => c.node).join(',');
requestAnimationFrame(() => {
  document.documentElement.dataset.firstPaintMs = Math.round(performance.now());
  setTimeout(moreAnomalies, 0);
  setTimeout(() => {
    const fcp = performance.getEntriesByName('first-contentful-paint')[0];
    if (fcp) document.documentElement.dataset.fcpMs = Math.round(fcp.startTime);
  }, 0);
});
})();
)JS";

}  // namespace

std::string_view HtmlReportCss() { return kCss; }
std::string_view HtmlReportJs() { return kJs; }

}  // namespace locksmith
