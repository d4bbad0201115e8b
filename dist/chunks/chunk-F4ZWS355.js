import { createRequire as __cgCreateRequire } from 'node:module';
const require = __cgCreateRequire(import.meta.url);
import{a as we,b as le}from"./chunk-M3SHSEKE.js";import{s as Te,u as Re}from"./chunk-XTG5ZU7U.js";import{e as Ee}from"./chunk-B2RS7DJ3.js";import{e as ke,f as $e}from"./chunk-I4ASWHR4.js";function te(e,r,p){let k=[],I=[],q=[],S=[],$=[],d=[[0,null]],T=0,C=0;for(let t of e.series)k.push([t.t,t.served],[t.t+1,t.served]),I.push([t.t,t.servedSecondary],[t.t+1,t.servedSecondary]),q.push([t.t,t.failed],[t.t+1,t.failed]),S.push([t.t,t.served]),$.push([t.t,t.toSecondary/t.offered*100]),t.t>=15&&t.t<45&&(T+=t.offered,C+=t.served,d.push([t.t+1,C/T*100]));let j=e.series[e.series.length-1],K=j?j.t+1:45,F=[{label:"offered 10 rps",value:10,cls:"ref"}];r.capacity==="half"&&F.push({label:"secondary capacity 5 rps",value:5,cls:"limit"});let P=t=>t?"pass":"fail";return{kind:"failover",title:"Regional failover model",subtitle:`health checks every ${r.every} s, ${r.failures} failures, ${r.depth}; TTL ${r.ttl} s; secondary ${r.capacity}; ${r.replication} replication; fault: ${r.fault}`,start:0,end:K,events:e.events.map(t=>({t:t.at,type:t.type,message:t.message})),panels:[{id:"served",title:"Requests per second",unit:"rps",series:[{name:"served",cls:"s0 wide",points:k},{name:"served by secondary",cls:"s1 dashed",points:I},{name:"failed",cls:"s3",points:q}],bounds:F,bands:[{from:15,to:45,label:`outage (${r.fault})`}]}],readouts:[{id:"served-now",label:"served this second",unit:"rps",decimals:1,points:S},{id:"on-secondary",label:"clients on the secondary",unit:"%",decimals:0,points:$},{id:"served-share",label:"outage requests served so far",unit:"%",decimals:1,points:d}],verdict:{label:e.pass?"pass":"fail",ok:e.pass,reason:p.length?p.join("; "):"every criterion of the gate holds"},metrics:[{id:"served-share",label:`served during outage (\u2265 ${r.minServed} %)`,value:`${e.servedShare.toFixed(1)} % \u2014 ${P(e.criteria.served)}`,ok:e.criteria.served},{id:"marked-down",label:"primary marked down",value:e.markedDownAt===null?"never":`${e.markedDownAt} s`,ok:null},{id:"failover",label:`failover (\u2264 ${r.maxFailover} s)`,value:`${e.failoverSeconds===null?"none":`${e.failoverSeconds} s`} \u2014 ${P(e.criteria.failover)}`,ok:e.criteria.failover},{id:"lost",label:"lost conversations (0)",value:`${e.lostConversations} \u2014 ${P(e.criteria.sessions)}`,ok:e.criteria.sessions}]}}var ae=[1,2,5,10,30,60,120],Pe=20;function D(e){return e.replace(/[&<>"']/g,r=>`&#${r.charCodeAt(0)};`)}function Ge(e){return JSON.stringify(e).replace(/</g,"\\u003c").replace(/\u2028/g,"\\u2028").replace(/\u2029/g,"\\u2029")}function Z(e){let r=e.toString();if(/<\/script/i.test(r)||/<!--/.test(r))throw new Error(`${e.name} cannot be embedded in a <script> element`);return r}function Be(e){let r=(e.end-e.start)/Pe;return ae.find(p=>p>=r)??ae[ae.length-1]}var Ne=`
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
`;function de(e){let{data:r}=e,p=Be(r),g=ae.map(y=>`<option value="${y}"${y===p?" selected":""}>${y}\xD7</option>`).join("");return`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">
<title>${D(r.title)}</title>
<style>${Ne}</style>
</head>
<body data-kind="${r.kind}">
<header>
<h1 id="title">${D(r.title)}</h1>
<p id="subtitle">${D(r.subtitle)}</p>
<span id="verdict" data-testid="verdict" data-ok="${String(r.verdict.ok)}">${D(r.verdict.label)}</span>
<p id="reason" data-testid="reason">${D(r.verdict.reason)}</p>
</header>
<noscript>The replay needs JavaScript; the final metrics below are static.</noscript>
${e.beforeControls??""}
<section id="controls" aria-label="Replay controls">
<button id="play" data-testid="play" type="button">Play</button>
<button id="next-event" data-testid="next-event" type="button">Next event</button>
<button id="restart" data-testid="restart" type="button">Restart</button>
<label>Speed <select id="speed" data-testid="speed">${g}</select></label>
<input id="scrubber" data-testid="scrubber" type="range" aria-label="Inspection time" min="${r.start}" max="${r.end}" step="0.1" value="${r.start}">
<output id="time-now" data-testid="time-now">${r.start.toFixed(1)} s</output>
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
<dl id="metrics" data-testid="metrics">${r.metrics.map(y=>`<div class="metric" data-testid="metric-${D(y.id)}" data-ok="${String(y.ok)}"><dt>${D(y.label)}</dt><dd id="metric-${D(y.id)}">${D(y.value)}</dd></div>`).join("")}</dl>
</section>
<script type="application/json" id="replay-data">${Ge(r)}</script>
<script>
"use strict";
// Bundlers that keep function names (esbuild keepNames, as tsx uses) wrap inner functions in
// __name(fn, "name"); the embedded sources may carry those calls, so the page defines it as identity.
var __name = function (fn) { return fn; };
${e.script}
</script>
</body>
</html>
`}function Se(e){let r="http://www.w3.org/2000/svg",$=[1,2,5,10,15,30,60,120,300,600,900,1800,3600],d=l=>{let m=document.getElementById(l);if(!m)throw new Error(`replay page is missing #${l}`);return m},T=d("play"),C=d("next-event"),j=d("restart"),K=d("speed"),F=d("scrubber"),P=d("time-now"),t=d("status"),h=d("charts"),M=d("readouts"),E=d("event-list"),s=e,v=s.start,H=!1,x=Number(K.value)||1,_=0,re=[],se=[],N=l=>l,oe=-1,ie=(l,m)=>{let f=l/Math.max(1,m),R=Math.pow(10,Math.floor(Math.log10(f))),u=f/R;return(u<=1?1:u<=2?2:u<=5?5:10)*R},pe=(l,m,f)=>{let R=Math.max(0,-Math.floor(Math.log10(f)+1e-9)),u=[];for(let n=Math.ceil(l/f-1e-9);n*f<=m+1e-9;n++)u.push(Number((n*f).toFixed(R)));return u},He=(l,m,f,R)=>{let u=l.map(n=>Math.min(R,Math.max(f,n)));for(let n=1;n<u.length;n++)u[n]=Math.max(u[n],u[n-1]+m);u.length&&(u[u.length-1]=Math.min(u[u.length-1],R));for(let n=u.length-2;n>=0;n--)u[n]=Math.min(u[n],u[n+1]-m);return u},Le=(l,m,f)=>l==null?"\u2014":`${l.toFixed(m)}${f?` ${f}`:""}`,Ae=(l,m)=>{let f;for(let R of l){if(R[0]>m+1e-9)break;f=R}return f},L=(l,m)=>{let f=document.createElementNS(r,l);for(let[R,u]of Object.entries(m))f.setAttribute(R,String(u));return f},ue=()=>{d("title").textContent=s.title,d("subtitle").textContent=s.subtitle;let l=d("verdict");l.textContent=s.verdict.label,l.dataset.ok=String(s.verdict.ok),d("reason").textContent=s.verdict.reason;let m=d("metrics");m.replaceChildren();for(let n of s.metrics){let i=document.createElement("div");i.className="metric",i.setAttribute("data-testid",`metric-${n.id}`),i.dataset.ok=String(n.ok);let c=document.createElement("dt");c.textContent=n.label;let b=document.createElement("dd");b.id=`metric-${n.id}`,b.textContent=n.value,i.append(c,b),m.append(i)}let f=s.end-s.start||1;N=n=>58+(n-s.start)/f*568,F.min=String(s.start),F.max=String(s.end),F.step=String(f>600?1:.1),h.replaceChildren(),re=[],se=[];let R=f>5?$.find(n=>f/n<=8)??ie(f,8):ie(f,6),u=pe(s.start,s.end,R);for(let n of s.panels){let i=document.createElement("figure");i.className="panel",i.id=`panel-${n.id}`,i.setAttribute("data-testid",`panel-${n.id}`);let c=document.createElement("figcaption");c.textContent=n.unit?`${n.title} (${n.unit})`:n.title;let b=L("svg",{viewBox:"0 0 640 190",role:"img","aria-label":n.title}),w=document.createElement("div");w.className="legend",i.append(c,b,w),h.append(i);let G=[];for(let a of n.bands)a.to<s.start||a.from>s.end||G.push({x:N(Math.max(a.from,s.start)),text:a.label,cls:"band-label"});for(let a of s.markers??[])a.t<s.start-1e-9||a.t>s.end+1e-9||G.push({x:N(a.t),text:a.label,cls:`marker-label marker-${a.id}`,id:a.id});G.sort((a,o)=>a.x-o.x);let Y=[],fe=G.map(a=>{let o=L("text",{class:a.cls,x:a.x,y:0,"text-anchor":"start"});o.textContent=a.text,a.id&&o.setAttribute("data-testid",`marker-label-${a.id}`),b.append(o);let V=o.getComputedTextLength(),ee=a.x+V>638?Math.max(2,a.x-V):a.x,A=Y.findIndex(Oe=>Oe+6<=ee);return A<0&&(A=Y.push(-1/0)-1),Y[A]=ee+V,o.setAttribute("x",String(ee)),{text:o,row:A}}),be=Math.max(11,...fe.map(a=>a.text.getBBox().height+1));for(let a of fe){let o=a.text.getBBox();a.text.setAttribute("y",String(2+a.row*be-o.y))}let z=4+Math.max(1,Y.length)*be,X=[];for(let a of n.series)for(let o of a.points)o[1]!==null&&X.push(o[1]);for(let a of n.bounds)X.push(a.value);let J=X.length?Math.min(...X):0,U=X.length?Math.max(...X):1;if(U-J<1e-12){let a=Math.abs(U)*.1||1;J-=a,U+=a}let ve=(U-J)*.08;J-=ve,U+=ve;let B=a=>z+(1-(a-J)/(U-J))*(190-z-22);for(let a of n.bands){let o=N(Math.max(a.from,s.start)),V=N(Math.min(a.to,s.end));b.prepend(L("rect",{class:"band",x:o,y:z,width:Math.max(0,V-o),height:190-z-22}))}let Ce=ie(U-J,4);for(let a of pe(J,U,Ce)){b.append(L("line",{class:"grid",x1:58,x2:626,y1:B(a),y2:B(a)}));let o=L("text",{class:"tick tick-y",x:54,y:B(a)+3,"text-anchor":"end","data-value":a});o.textContent=String(a),b.append(o)}b.append(L("line",{class:"axis",x1:58,x2:58,y1:z,y2:168})),b.append(L("line",{class:"axis",x1:58,x2:626,y1:168,y2:168}));for(let a of u){let o=L("text",{class:"tick tick-x",x:N(a),y:184,"text-anchor":"middle","data-value":a});o.textContent=`${a} s`,b.append(o)}let ge=[...n.bounds].sort((a,o)=>B(a.value)-B(o.value)),ye=ge.map(a=>{b.append(L("line",{class:`bound ${a.cls}`,x1:58,x2:626,y1:B(a.value),y2:B(a.value)}));let o=L("text",{class:`bound-label ${a.cls}`,x:624,y:B(a.value)-3,"text-anchor":"end"});return o.textContent=a.label,b.append(o),o}),he=Math.max(11,...ye.map(a=>a.getBBox().height+1)),De=He(ge.map(a=>B(a.value)-3),he,z+he-2,165);ye.forEach((a,o)=>a.setAttribute("y",String(De[o])));for(let a of s.markers??[])a.t<s.start-1e-9||a.t>s.end+1e-9||b.append(L("line",{class:`marker marker-${a.id}`,"data-testid":`marker-${a.id}`,x1:N(a.t),x2:N(a.t),y1:z,y2:168}));for(let a of n.series){let o=L("path",{class:`line ${a.cls}`,"data-series":a.name}),V=L("g",{class:`marks ${a.cls}`});b.append(o,V);let ee=a.points.map(A=>A[1]===null?[A[0],null]:A.length===3?[A[0],B(A[1]),A[2]]:[A[0],B(A[1])]);re.push({path:o,marks:V,points:ee})}let xe=L("line",{class:"cursor",y1:z,y2:168,x1:58,x2:58});b.append(xe),se.push(xe);for(let a of n.series){let o=document.createElement("span");o.className=`key ${a.cls}`,o.textContent=a.name,w.append(o)}}M.replaceChildren();for(let n of s.readouts){let i=document.createElement("div");i.className="readout",i.setAttribute("data-testid",`readout-${n.id}`);let c=document.createElement("span");c.className="label",c.textContent=n.label;let b=document.createElement("output");b.id=`readout-${n.id}`,b.className="value",i.append(c,b),M.append(i)}E.replaceChildren(),oe=-2,s.events.forEach((n,i)=>{let c=document.createElement("li");c.setAttribute("data-testid","event"),c.dataset.index=String(i),c.dataset.t=String(n.t),c.dataset.type=n.type;let b=document.createElement("time");b.textContent=`${n.t>=0?"+":""}${n.t.toFixed(1)} s`;let w=document.createElement("span");w.className="type",w.textContent=n.type;let G=document.createElement("span");G.className="message",G.textContent=n.message,c.append(b,w,G),c.addEventListener("click",()=>{Q(),v=n.t,W()}),E.append(c)})},W=()=>{F.value=String(v),P.textContent=`${v.toFixed(1)} s`,P.dataset.time=String(v);let l=N(v);for(let n of se)n.setAttribute("x1",String(l)),n.setAttribute("x2",String(l));for(let n of re){let i="",c=!1,b="";for(let w of n.points){if(w[0]>v+1e-9)break;if(w[1]===null){c=!1;continue}let G=N(w[0]).toFixed(1),Y=w[1].toFixed(1);i+=`${c?"L":"M"}${G} ${Y}`,c=!0,(w[2]==="breach"||w[2]==="error"||w[2]==="no-data")&&(b+=`<circle class="mark ${w[2]}" cx="${G}" cy="${Y}" r="3"></circle>`)}n.path.setAttribute("d",i),n.marks.innerHTML=b}for(let n of s.readouts){let i=document.getElementById(`readout-${n.id}`);if(!i)continue;let c=Ae(n.points,v);i.textContent=Le(c?c[1]:null,n.decimals,n.unit),i.dataset.value=c&&c[1]!==null?String(c[1]):"",i.dataset.status=c&&c.length===3?c[2]:c?"ok":"none"}let m=-1;s.events.forEach((n,i)=>{n.t<=v+1e-9&&(m=i)});let f=E.querySelectorAll("li");if(f.forEach((n,i)=>{n.dataset.state=i===m?"current":i<m?"past":"future",i===m?n.setAttribute("aria-current","true"):n.removeAttribute("aria-current")}),m!==oe){oe=m;let n=f[Math.max(0,m)];if(n){let i=n.offsetTop-(E.clientHeight-n.offsetHeight)/2;E.scrollTop=Math.max(0,i)}}let R=v>=s.end-1e-9,u=H?"playing":R?"finished":v>s.start?"paused":"ready";t.dataset.state=u,t.textContent=u==="finished"?`finished \u2014 ${s.verdict.label}`:u==="playing"?"playing":u,T.textContent=H?"Pause":"Play"},me=l=>{H&&(v=Math.min(s.end,v+(l-_)/1e3*x),_=l,v>=s.end&&(H=!1),W(),H&&requestAnimationFrame(me))},Q=()=>{H=!1};return T.addEventListener("click",()=>{if(H){Q(),W();return}v>=s.end-1e-9&&(v=s.start),H=!0,_=performance.now(),W(),requestAnimationFrame(me)}),C.addEventListener("click",()=>{Q();let l=s.events.find(m=>m.t>v+1e-9);v=l?l.t:s.end,W()}),j.addEventListener("click",()=>{Q(),v=s.start,W()}),K.addEventListener("change",()=>{x=Number(K.value)||1}),F.addEventListener("input",()=>{Q(),v=Math.min(s.end,Math.max(s.start,Number(F.value))),W()}),ue(),W(),{load(l){Q(),s=l,v=s.start,ue(),W()},time:()=>v,playing:()=>H}}function Fe(e,r,p,g){let y=document.getElementById("inputs"),O=document.getElementById("input-error"),k=S=>y.elements.namedItem(S),I=1,q=()=>{let S=C=>Number(k(C).value),$={every:S("every"),failures:S("failures"),depth:k("depth").value,ttl:S("ttl"),capacity:k("capacity").value,replication:k("replication").value,fault:k("fault").value,minServed:S("minServed"),maxFailover:S("maxFailover")},d=[];if($.every>0||d.push("every: a positive number of seconds"),Number.isInteger($.failures)&&$.failures>=1||d.push("failures: a whole number \u2265 1"),$.ttl>0||d.push("ttl: a positive number of seconds"),$.minServed>=0&&$.minServed<=100||d.push("min served: a percentage 0\u2013100"),$.maxFailover>0||d.push("max failover: a positive number of seconds"),O.textContent=d.length?`Not recomputed \u2014 expected ${d.join("; ")}`:"",d.length)return;let T=r($);e.load(g(T,$,p(T,$))),I++,document.body.dataset.computations=String(I)};y.addEventListener("change",q),y.addEventListener("submit",S=>{S.preventDefault(),q()}),document.body.dataset.computations=String(I)}function Ie(e){if(!e)return null;let r=e.trim(),p=/^in\s*\[\s*([-+0-9.eE]+)\s*,\s*([-+0-9.eE]+)\s*\]$/.exec(r);if(p)return{op:"in",values:[Number(p[1]),Number(p[2])]};let g=/^(<=|>=|<|>|≤|≥)\s*([-+0-9.eE]+)$/.exec(r);return g?{op:g[1]==="<="||g[1]==="<"||g[1]==="\u2264"?"<=":">=",values:[Number(g[2])]}:null}function qe(e){return`${e>=0?"+":""}${Number(e.toFixed(1))} s`}function ce(e){let r=ke(e),p=t=>$e(r,t),g=e.slis.map(t=>t.name);for(let t of e.measurements)for(let h of Object.keys(t.slis))g.includes(h)||g.push(h);let y=[...e.measurements.map(t=>p(t.at)),...e.events.map(t=>p(t.at))],O=y.length?Math.min(...y):0,k=y.length?Math.max(...y):1;k<=O&&(k=O+1);let I=e.timings.injectedAt,q=e.timings.stoppedAt??e.events.find(t=>t.type==="fault-ended"||t.type==="stop-verified")?.at,S=I===void 0?[]:[{from:p(I),to:q===void 0?k:p(q),label:"fault"}],$=[],d=[];g.forEach(t=>{let h=e.slis.find(x=>x.name===t),M=[];for(let x of e.measurements){let _=x.slis[t];_&&M.push([p(x.at),_.value,_.status])}let E=[],s=Ie(h?.bound);for(let x of s?.values??[])E.push({label:`bound ${h?.bound}`,value:x,cls:"bound-h"});if(h&&h.steadyBound!==h.bound)for(let x of Ie(h.steadyBound)?.values??[])E.push({label:`steady ${h.steadyBound}`,value:x,cls:"bound-s"});for(let x of e.abortRules.filter(_=>_.sli===t))E.push({label:`abort ${x.op==="above"?">":"<"} ${x.threshold} \xD7${x.count}`,value:x.threshold,cls:"abort"});let v=Math.max(0,...M.map(x=>Math.abs(x[1]??0))),H=v>=100?1:v>=1?3:4;$.push({id:ne(t),title:t,unit:"",series:[{name:t,cls:"s0",points:M}],bounds:E,bands:S}),d.push({id:ne(t),label:t,unit:"",decimals:H,points:M})}),e.measurements.some(t=>t.requests!==null)&&d.push({id:"requests",label:"requests in the window",unit:"",decimals:0,points:e.measurements.map(t=>[p(t.at),t.requests])});let T=e.timings,C=Ee(e).firstBreach,K=[["injected","injection",T.injectedAt],["first-breach","first breach",C?.at],["stop-requested","stop requested",T.stopRequestedAt],["stopped","stopped",T.stoppedAt],["recovered","recovered",T.recoveredAt]].flatMap(([t,h,M])=>M===void 0?[]:[{id:t,label:h,t:p(M)}]),F=t=>t===void 0?"\u2014":qe(p(t)),P=[{id:"verdict",label:"verdict",value:e.verdict??"unfinished",ok:e.verdict==="held"},{id:"exit-code",label:"exit code",value:e.exitCode===null?"\u2014":String(e.exitCode),ok:null},{id:"experiment",label:"FIS experiment",value:e.experimentId??"\u2014",ok:null},{id:"injected",label:"injected",value:F(T.injectedAt),ok:null},{id:"first-breach",label:C?`first breach (${C.sli})`:"first breach",value:F(C?.at),ok:C===void 0},{id:"stop-requested",label:"stop requested",value:F(T.stopRequestedAt),ok:null},{id:"stopped",label:"stopped",value:F(T.stoppedAt),ok:null},{id:"recovered",label:"recovered",value:F(T.recoveredAt),ok:null},{id:"measurements",label:"measurements",value:String(e.measurements.length),ok:null}];for(let t of Te(e)){let h=ne(t.name),M=t.sli.held,E=(s,v,H,x)=>{H!=="\u2014"&&P.push({id:`${h}-${s}`,label:`${t.label} ${v}`,value:H,ok:x})};E("outside",`outside ${t.bound}`,t.outside,M===null?null:M&&t.counts?.outside===0),E("tolerated","tolerated",t.tolerated,M),E("first","first outside",t.first,null),E("worst","worst",t.worst,null),E("no-data","no data",t.noData,t.noData==="0"),E("settling","settling (not judged)",t.settling,null),E("recovery","recovery (steady bound)",t.recovery,null)}for(let[t,h]of Re(e))P.push({id:`latency-${ne(t)}`,label:t,value:h,ok:null});return e.budget?.debit!==void 0&&P.push({id:"budget-debit",label:"budget debit (bad events)",value:String(e.budget.debit),ok:null}),{kind:"run",markers:K,title:`${e.title} \u2014 ${e.planId}`,subtitle:`${e.service} \xB7 ${e.environment} \xB7 run ${e.runId} \xB7 started ${new Date(e.startedAt).toISOString()} \xB7 times in seconds from ${r.label}${e.complete?"":" \xB7 INCOMPLETE journal (crash prefix)"}`,start:O,end:k,events:e.events.map(t=>({t:p(t.at),type:t.type,message:t.message})).sort((t,h)=>t.t-h.t),panels:$,readouts:d,verdict:{label:e.verdict??"unfinished",ok:e.verdict===null?null:e.verdict==="held",reason:e.reason??""},metrics:P}}function ne(e){return e.toLowerCase().replace(/[^a-z0-9]+/g,"-").replace(/^-|-$/g,"")||"sli"}function Me(e=""){return`const cgReplayPlayer = (${Z(Se)});
const replayData = JSON.parse(document.getElementById('replay-data').textContent);
const replay = cgReplayPlayer(replayData);
window.chaosGateReplay = replay;
${e}`}function tt(e){return de({data:ce(e),script:Me()})}function at(e,r){let p=te(e,r,le(e,r)),g=`const cgModelFailover = (${Z(we)});
const cgFailoverReasons = (${Z(le)});
const cgFailoverReplayData = (${Z(te)});
const cgBindFailoverInputs = (${Z(Fe)});
cgBindFailoverInputs(replay, cgModelFailover, cgFailoverReasons, cgFailoverReplayData);`;return de({data:p,beforeControls:_e(r),script:Me(g)})}function _e(e){let r=(g,y,O,k)=>`<label>${D(y)}<input id="input-${g}" data-testid="input-${g}" name="${g}" type="number" value="${O}" ${k}></label>`,p=(g,y,O,k)=>`<label>${D(y)}<select id="input-${g}" data-testid="input-${g}" name="${g}">${k.map(I=>`<option value="${I}"${I===O?" selected":""}>${I}</option>`).join("")}</select></label>`;return`<form id="inputs" data-testid="inputs" aria-label="Model inputs">
${r("every","health check every (s)",e.every,'min="0.1" step="any"')}
${r("failures","failures to mark down",e.failures,'min="1" step="1"')}
${p("depth","check depth",e.depth,["shallow","deep"])}
${r("ttl","route TTL (s)",e.ttl,'min="0.1" step="any"')}
${p("capacity","secondary capacity",e.capacity,["full","half","zero"])}
${p("replication","replication",e.replication,["async","sync"])}
${p("fault","fault",e.fault,["region","model"])}
${r("minServed","gate: min served (%)",e.minServed,'min="0" max="100" step="any"')}
${r("maxFailover","gate: max failover (s)",e.maxFailover,'min="0.1" step="any"')}
<p id="input-error" data-testid="input-error" role="alert"></p>
</form>`}export{te as a,ce as b,tt as c,at as d};
//# sourceMappingURL=chunk-F4ZWS355.js.map
