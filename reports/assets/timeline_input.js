// The timeline's controls: zoom and pan (wheel, drag, buttons), the
// tooltip of what is under the pointer, and focusing an anomaly's ops.
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
  else if (D.values.truncated) lines.push('value: see the history (locksmith export RUN_DIR)');
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

