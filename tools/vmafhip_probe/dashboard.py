"""vmafhip-probe's live dashboard: the page and its script, served as
/ and /static/dashboard.js (Chart.js where the machine has it, else
plain lines drawn on a canvas)."""

DASHBOARD_HTML = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>vmafhip probe</title>
<style>
body { font: 14px/1.4 system-ui, sans-serif; margin: 0; background: #f4f5f7;
       color: #1d2330; }
header { padding: 10px 18px; background: #1d2330; color: #fff;
         display: flex; gap: 18px; align-items: baseline; }
header h1 { font-size: 18px; margin: 0; }
header span { opacity: .75; }
#channels { display: grid; gap: 14px; padding: 14px;
            grid-template-columns: repeat(auto-fill, minmax(420px, 1fr)); }
.panel { background: #fff; border-radius: 6px; padding: 10px 14px;
         box-shadow: 0 1px 3px rgba(0,0,0,.15); border-top: 4px solid #999; }
.panel.running { border-top-color: #2f9e44; }
.panel.restarting, .panel.starting { border-top-color: #f08c00; }
.panel.failed, .panel.alarm { border-top-color: #e03131; }
.panel h2 { font-size: 16px; margin: 0 0 6px; display: flex;
            justify-content: space-between; }
.badge { font-size: 12px; padding: 1px 8px; border-radius: 10px;
         background: #dee2e6; }
.badge.running { background: #d3f9d8; } .badge.failed { background: #ffc9c9; }
.badge.restarting, .badge.starting { background: #ffe8cc; }
.stats { display: grid; grid-template-columns: repeat(4, 1fr); gap: 4px;
         margin-bottom: 6px; }
.stat b { display: block; font-size: 18px; }
.stat small { color: #667; }
.alarm-on { color: #e03131; font-weight: bold; }
.reason { color: #a61e4d; font-size: 12px; min-height: 1em;
          overflow-wrap: anywhere; }
.chart-box { position: relative; height: 180px; }
canvas.chart { width: 100%; height: 180px; }
</style>
</head>
<body>
<header><h1>vmafhip probe</h1><span id="status">connecting</span></header>
<main id="channels"></main>
<script src="static/chart.js"></script>
<script src="static/dashboard.js"></script>
</body>
</html>
"""

DASHBOARD_JS = r"""'use strict';
const panels = new Map();
let updates = 0;
const haveChart = typeof Chart !== 'undefined';
document.body.dataset.charting = haveChart ? 'chart.js' : 'canvas';

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}
function fmt(v, digits) {
  return (v === null || v === undefined) ? '\u2013' : v.toFixed(digits);
}
function stat(label) {
  const d = el('div', 'stat');
  const b = el('b', null, '\u2013');
  d.append(b, el('small', null, label));
  return [d, b];
}
const COLORS = ['#1971c2', '#e8590c', '#2f9e44', '#9c36b5', '#0c8599'];

function makePanel(name) {
  const p = el('section', 'panel');
  p.dataset.channel = name;
  const h = el('h2');
  const badge = el('span', 'badge', '');
  h.append(el('span', 'name', name), badge);
  const stats = el('div', 'stats');
  const s = {};
  for (const [k, label] of [['score', 'last score'], ['mean', 'window mean'],
                            ['min', 'window min'], ['alarm', 'alarm'],
                            ['lag', 'lag (frames)'], ['fps', 'frames/s'],
                            ['frames', 'frames'], ['restarts', 'restarts']]) {
    const [d, b] = stat(label);
    stats.append(d);
    s[k] = b;
  }
  const reason = el('div', 'reason');
  const box = el('div', 'chart-box');
  const canvas = el('canvas', 'chart');
  canvas.dataset.points = '0';
  box.append(canvas);
  p.append(h, stats, reason, box);
  document.getElementById('channels').append(p);
  const panel = {p, badge, s, reason, canvas, chart: null};
  if (haveChart) {
    panel.chart = new Chart(canvas, {
      type: 'line',
      data: {datasets: []},
      options: {
        animation: false, responsive: true, maintainAspectRatio: false,
        parsing: false, normalized: true,
        elements: {point: {radius: 0}, line: {borderWidth: 1.5}},
        scales: {
          x: {type: 'linear', title: {display: true, text: 'seconds ago'},
              ticks: {callback: v => -v}},
          y: {suggestedMin: 0, suggestedMax: 100},
        },
        plugins: {legend: {display: true, labels: {boxWidth: 12}}},
      },
    });
  }
  return panel;
}

function series(ch, now) {
  const out = [];
  ch.pads.forEach((pad, i) => {
    out.push({label: pad.pad + ' ' + (ch.models[0] || 'score'),
              data: pad.points.map(pt => ({x: pt[0] - now, y: pt[1]})),
              color: COLORS[i % COLORS.length]});
  });
  return out;
}

function drawPlain(canvas, sets, history, threshold) {
  const w = canvas.width = canvas.clientWidth || 400;
  const h = canvas.height = canvas.clientHeight || 180;
  const g = canvas.getContext('2d');
  g.clearRect(0, 0, w, h);
  const X = x => (x + history) / history * (w - 30) + 28;
  const Y = y => h - 14 - Math.max(0, Math.min(110, y)) / 110 * (h - 20);
  g.strokeStyle = '#ccc'; g.fillStyle = '#667'; g.font = '10px sans-serif';
  for (const y of [0, 50, 100]) {
    g.beginPath(); g.moveTo(28, Y(y)); g.lineTo(w, Y(y)); g.stroke();
    g.fillText(String(y), 2, Y(y) + 3);
  }
  if (threshold !== null) {
    g.setLineDash([4, 4]); g.strokeStyle = '#e03131';
    g.beginPath(); g.moveTo(28, Y(threshold)); g.lineTo(w, Y(threshold));
    g.stroke(); g.setLineDash([]);
  }
  for (const s of sets) {
    g.strokeStyle = s.color; g.beginPath();
    s.data.forEach((pt, i) => i ? g.lineTo(X(pt.x), Y(pt.y))
                                : g.moveTo(X(pt.x), Y(pt.y)));
    g.stroke();
  }
}

function render(d) {
  const seen = new Set();
  for (const ch of d.channels) {
    seen.add(ch.name);
    let panel = panels.get(ch.name);
    if (!panel) { panel = makePanel(ch.name); panels.set(ch.name, panel); }
    const pad = ch.pads.find(x => x.pad === 'dist_sink') || ch.pads[0];
    const model = ch.models[0];
    const alarmed = ch.pads.some(x => Object.values(x.alarm).some(a => a));
    panel.p.className = 'panel ' + ch.state + (alarmed ? ' alarm' : '');
    panel.p.dataset.state = ch.state;
    panel.badge.className = 'badge ' + ch.state;
    panel.badge.textContent = ch.state;
    const w = pad && pad.window[model];
    panel.s.score.textContent = pad ? fmt(pad.scores[model], 2) : '\u2013';
    panel.s.mean.textContent = w ? fmt(w.mean, 2) : '\u2013';
    panel.s.min.textContent = w ? fmt(w.min, 2) : '\u2013';
    panel.s.alarm.textContent = alarmed ? 'ALARM' :
      (ch.threshold === null ? 'off' : 'ok < ' + ch.threshold);
    panel.s.alarm.className = alarmed ? 'alarm-on' : '';
    panel.s.lag.textContent = !pad || pad.locked === null ? 'n/a' :
      (pad.lag_frames === null ? 'searching' :
       pad.lag_frames + (pad.locked ? '' : ' (searching)'));
    panel.s.fps.textContent = pad ? fmt(pad.fps, 1) : '\u2013';
    panel.s.frames.textContent = pad ? String(pad.frames) : '0';
    panel.s.restarts.textContent = String(ch.restarts);
    panel.reason.textContent = ch.state === 'running' ? '' : ch.reason;
    const sets = series(ch, d.now);
    const points = sets.reduce((n, s) => n + s.data.length, 0);
    // the x axis: the history kept, or less while there is less (60 s+)
    const oldest = sets.reduce((m, s) => s.data.length ?
                               Math.min(m, s.data[0].x) : m, 0);
    const span = Math.min(d.history, Math.max(60, Math.ceil(-oldest)));
    panel.canvas.dataset.points = String(points);
    if (panel.chart) {
      const c = panel.chart;
      c.options.scales.x.min = -span;
      c.options.scales.x.max = 0;
      const ds = sets.map(s => ({label: s.label, data: s.data,
                                 borderColor: s.color,
                                 backgroundColor: s.color}));
      if (ch.threshold !== null)
        ds.push({label: 'threshold', borderColor: '#e03131',
                 backgroundColor: '#e03131', borderDash: [4, 4],
                 data: [{x: -span, y: ch.threshold},
                        {x: 0, y: ch.threshold}]});
      c.data.datasets = ds;
      c.update('none');
    } else {
      drawPlain(panel.canvas, sets, span, ch.threshold);
    }
  }
  for (const [name, panel] of panels)
    if (!seen.has(name)) { panel.p.remove(); panels.delete(name); }
}

async function poll() {
  const status = document.getElementById('status');
  try {
    const r = await fetch('api/channels', {cache: 'no-store'});
    if (!r.ok) throw new Error('HTTP ' + r.status);
    render(await r.json());
    updates += 1;
    document.body.dataset.updates = String(updates);
    status.textContent = 'updated ' + new Date().toLocaleTimeString();
  } catch (e) {
    status.textContent = 'no answer from the probe (' + e.message + ')';
  }
}
poll();
setInterval(poll, 1000);
"""
