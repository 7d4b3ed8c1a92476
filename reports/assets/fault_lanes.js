// The fault lanes above the op lanes: each fault a bar (a diamond for a
// point event) in its lane's colour, the clients a fault hit marked on their
// own lanes as the lane's data says (shaded for the window, or a tick where
// it began), and each node's observed clock offset in the lane whose ops
// observed it. Hover text for faults and clocks. Knows no family by name.
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
  drawClientMarks();
  drawFaultBars(h);
  if (clockLane >= 0 && D.clocks.length) drawClocks();
}
// A fault that hit a client also shows on that client's own lane.
function drawClientMarks() {
  for (const ft of D.faults) {
    if (ft.proc < 0 || !procLane.has(ft.proc) || ft.lane < 0) continue;
    const mark = FL[ft.lane].mark, col = FL[ft.lane].color, l = procLane.get(ft.proc);
    if (mark === 'tick') {
      const x = X(ft.s);
      if (x < GUT || x > W) continue;
      ctx.fillStyle = col; ctx.fillRect(x - 1.5, laneY(l), 3, laneHt(l));
      continue;
    }
    if (mark !== 'span') continue;
    const y = laneY(l), x0 = Math.max(GUT, X(ft.s)), x1 = Math.min(W, X(ft.e));
    if (x1 < GUT || x0 > W) continue;
    ctx.globalAlpha = 0.22; ctx.fillStyle = col;
    ctx.fillRect(x0, y, Math.max(2, x1 - x0), laneHt(l));
    ctx.globalAlpha = 1; ctx.strokeStyle = col; ctx.lineWidth = 1;
    ctx.strokeRect(x0 + .5, y + .5, Math.max(2, x1 - x0) - 1, laneHt(l) - 1);
  }
}
function drawFaultBars(h) {
  for (const ft of D.faults) {
    const y = faultY(ft.lane), fh = flH(ft.lane);
    if (y + fh < AX || y > h) continue;
    const col = FL[ft.lane].color, x0 = X(ft.s);
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
}
// Clock offsets per node as observed, a step line each, between the
// lowest and highest offset seen.
function drawClocks() {
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
  ctx.lineWidth = 1; ctx.fillStyle = FL[clockLane].color;
  ctx.fillText('offsets up to ' + fmtNs(mx * 1e6), GUT + 4, y + 2);
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
  return [FL[ft.lane].label + ': ' + ft.label + (ft.ok ? '' : ' (no effect)'),
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
