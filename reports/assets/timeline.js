// The timeline: its layout (fault lanes, the nemesis lane, a lane per
// client, a lane per lock key) and its drawing, merged into few paths so a
// million ops draw at once.
const tl = document.getElementById('tl'), tip = document.getElementById('tip');
const GUT = 70, AX = 22, KEYHDR = keyList.length ? 20 : 0;
const totalLanes = NL + keyList.length;
// Fault lanes, one per nemesis family (and promotions, lost locks), above
// the op lanes, each with its label, colour and client mark from the data;
// the lane whose ops observed the clocks is taller: it plots each node's
// offset.
const FL = D.fault_lanes, FLH = 16, CLOCKH = 46;
const clockLane = D.clock_lane;
const flTop = [];
let FB = 0;
for (let f = 0; f < FL.length; f++) {
  flTop.push(FB);
  FB += f === clockLane && D.clocks.length ? CLOCKH : FLH;
}
if (FB) FB += 4;
const flH = f => (f === clockLane && D.clocks.length ? CLOCKH : FLH);
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
  drawLabels(h);
  document.getElementById('tl-range').textContent =
    fmtNs(v0) + ' – ' + fmtNs(v1) + ' (' + fmtNs(v1 - v0) + ' visible, ' + N + ' ops, ' +
    NL + ' lanes' + (contentH > viewH ? '; drag up/down for more lanes' : '') + ')';
}
// The time axis and the lanes' labels in the gutter.
function drawLabels(h) {
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
    ctx.fillStyle = FL[f].color;
    ctx.fillText(FL[f].label.slice(0, 12), 4, y + flH(f) / 2);
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
}
