// report.html's data (ReportModel::AppendJson), decoded once: the ops and
// holds from their packed tables into typed arrays, the lanes, and what
// only hovering or a click needs on first use. The page's scripts run in
// one function, in the order reports/html_template.cc gives them; this one
// first.
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
// Each kind's colour on the timeline: its outcome's, or the nemesis's for
// an op a client records when a fault hits it (a stalled holder's).
const faultFs = new Set(D.fault_fs);
const KCOLOR = KF.map((f, k) => faultFs.has(D.fs[f]) ? 4 : KO[k]);
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

