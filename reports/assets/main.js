// Starts the page: draws the timeline and the plots (again on resize),
// adds the anomalies that came as text, focuses the anomaly the URL names,
// and leaves what tooling and tests read.
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
tl.dataset.faultLanes = FL.map(l => l.label).join(',');
tl.dataset.clockNodes = D.clocks.map(c => c.node).join(',');
requestAnimationFrame(() => {
  document.documentElement.dataset.firstPaintMs = Math.round(performance.now());
  setTimeout(moreAnomalies, 0);
  setTimeout(() => {
    const fcp = performance.getEntriesByName('first-contentful-paint')[0];
    if (fcp) document.documentElement.dataset.fcpMs = Math.round(fcp.startTime);
  }, 0);
});
