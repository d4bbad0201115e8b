import { createRequire as __cgCreateRequire } from 'node:module';
const require = __cgCreateRequire(import.meta.url);
import{a as $e,b as ie}from"./chunk-M3SHSEKE.js";import{d as xe,e as ke}from"./chunk-6D3SD7QI.js";function ae(e,n,u){let E=[],F=[],N=[],w=[],T=[],c=[[0,null]],y=0,K=0;for(let i of e.series)E.push([i.t,i.served],[i.t+1,i.served]),F.push([i.t,i.servedSecondary],[i.t+1,i.servedSecondary]),N.push([i.t,i.failed],[i.t+1,i.failed]),w.push([i.t,i.served]),T.push([i.t,i.toSecondary/i.offered*100]),i.t>=15&&i.t<45&&(y+=i.offered,K+=i.served,c.push([i.t+1,K/y*100]));let j=e.series[e.series.length-1],O=j?j.t+1:45,A=[{label:"offered 10 rps",value:10,cls:"ref"}];n.capacity==="half"&&A.push({label:"secondary capacity 5 rps",value:5,cls:"limit"});let q=i=>i?"pass":"fail";return{kind:"failover",title:"Regional failover model",subtitle:`health checks every ${n.every} s, ${n.failures} failures, ${n.depth}; TTL ${n.ttl} s; secondary ${n.capacity}; ${n.replication} replication; fault: ${n.fault}`,start:0,end:O,events:e.events.map(i=>({t:i.at,type:i.type,message:i.message})),panels:[{id:"served",title:"Requests per second",unit:"rps",series:[{name:"served",cls:"s0 wide",points:E},{name:"served by secondary",cls:"s1 dashed",points:F},{name:"failed",cls:"s3",points:N}],bounds:A,bands:[{from:15,to:45,label:`outage (${n.fault})`}]}],readouts:[{id:"served-now",label:"served this second",unit:"rps",decimals:1,points:w},{id:"on-secondary",label:"clients on the secondary",unit:"%",decimals:0,points:T},{id:"served-share",label:"outage requests served so far",unit:"%",decimals:1,points:c}],verdict:{label:e.pass?"pass":"fail",ok:e.pass,reason:u.length?u.join("; "):"every criterion of the gate holds"},metrics:[{id:"served-share",label:`served during outage (\u2265 ${n.minServed} %)`,value:`${e.servedShare.toFixed(1)} % \u2014 ${q(e.criteria.served)}`,ok:e.criteria.served},{id:"marked-down",label:"primary marked down",value:e.markedDownAt===null?"never":`${e.markedDownAt} s`,ok:null},{id:"failover",label:`failover (\u2264 ${n.maxFailover} s)`,value:`${e.failoverSeconds===null?"none":`${e.failoverSeconds} s`} \u2014 ${q(e.criteria.failover)}`,ok:e.criteria.failover},{id:"lost",label:"lost conversations (0)",value:`${e.lostConversations} \u2014 ${q(e.criteria.sessions)}`,ok:e.criteria.sessions}]}}var ne=[1,2,5,10,30,60,120],Ce=20;function C(e){return e.replace(/[&<>"']/g,n=>`&#${n.charCodeAt(0)};`)}function De(e){return JSON.stringify(e).replace(/</g,"\\u003c").replace(/\u2028/g,"\\u2028").replace(/\u2029/g,"\\u2029")}function Z(e){let n=e.toString();if(/<\/script/i.test(n)||/<!--/.test(n))throw new Error(`${e.name} cannot be embedded in a <script> element`);return n}function Oe(e){let n=(e.end-e.start)/Ce;return ne.find(u=>u>=n)??ne[ne.length-1]}var Be=`
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
`;function le(e){let{data:n}=e,u=Oe(n),g=ne.map(h=>`<option value="${h}"${h===u?" selected":""}>${h}\xD7</option>`).join("");return`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">
<title>${C(n.title)}</title>
<style>${Be}</style>
</head>
<body data-kind="${n.kind}">
<header>
<h1 id="title">${C(n.title)}</h1>
<p id="subtitle">${C(n.subtitle)}</p>
<span id="verdict" data-testid="verdict" data-ok="${String(n.verdict.ok)}">${C(n.verdict.label)}</span>
<p id="reason" data-testid="reason">${C(n.verdict.reason)}</p>
</header>
<noscript>The replay needs JavaScript; the final metrics below are static.</noscript>
${e.beforeControls??""}
<section id="controls" aria-label="Replay controls">
<button id="play" data-testid="play" type="button">Play</button>
<button id="next-event" data-testid="next-event" type="button">Next event</button>
<button id="restart" data-testid="restart" type="button">Restart</button>
<label>Speed <select id="speed" data-testid="speed">${g}</select></label>
<input id="scrubber" data-testid="scrubber" type="range" aria-label="Inspection time" min="${n.start}" max="${n.end}" step="0.1" value="${n.start}">
<output id="time-now" data-testid="time-now">${n.start.toFixed(1)} s</output>
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
<dl id="metrics" data-testid="metrics">${n.metrics.map(h=>`<div class="metric" data-testid="metric-${C(h.id)}" data-ok="${String(h.ok)}"><dt>${C(h.label)}</dt><dd id="metric-${C(h.id)}">${C(h.value)}</dd></div>`).join("")}</dl>
</section>
<script type="application/json" id="replay-data">${De(n)}</script>
<script>
"use strict";
// Bundlers that keep function names (esbuild keepNames, as tsx uses) wrap inner functions in
// __name(fn, "name"); the embedded sources may carry those calls, so the page defines it as identity.
var __name = function (fn) { return fn; };
${e.script}
</script>
</body>
</html>
`}function Ee(e){let n="http://www.w3.org/2000/svg",T=[1,2,5,10,15,30,60,120,300,600,900,1800,3600],c=d=>{let f=document.getElementById(d);if(!f)throw new Error(`replay page is missing #${d}`);return f},y=c("play"),K=c("next-event"),j=c("restart"),O=c("speed"),A=c("scrubber"),q=c("time-now"),i=c("status"),s=c("charts"),k=c("readouts"),M=c("event-list"),r=e,x=r.start,L=!1,te=Number(O.value)||1,$=0,_=[],re=[],G=d=>d,se=-1,oe=(d,f)=>{let b=d/Math.max(1,f),R=Math.pow(10,Math.floor(Math.log10(b))),m=b/R;return(m<=1?1:m<=2?2:m<=5?5:10)*R},ce=(d,f,b)=>{let R=Math.max(0,-Math.floor(Math.log10(b)+1e-9)),m=[];for(let a=Math.ceil(d/b-1e-9);a*b<=f+1e-9;a++)m.push(Number((a*b).toFixed(R)));return m},Fe=(d,f,b,R)=>{let m=d.map(a=>Math.min(R,Math.max(b,a)));for(let a=1;a<m.length;a++)m[a]=Math.max(m[a],m[a-1]+f);m.length&&(m[m.length-1]=Math.min(m[m.length-1],R));for(let a=m.length-2;a>=0;a--)m[a]=Math.min(m[a],m[a+1]-f);return m},Ie=(d,f,b)=>d==null?"\u2014":`${d.toFixed(f)}${b?` ${b}`:""}`,Me=(d,f)=>{let b;for(let R of d){if(R[0]>f+1e-9)break;b=R}return b},I=(d,f)=>{let b=document.createElementNS(n,d);for(let[R,m]of Object.entries(f))b.setAttribute(R,String(m));return b},pe=()=>{c("title").textContent=r.title,c("subtitle").textContent=r.subtitle;let d=c("verdict");d.textContent=r.verdict.label,d.dataset.ok=String(r.verdict.ok),c("reason").textContent=r.verdict.reason;let f=c("metrics");f.replaceChildren();for(let a of r.metrics){let l=document.createElement("div");l.className="metric",l.setAttribute("data-testid",`metric-${a.id}`),l.dataset.ok=String(a.ok);let p=document.createElement("dt");p.textContent=a.label;let v=document.createElement("dd");v.id=`metric-${a.id}`,v.textContent=a.value,l.append(p,v),f.append(l)}let b=r.end-r.start||1;G=a=>58+(a-r.start)/b*568,A.min=String(r.start),A.max=String(r.end),A.step=String(b>600?1:.1),s.replaceChildren(),_=[],re=[];let R=b>5?T.find(a=>b/a<=8)??oe(b,8):oe(b,6),m=ce(r.start,r.end,R);for(let a of r.panels){let l=document.createElement("figure");l.className="panel",l.id=`panel-${a.id}`,l.setAttribute("data-testid",`panel-${a.id}`);let p=document.createElement("figcaption");p.textContent=a.unit?`${a.title} (${a.unit})`:a.title;let v=I("svg",{viewBox:"0 0 640 190",role:"img","aria-label":a.title}),S=document.createElement("div");S.className="legend",l.append(p,v,S),s.append(l);let B=[];for(let t of a.bands)t.to<r.start||t.from>r.end||B.push({x:G(Math.max(t.from,r.start)),text:t.label,cls:"band-label"});for(let t of r.markers??[])t.t<r.start-1e-9||t.t>r.end+1e-9||B.push({x:G(t.t),text:t.label,cls:`marker-label marker-${t.id}`,id:t.id});B.sort((t,o)=>t.x-o.x);let Y=[],me=B.map(t=>{let o=I("text",{class:t.cls,x:t.x,y:0,"text-anchor":"start"});o.textContent=t.text,t.id&&o.setAttribute("data-testid",`marker-label-${t.id}`),v.append(o);let V=o.getComputedTextLength(),ee=t.x+V>638?Math.max(2,t.x-V):t.x,H=Y.findIndex(Le=>Le+6<=ee);return H<0&&(H=Y.push(-1/0)-1),Y[H]=ee+V,o.setAttribute("x",String(ee)),{text:o,row:H}}),fe=Math.max(11,...me.map(t=>t.text.getBBox().height+1));for(let t of me){let o=t.text.getBBox();t.text.setAttribute("y",String(2+t.row*fe-o.y))}let z=4+Math.max(1,Y.length)*fe,X=[];for(let t of a.series)for(let o of t.points)o[1]!==null&&X.push(o[1]);for(let t of a.bounds)X.push(t.value);let J=X.length?Math.min(...X):0,U=X.length?Math.max(...X):1;if(U-J<1e-12){let t=Math.abs(U)*.1||1;J-=t,U+=t}let be=(U-J)*.08;J-=be,U+=be;let P=t=>z+(1-(t-J)/(U-J))*(190-z-22);for(let t of a.bands){let o=G(Math.max(t.from,r.start)),V=G(Math.min(t.to,r.end));v.prepend(I("rect",{class:"band",x:o,y:z,width:Math.max(0,V-o),height:190-z-22}))}let He=oe(U-J,4);for(let t of ce(J,U,He)){v.append(I("line",{class:"grid",x1:58,x2:626,y1:P(t),y2:P(t)}));let o=I("text",{class:"tick tick-y",x:54,y:P(t)+3,"text-anchor":"end","data-value":t});o.textContent=String(t),v.append(o)}v.append(I("line",{class:"axis",x1:58,x2:58,y1:z,y2:168})),v.append(I("line",{class:"axis",x1:58,x2:626,y1:168,y2:168}));for(let t of m){let o=I("text",{class:"tick tick-x",x:G(t),y:184,"text-anchor":"middle","data-value":t});o.textContent=`${t} s`,v.append(o)}let ve=[...a.bounds].sort((t,o)=>P(t.value)-P(o.value)),ge=ve.map(t=>{v.append(I("line",{class:`bound ${t.cls}`,x1:58,x2:626,y1:P(t.value),y2:P(t.value)}));let o=I("text",{class:`bound-label ${t.cls}`,x:624,y:P(t.value)-3,"text-anchor":"end"});return o.textContent=t.label,v.append(o),o}),he=Math.max(11,...ge.map(t=>t.getBBox().height+1)),Ae=Fe(ve.map(t=>P(t.value)-3),he,z+he-2,165);ge.forEach((t,o)=>t.setAttribute("y",String(Ae[o])));for(let t of r.markers??[])t.t<r.start-1e-9||t.t>r.end+1e-9||v.append(I("line",{class:`marker marker-${t.id}`,"data-testid":`marker-${t.id}`,x1:G(t.t),x2:G(t.t),y1:z,y2:168}));for(let t of a.series){let o=I("path",{class:`line ${t.cls}`,"data-series":t.name}),V=I("g",{class:`marks ${t.cls}`});v.append(o,V);let ee=t.points.map(H=>H[1]===null?[H[0],null]:H.length===3?[H[0],P(H[1]),H[2]]:[H[0],P(H[1])]);_.push({path:o,marks:V,points:ee})}let ye=I("line",{class:"cursor",y1:z,y2:168,x1:58,x2:58});v.append(ye),re.push(ye);for(let t of a.series){let o=document.createElement("span");o.className=`key ${t.cls}`,o.textContent=t.name,S.append(o)}}k.replaceChildren();for(let a of r.readouts){let l=document.createElement("div");l.className="readout",l.setAttribute("data-testid",`readout-${a.id}`);let p=document.createElement("span");p.className="label",p.textContent=a.label;let v=document.createElement("output");v.id=`readout-${a.id}`,v.className="value",l.append(p,v),k.append(l)}M.replaceChildren(),se=-2,r.events.forEach((a,l)=>{let p=document.createElement("li");p.setAttribute("data-testid","event"),p.dataset.index=String(l),p.dataset.t=String(a.t),p.dataset.type=a.type;let v=document.createElement("time");v.textContent=`${a.t>=0?"+":""}${a.t.toFixed(1)} s`;let S=document.createElement("span");S.className="type",S.textContent=a.type;let B=document.createElement("span");B.className="message",B.textContent=a.message,p.append(v,S,B),p.addEventListener("click",()=>{Q(),x=a.t,W()}),M.append(p)})},W=()=>{A.value=String(x),q.textContent=`${x.toFixed(1)} s`,q.dataset.time=String(x);let d=G(x);for(let a of re)a.setAttribute("x1",String(d)),a.setAttribute("x2",String(d));for(let a of _){let l="",p=!1,v="";for(let S of a.points){if(S[0]>x+1e-9)break;if(S[1]===null){p=!1;continue}let B=G(S[0]).toFixed(1),Y=S[1].toFixed(1);l+=`${p?"L":"M"}${B} ${Y}`,p=!0,(S[2]==="breach"||S[2]==="error"||S[2]==="no-data")&&(v+=`<circle class="mark ${S[2]}" cx="${B}" cy="${Y}" r="3"></circle>`)}a.path.setAttribute("d",l),a.marks.innerHTML=v}for(let a of r.readouts){let l=document.getElementById(`readout-${a.id}`);if(!l)continue;let p=Me(a.points,x);l.textContent=Ie(p?p[1]:null,a.decimals,a.unit),l.dataset.value=p&&p[1]!==null?String(p[1]):"",l.dataset.status=p&&p.length===3?p[2]:p?"ok":"none"}let f=-1;r.events.forEach((a,l)=>{a.t<=x+1e-9&&(f=l)});let b=M.querySelectorAll("li");if(b.forEach((a,l)=>{a.dataset.state=l===f?"current":l<f?"past":"future",l===f?a.setAttribute("aria-current","true"):a.removeAttribute("aria-current")}),f!==se){se=f;let a=b[Math.max(0,f)];if(a){let l=a.offsetTop-(M.clientHeight-a.offsetHeight)/2;M.scrollTop=Math.max(0,l)}}let R=x>=r.end-1e-9,m=L?"playing":R?"finished":x>r.start?"paused":"ready";i.dataset.state=m,i.textContent=m==="finished"?`finished \u2014 ${r.verdict.label}`:m==="playing"?"playing":m,y.textContent=L?"Pause":"Play"},ue=d=>{L&&(x=Math.min(r.end,x+(d-$)/1e3*te),$=d,x>=r.end&&(L=!1),W(),L&&requestAnimationFrame(ue))},Q=()=>{L=!1};return y.addEventListener("click",()=>{if(L){Q(),W();return}x>=r.end-1e-9&&(x=r.start),L=!0,$=performance.now(),W(),requestAnimationFrame(ue)}),K.addEventListener("click",()=>{Q();let d=r.events.find(f=>f.t>x+1e-9);x=d?d.t:r.end,W()}),j.addEventListener("click",()=>{Q(),x=r.start,W()}),O.addEventListener("change",()=>{te=Number(O.value)||1}),A.addEventListener("input",()=>{Q(),x=Math.min(r.end,Math.max(r.start,Number(A.value))),W()}),pe(),W(),{load(d){Q(),r=d,x=r.start,pe(),W()},time:()=>x,playing:()=>L}}function Te(e,n,u,g){let h=document.getElementById("inputs"),D=document.getElementById("input-error"),E=w=>h.elements.namedItem(w),F=1,N=()=>{let w=K=>Number(E(K).value),T={every:w("every"),failures:w("failures"),depth:E("depth").value,ttl:w("ttl"),capacity:E("capacity").value,replication:E("replication").value,fault:E("fault").value,minServed:w("minServed"),maxFailover:w("maxFailover")},c=[];if(T.every>0||c.push("every: a positive number of seconds"),Number.isInteger(T.failures)&&T.failures>=1||c.push("failures: a whole number \u2265 1"),T.ttl>0||c.push("ttl: a positive number of seconds"),T.minServed>=0&&T.minServed<=100||c.push("min served: a percentage 0\u2013100"),T.maxFailover>0||c.push("max failover: a positive number of seconds"),D.textContent=c.length?`Not recomputed \u2014 expected ${c.join("; ")}`:"",c.length)return;let y=n(T);e.load(g(y,T,u(y,T))),F++,document.body.dataset.computations=String(F)};h.addEventListener("change",N),h.addEventListener("submit",w=>{w.preventDefault(),N()}),document.body.dataset.computations=String(F)}function Re(e){if(!e)return null;let n=e.trim(),u=/^in\s*\[\s*([-+0-9.eE]+)\s*,\s*([-+0-9.eE]+)\s*\]$/.exec(n);if(u)return{op:"in",values:[Number(u[1]),Number(u[2])]};let g=/^(<=|>=|<|>|≤|≥)\s*([-+0-9.eE]+)$/.exec(n);return g?{op:g[1]==="<="||g[1]==="<"||g[1]==="\u2264"?"<=":">=",values:[Number(g[2])]}:null}function Pe(e){return`${e>=0?"+":""}${Number(e.toFixed(1))} s`}function de(e){let n=xe(e),u=s=>ke(n,s),g=e.slis.map(s=>s.name);for(let s of e.measurements)for(let k of Object.keys(s.slis))g.includes(k)||g.push(k);let h=[...e.measurements.map(s=>u(s.at)),...e.events.map(s=>u(s.at))],D=h.length?Math.min(...h):0,E=h.length?Math.max(...h):1;E<=D&&(E=D+1);let F=e.timings.injectedAt,N=e.timings.stoppedAt??e.events.find(s=>s.type==="fault-ended"||s.type==="stop-verified")?.at,w=F===void 0?[]:[{from:u(F),to:N===void 0?E:u(N),label:"fault"}],T=[],c=[];g.forEach(s=>{let k=e.slis.find($=>$.name===s),M=[];for(let $ of e.measurements){let _=$.slis[s];_&&M.push([u($.at),_.value,_.status])}let r=[],x=Re(k?.bound);for(let $ of x?.values??[])r.push({label:`bound ${k?.bound}`,value:$,cls:"bound-h"});if(k&&k.steadyBound!==k.bound)for(let $ of Re(k.steadyBound)?.values??[])r.push({label:`steady ${k.steadyBound}`,value:$,cls:"bound-s"});for(let $ of e.abortRules.filter(_=>_.sli===s))r.push({label:`abort ${$.op==="above"?">":"<"} ${$.threshold} \xD7${$.count}`,value:$.threshold,cls:"abort"});let L=Math.max(0,...M.map($=>Math.abs($[1]??0))),te=L>=100?1:L>=1?3:4;T.push({id:Se(s),title:s,unit:"",series:[{name:s,cls:"s0",points:M}],bounds:r,bands:w}),c.push({id:Se(s),label:s,unit:"",decimals:te,points:M})}),e.measurements.some(s=>s.requests!==null)&&c.push({id:"requests",label:"requests in the window",unit:"",decimals:0,points:e.measurements.map(s=>[u(s.at),s.requests])});let y=e.timings,j=[["injected","injection",y.injectedAt],["first-breach","first breach",y.firstBreachAt],["stop-requested","stop requested",y.stopRequestedAt],["stopped","stopped",y.stoppedAt],["recovered","recovered",y.recoveredAt]].flatMap(([s,k,M])=>M===void 0?[]:[{id:s,label:k,t:u(M)}]),O=s=>s===void 0?"\u2014":Pe(u(s)),A=e.measurements.filter(s=>Object.values(s.slis).some(k=>k.status==="breach")).length,q=e.measurements.filter(s=>Object.values(s.slis).some(k=>k.status==="no-data"||k.status==="error")).length,i=[{id:"verdict",label:"verdict",value:e.verdict??"unfinished",ok:e.verdict==="held"},{id:"exit-code",label:"exit code",value:e.exitCode===null?"\u2014":String(e.exitCode),ok:null},{id:"experiment",label:"FIS experiment",value:e.experimentId??"\u2014",ok:null},{id:"injected",label:"injected",value:O(y.injectedAt),ok:null},{id:"first-breach",label:"first breach",value:O(y.firstBreachAt),ok:y.firstBreachAt===void 0},{id:"stop-requested",label:"stop requested",value:O(y.stopRequestedAt),ok:null},{id:"stopped",label:"stopped",value:O(y.stoppedAt),ok:null},{id:"recovered",label:"recovered",value:O(y.recoveredAt),ok:null},{id:"measurements",label:"measurements",value:String(e.measurements.length),ok:null},{id:"breaches",label:"measurements with a breach",value:String(A),ok:A===0},{id:"blind",label:"measurements without data",value:String(q),ok:q===0}];return y.firstBreachAt!==void 0&&y.stopRequestedAt!==void 0&&i.push({id:"abort-latency",label:"first breach \u2192 stop requested",value:`${y.stopRequestedAt-y.firstBreachAt} ms`,ok:null}),e.budget?.debit!==void 0&&i.push({id:"budget-debit",label:"budget debit (bad events)",value:String(e.budget.debit),ok:null}),{kind:"run",markers:j,title:`${e.title} \u2014 ${e.planId}`,subtitle:`${e.service} \xB7 ${e.environment} \xB7 run ${e.runId} \xB7 started ${new Date(e.startedAt).toISOString()} \xB7 times in seconds from ${n.label}${e.complete?"":" \xB7 INCOMPLETE journal (crash prefix)"}`,start:D,end:E,events:e.events.map(s=>({t:u(s.at),type:s.type,message:s.message})).sort((s,k)=>s.t-k.t),panels:T,readouts:c,verdict:{label:e.verdict??"unfinished",ok:e.verdict===null?null:e.verdict==="held",reason:e.reason??""},metrics:i}}function Se(e){return e.toLowerCase().replace(/[^a-z0-9]+/g,"-").replace(/^-|-$/g,"")||"sli"}function we(e=""){return`const cgReplayPlayer = (${Z(Ee)});
const replayData = JSON.parse(document.getElementById('replay-data').textContent);
const replay = cgReplayPlayer(replayData);
window.chaosGateReplay = replay;
${e}`}function je(e){return le({data:de(e),script:we()})}function Qe(e,n){let u=ae(e,n,ie(e,n)),g=`const cgModelFailover = (${Z($e)});
const cgFailoverReasons = (${Z(ie)});
const cgFailoverReplayData = (${Z(ae)});
const cgBindFailoverInputs = (${Z(Te)});
cgBindFailoverInputs(replay, cgModelFailover, cgFailoverReasons, cgFailoverReplayData);`;return le({data:u,beforeControls:Ge(n),script:we(g)})}function Ge(e){let n=(g,h,D,E)=>`<label>${C(h)}<input id="input-${g}" data-testid="input-${g}" name="${g}" type="number" value="${D}" ${E}></label>`,u=(g,h,D,E)=>`<label>${C(h)}<select id="input-${g}" data-testid="input-${g}" name="${g}">${E.map(F=>`<option value="${F}"${F===D?" selected":""}>${F}</option>`).join("")}</select></label>`;return`<form id="inputs" data-testid="inputs" aria-label="Model inputs">
${n("every","health check every (s)",e.every,'min="0.1" step="any"')}
${n("failures","failures to mark down",e.failures,'min="1" step="1"')}
${u("depth","check depth",e.depth,["shallow","deep"])}
${n("ttl","route TTL (s)",e.ttl,'min="0.1" step="any"')}
${u("capacity","secondary capacity",e.capacity,["full","half","zero"])}
${u("replication","replication",e.replication,["async","sync"])}
${u("fault","fault",e.fault,["region","model"])}
${n("minServed","gate: min served (%)",e.minServed,'min="0" max="100" step="any"')}
${n("maxFailover","gate: max failover (s)",e.maxFailover,'min="0.1" step="any"')}
<p id="input-error" data-testid="input-error" role="alert"></p>
</form>`}export{ae as a,de as b,je as c,Qe as d};
//# sourceMappingURL=chunk-VOPGYP3F.js.map
