// Helpers of the timeline and the plots: binary search, times for people,
// axis ticks, and a canvas sized for the screen's pixel ratio.
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

