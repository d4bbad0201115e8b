import { createRequire as __cgCreateRequire } from 'node:module';
const require = __cgCreateRequire(import.meta.url);
var i=[1,2,5,10,30,60,120],d=20;function r(t){return t.replace(/[&<>"']/g,e=>`&#${e.charCodeAt(0)};`)}function s(t){return JSON.stringify(t).replace(/</g,"\\u003c").replace(/\u2028/g,"\\u2028").replace(/\u2029/g,"\\u2029")}function c(t){let e=t.toString();if(/<\/script/i.test(e)||/<!--/.test(e))throw new Error(`${t.name} cannot be embedded in a <script> element`);return e}function l(t){let e=(t.end-t.start)/d;return i.find(n=>n>=e)??i[i.length-1]}var p=`
:root { --fg:#1d2330; --muted:#5b6577; --bg:#fbfcfe; --card:#fff; --line:#d9dee8; --ok:#1f7a3a; --bad:#b42318;
  --s0:#2457c5; --s1:#0f8a6d; --s2:#8a4fd1; --s3:#c2410c; }
* { box-sizing: border-box; }
body { margin:0; font:14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color:var(--fg); background:var(--bg); }
header, #controls, main, #final, #inputs { max-width:1100px; margin:0 auto; padding:10px 16px; }
h1 { font-size:20px; margin:8px 0 2px; }
#subtitle { color:var(--muted); margin:0 0 6px; }
#verdict { display:inline-block; font-weight:700; padding:2px 10px; border-radius:12px; background:#eef1f6; }
#verdict[data-ok="true"] { background:#dcf5e3; color:var(--ok); }
#verdict[data-ok="false"] { background:#fde4e1; color:var(--bad); }
#reason { margin:6px 0 0; color:var(--muted); }
#controls { display:flex; flex-wrap:wrap; gap:8px; align-items:center; position:sticky; top:0; background:var(--bg);
  border-bottom:1px solid var(--line); z-index:1; }
button, select, input { font:inherit; }
button { padding:4px 12px; border:1px solid var(--line); border-radius:6px; background:var(--card); cursor:pointer; }
#scrubber { flex:1; min-width:200px; }
#time-now { font-variant-numeric:tabular-nums; min-width:70px; text-align:right; }
#status { color:var(--muted); }
main { display:grid; grid-template-columns: minmax(0,2fr) minmax(260px,1fr); gap:16px; }
.panel { margin:0 0 12px; background:var(--card); border:1px solid var(--line); border-radius:8px; padding:8px; }
.panel figcaption { font-weight:600; margin-bottom:4px; }
.panel svg { width:100%; height:auto; display:block; }
.axis { stroke:#9aa3b2; stroke-width:1; }
.tick, .bound-label, .band-label, .marker-label { font-size:10px; fill:var(--muted); }
.grid { stroke:#eef1f6; stroke-width:1; }
.marker { stroke:#7a8699; stroke-width:1; stroke-dasharray:3 3; }
.marker.marker-first-breach, .marker.marker-stop-requested { stroke:var(--bad); }
.marker.marker-recovered { stroke:var(--ok); }
.marker-label.marker-first-breach, .marker-label.marker-stop-requested { fill:var(--bad); }
.marker-label.marker-recovered { fill:var(--ok); }
.band { fill:#fff1e6; }
.bound { stroke-width:1.2; stroke-dasharray:5 4; }
.bound.bound-h, .bound.ref { stroke:var(--ok); } .bound.bound-s { stroke:#7a8699; }
.bound.abort, .bound.limit { stroke:var(--bad); }
.line { fill:none; stroke-width:2; } .line.s0 { stroke:var(--s0); } .line.s1 { stroke:var(--s1); }
.line.s2 { stroke:var(--s2); } .line.s3 { stroke:var(--s3); }
.line.wide { stroke-width:6; stroke-opacity:.4; } .line.dashed { stroke-dasharray:7 4; }
.key.dashed::before { background:repeating-linear-gradient(90deg, currentColor 0 5px, transparent 5px 8px); }
.key.wide::before { height:6px; opacity:.5; }
.mark.breach { fill:var(--bad); } .mark.no-data, .mark.error { fill:#7a8699; }
.cursor { stroke:#111; stroke-width:1; stroke-dasharray:2 2; }
.legend { display:flex; gap:12px; color:var(--muted); font-size:12px; }
.key::before { content:""; display:inline-block; width:14px; height:3px; margin-right:4px; vertical-align:middle; background:currentColor; }
.key.s0 { color:var(--s0); } .key.s1 { color:var(--s1); } .key.s2 { color:var(--s2); } .key.s3 { color:var(--s3); }
.readout { display:flex; justify-content:space-between; gap:8px; padding:3px 0; border-bottom:1px dashed var(--line); }
.readout .value { font-variant-numeric:tabular-nums; font-weight:600; }
.readout .value[data-status="breach"] { color:var(--bad); }
#event-list { list-style:none; margin:10px 0 0; padding:0; max-height:420px; overflow:auto; position:relative; }
#event-list li { display:grid; grid-template-columns:62px 1fr; column-gap:6px; padding:4px 6px; border-radius:6px; color:#98a1b1; cursor:pointer; }
#event-list li .type { font-weight:600; } #event-list li .message { grid-column:2; }
#event-list li[data-state="past"] { color:var(--fg); }
#event-list li[data-state="current"] { color:var(--fg); background:#e6eefc; outline:1px solid var(--s0); }
#metrics { display:grid; grid-template-columns:repeat(auto-fill,minmax(230px,1fr)); gap:6px 16px; margin:0; }
.metric { display:flex; justify-content:space-between; gap:8px; border-bottom:1px solid var(--line); padding:3px 0; }
.metric dt { color:var(--muted); } .metric dd { margin:0; font-weight:600; }
.metric[data-ok="true"] dd { color:var(--ok); } .metric[data-ok="false"] dd { color:var(--bad); }
#inputs { display:flex; flex-wrap:wrap; gap:8px 14px; align-items:end; }
#inputs label { display:flex; flex-direction:column; font-size:12px; color:var(--muted); }
#inputs input { width:90px; }
#input-error { color:var(--bad); width:100%; margin:0; }
noscript { display:block; padding:12px; color:var(--bad); }
@media (max-width: 800px) { main { grid-template-columns: 1fr; } }
`;function u(t){let{data:e}=t,n=l(e),o=i.map(a=>`<option value="${a}"${a===n?" selected":""}>${a}\xD7</option>`).join("");return`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">
<title>${r(e.title)}</title>
<style>${p}</style>
</head>
<body data-kind="${e.kind}">
<header>
<h1 id="title">${r(e.title)}</h1>
<p id="subtitle">${r(e.subtitle)}</p>
<span id="verdict" data-testid="verdict" data-ok="${String(e.verdict.ok)}">${r(e.verdict.label)}</span>
<p id="reason" data-testid="reason">${r(e.verdict.reason)}</p>
</header>
<noscript>The replay needs JavaScript; the final metrics below are static.</noscript>
${t.beforeControls??""}
<section id="controls" aria-label="Replay controls">
<button id="play" data-testid="play" type="button">Play</button>
<button id="next-event" data-testid="next-event" type="button">Next event</button>
<button id="restart" data-testid="restart" type="button">Restart</button>
<label>Speed <select id="speed" data-testid="speed">${o}</select></label>
<input id="scrubber" data-testid="scrubber" type="range" aria-label="Inspection time" min="${e.start}" max="${e.end}" step="0.1" value="${e.start}">
<output id="time-now" data-testid="time-now">${e.start.toFixed(1)} s</output>
<span id="status" data-testid="status" data-state="ready">ready</span>
</section>
<main>
<section id="charts" data-testid="charts" aria-label="Chart"></section>
<aside>
<h2>At the inspection time</h2>
<section id="readouts" data-testid="readouts"></section>
<h2>Event trace</h2>
<ol id="event-list" data-testid="event-list"></ol>
</aside>
</main>
<section id="final">
<h2>Final metrics and verdict</h2>
<dl id="metrics" data-testid="metrics">${e.metrics.map(a=>`<div class="metric" data-testid="metric-${r(a.id)}" data-ok="${String(a.ok)}"><dt>${r(a.label)}</dt><dd id="metric-${r(a.id)}">${r(a.value)}</dd></div>`).join("")}</dl>
</section>
<script type="application/json" id="replay-data">${s(e)}</script>
<script>
"use strict";
// Bundlers that keep function names (esbuild keepNames, as tsx uses) wrap inner functions in
// __name(fn, "name"); the embedded sources may carry those calls, so the page defines it as identity.
var __name = function (fn) { return fn; };
${t.script}
</script>
</body>
</html>
`}export{r as a,c as b,u as c};
//# sourceMappingURL=chunk-5FKF7ATX.js.map
