// The plots under the timeline: latency over time (points, or a density
// grid blended into one image), latency quantiles per f, throughput per
// outcome, and the resource's values over time; fault windows shaded.
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
