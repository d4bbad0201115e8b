import { createRequire as __cgCreateRequire } from 'node:module';
const require = __cgCreateRequire(import.meta.url);
import{a as K}from"./chunk-5F5Y2QXL.js";import{a as u,b as z,e as A}from"./chunk-Y4OFZKUG.js";import{d as F,e as J,g as Y}from"./chunk-EKNCD2XM.js";import"./chunk-EM6PDFUN.js";import"./chunk-6WKIOMCZ.js";import"./chunk-RZEKKQEN.js";import{a as D,b as G}from"./chunk-XLQ3EX6P.js";import"./chunk-IJH6KL4Z.js";import{a as dt}from"./chunk-T3CBBOP3.js";import{a as C}from"./chunk-JK3FOVJL.js";import"./chunk-4ZL3I2BX.js";import"./chunk-SGKFDL4C.js";import"./chunk-WWFBIK55.js";import"./chunk-GSNKVR4F.js";import"./chunk-ZS7KEDBG.js";import{d as O,e as B}from"./chunk-EQXRDIRX.js";import"./chunk-RDFI6XVV.js";import{a as l}from"./chunk-5FKF7ATX.js";import{e as P}from"./chunk-T6DYACQC.js";import{a as $,b as N}from"./chunk-IIR2OTHB.js";import"./chunk-PYQUZR4R.js";import{a as L}from"./chunk-2CBHCUH5.js";import"./chunk-4RLLMRF4.js";import{a as b,b as h,h as v,i as V,n as y,y as j}from"./chunk-QJPOLOHU.js";import{a as I,c as x}from"./chunk-LMC7RMET.js";import{e as it}from"./chunk-25DXEFVI.js";import{readdirSync as ut,statSync as Z}from"node:fs";import{join as ft,resolve as U}from"node:path";var H={held:"H",deviated:"D",aborted:"A",inconclusive:"?","not-run":"N",refused:"R",failed:"F"};function ct(e){return e===null?"\u23F3":v[e]}function X(e){let{pairs:t,changes:n}=e.flaky;return t===0?"no two runs of the same plan yet":`${n} of ${t} (${I(n/t*100)} %)`}function W(e){let t=e.flatMap(s=>s.breachToStoppedMs===void 0?[]:[s.breachToStoppedMs]);if(t.length===0)return"\u2014";let n=[...t].sort((s,i)=>s-i),r=n[Math.floor((n.length-1)/2)];return`median ${j(r)}, worst ${j(n[n.length-1])} (${t.length} run${t.length===1?"":"s"})`}function q(e){let t=e.flatMap(n=>n.budget?.debit===void 0?[]:[n.budget.debit]);return t.length===0?"\u2014":`${I(t.reduce((n,r)=>n+r,0))} bad events over ${t.length} run${t.length===1?"":"s"}`}function E(e,t){return t===void 0?"never (in this history)":`${y(t)} (${x(Math.max(0,e-t))} ago)`}function S(e){let t=["## chaos-gate history",""],n=e.histories.reduce((r,s)=>r+s.runs.length,0);t.push(`${e.histories.length} plan${e.histories.length===1?"":"s"}, ${n} run${n===1?"":"s"}. Verdicts oldest \u2192 newest (last ${e.last} shown). Flakiness counts verdict changes between consecutive runs of the same plan digest; a change of the plan is not a flake.`,""),e.unread.length&&t.push("> [!WARNING]",`> ${e.unread.length} journal${e.unread.length===1?"":"s"} could not be read and ${e.unread.length===1?"is":"are"} not in this history:`,...e.unread.map(r=>`> - ${b(r.error)}`),""),t.push("| plan | environment | last verdicts | latest | time to stop | budget spent | flakiness | plan changes |","|---|---|---|---|---|---|---|---:|");for(let r of e.histories){let s=r.runs.slice(-e.last),i=r.runs[r.runs.length-1];t.push(`| ${h(r.planId)} | ${h(r.environment)} | ${s.map(o=>ct(o.verdict)).join(" ")} | ${V(i.verdict)} ${h(y(i.startedAt))} | ${h(W(s))} | ${h(q(s))} | ${h(X(r))} | ${r.planChanges} |`)}return t.push("",...ht(e),""),t.push(`Key: ${Object.keys(v).map(r=>`${v[r]} ${r}`).join(" \xB7 ")} \xB7 \u23F3 unfinished`,""),L(t.join(`
`),1048576,"job summary","bytes")}function ht(e){let t=x(e.periodMs),n=y(e.now-e.periodMs),{plans:r,services:s}=e.untested,i=[`### Not exercised within ${t} (since ${n})`,""];if(r.length===0&&s.length===0)return i.push(`Every plan and service in this history had a run whose fault ran within ${t}. A plan with no journal here is not known to this history; pass its plan files with \`--plans\` to include it.`),i;if(r.length){i.push("| plan | environment | service | last exercised |","|---|---|---|---|");for(let o of r)i.push(`| ${h(o.planId)} | ${h(o.environment)} | ${h(o.service)} | ${h(E(e.now,o.lastExercisedAt))} |`);i.push("")}return s.length&&i.push(`Services none of whose plans was exercised: ${s.map(o=>`${b(o.service)} (last ${b(E(e.now,o.lastExercisedAt))})`).join(", ")}.`),i}var pt=`
:root { --fg:#1d2330; --muted:#5b6577; --bg:#fbfcfe; --card:#fff; --line:#d9dee8; --ok:#1f7a3a; --bad:#b42318; }
* { box-sizing: border-box; }
body { margin:0; font:14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color:var(--fg); background:var(--bg); }
header, main { max-width:1100px; margin:0 auto; padding:10px 16px; }
h1 { font-size:20px; margin:8px 0 2px; } h2 { font-size:16px; margin:18px 0 6px; }
.muted { color:var(--muted); }
.panel { margin:0 0 12px; background:var(--card); border:1px solid var(--line); border-radius:8px; padding:8px; overflow-x:auto; }
table { border-collapse:collapse; width:100%; }
th, td { text-align:left; padding:4px 8px; border-bottom:1px solid var(--line); vertical-align:top; }
th { color:var(--muted); font-weight:600; }
.runs { display:flex; gap:3px; flex-wrap:wrap; }
.run { display:inline-block; min-width:18px; height:18px; line-height:18px; border-radius:4px; background:#eef1f6; font-size:11px; font-weight:700; text-align:center; }
.run[data-verdict="held"] { background:#dcf5e3; color:var(--ok); }
.run[data-verdict="deviated"], .run[data-verdict="aborted"], .run[data-verdict="failed"] { background:#fde4e1; color:var(--bad); }
#key { align-items:center; } #key .run { margin-left:10px; }
.flaky[data-flaky="true"] { color:var(--bad); font-weight:600; }
.warn { color:var(--bad); }
`;function Q(e){let t=e.histories.map(a=>{let f=a.runs.slice(-e.last),p=f.map(c=>`<span class="run" data-verdict="${l(c.verdict??"unfinished")}" title="${l(`${c.verdict??"unfinished"} \xB7 ${y(c.startedAt)} \xB7 run ${c.runId} \xB7 ${c.reason??""}`)}">${c.verdict===null?"\u2026":H[c.verdict]}</span>`).join("");return`<tr data-plan="${l(a.planId)}"><td>${l(a.planId)}<div class="muted">${l(a.title)}</div></td><td>${l(a.environment)}</td><td>${l(a.service)}</td><td><div class="runs">${p}</div></td><td>${l(W(f))}</td><td>${l(q(f))}</td><td class="flaky" data-flaky="${String(a.flaky.changes>0)}">${l(X(a))}</td><td>${a.planChanges}</td></tr>`}),{plans:n,services:r}=e.untested,s=n.map(a=>`<tr><td>${l(a.planId)}</td><td>${l(a.environment)}</td><td>${l(a.service)}</td><td>${l(E(e.now,a.lastExercisedAt))}</td></tr>`),i=x(e.periodMs),o=e.unread.length?`<section class="panel warn"><h2>Journals not read</h2><ul>${e.unread.map(a=>`<li>${l(a.error)}</li>`).join("")}</ul></section>`:"";return`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<title>chaos-gate history</title>
<style>${pt}</style>
</head>
<body>
<header>
<h1>chaos-gate history</h1>
<p class="muted">${e.histories.length} plans \xB7 last ${e.last} runs each, oldest \u2192 newest \xB7 generated ${l(y(e.now))}. Flakiness: verdict changes between consecutive runs of the same plan digest.</p>
<p class="runs" id="key">${Object.keys(H).map(a=>`<span class="run" data-verdict="${a}">${H[a]}</span>&nbsp;${a}`).join(" ")} <span class="run">\u2026</span>&nbsp;unfinished</p>
</header>
<main>
${o}
<section class="panel"><h2>Plans</h2>
<table id="plans"><thead><tr><th>plan</th><th>environment</th><th>service</th><th>last verdicts</th><th>time to stop</th><th>budget spent</th><th>flakiness</th><th>plan changes</th></tr></thead>
<tbody>${t.join(`
`)}</tbody></table></section>
<section class="panel" id="untested"><h2>Not exercised within ${l(i)}</h2>
${s.length?`<table><thead><tr><th>plan</th><th>environment</th><th>service</th><th>last exercised</th></tr></thead><tbody>${s.join(`
`)}</tbody></table>`:`<p>Every plan and service in this history was exercised within ${l(i)}.</p>`}
${r.length?`<p>Services not exercised: ${r.map(a=>l(a.service)).join(", ")}.</p>`:""}
</section>
</main>
</body>
</html>
`}var nt=it(dt(),1);var tt=2,rt=10,st="7d",ot=200,mt=`Usage: chaos-gate history [<journal or directory>...] [--artifacts <dir>] [--plans <dir or file>]...
                          [--last <n>] [--period <duration>] [--markdown [<out>]] [--html <out>]

A verdict history per plan and environment: the last verdicts (oldest to newest), time to stop (first
breach to FIS ended), budget spent, flakiness (verdict changes between consecutive runs whose plan
digest is the same: a changed plan is not a flake) and how often the plan changed; then the plans and
services with no run whose fault ran within the period (the untested set). Every figure is each run's
own judgement. A directory is searched for *.json, *.ndjson and *.jsonl journals.

Options:
  --artifacts <dir>      also read past workflow runs' journal artifacts (named chaos-gate-*), downloaded
                         into <dir> through GitHub's artifacts API with @actions/artifact; needs
                         GITHUB_TOKEN (actions: read) and GITHUB_REPOSITORY, and GITHUB_API_URL off github.com
  --branch <name>        with --artifacts: only artifacts of workflow runs on this branch (e.g. main)
  --max-artifacts <n>    download at most the newest <n> artifacts (default ${ot})
  --plans <path>         plan files (or directories of them) that should be exercised: a plan with no run
                         at all is untested too (repeatable)
  --last <n>             verdicts shown per plan (default ${rt})
  --period <duration>    the untested set's window, e.g. 7d, 36h (default ${st})
  --markdown [<out>]     write the Markdown to <out> (e.g. "$GITHUB_STEP_SUMMARY"); printed when no
                         --html is given
  --html <out>           write the self-contained HTML page to <out>
  -h, --help             show this help

A journal that cannot be read, or an artifact that cannot be downloaded, is listed in the report and
makes the exit code 2.

${K("history")}`;function et(e,t,n){if(t===void 0)return n;if(!/^\d+$/.test(t)||Number(t)<1)throw new u(`${e} ${t}: expected a whole number of at least 1`);return Number(t)}async function gt(e,t){let n=[];for(let s of e){let i=Z(s,{throwIfNoEntry:!1});if(!i)throw new u(`--plans ${s}: no such file or directory; expected a plan file or a directory of them`);if(!i.isDirectory()){n.push(s);continue}for(let o of ut(s).sort()){let a=ft(s,o);!/\.ya?ml$/i.test(o)||!Z(a).isFile()||(yt(a)?n.push(a):t(`--plans: passed over ${a}: not a plan (no id, hypothesis and fis)`))}}let r=[];for(let s of[...new Set(n)]){let{plan:i}=await G(s);r.push({planId:i.id,service:i.service,environment:i.environment})}return r}function yt(e){let t;try{t=(0,nt.parse)(P(e,{what:"plan file",maxBytes:D}).text)}catch{return!0}return typeof t!="object"||t===null?!0:["id","hypothesis","fis"].every(n=>n in t)}var Ot={name:"history",usage:mt,async run(e,t){let n,r=!1,s=[];for(let d=0;d<e.length;d++)if(e[d]==="--markdown"){r=!0;let T=e[d+1];T!==void 0&&!T.startsWith("-")&&(n=T,d++)}else s.push(e[d]);let i=z(s,{artifacts:{type:"string"},"max-artifacts":{type:"string"},branch:{type:"string"},plans:{type:"string",multiple:!0},last:{type:"string"},period:{type:"string"},html:{type:"string"}}),o=i.values,a=et("--last",o.last,rt),f=et("--max-artifacts",o["max-artifacts"],ot),p=o.period??st,c=O(p);if(c===void 0||c<=0)throw new u(`--period ${p}: expected a duration such as 7d, 36h or 90m`);let g=i.positionals.map(d=>U(t.cwd,d));if(o.branch!==void 0&&o.artifacts===void 0)throw new u("--branch goes with --artifacts");if(g.length===0&&o.artifacts===void 0)throw new u("name at least one journal or directory, or --artifacts <dir>");let m=[];if(o.artifacts!==void 0){let d=await wt(t,U(t.cwd,o.artifacts),f,o.branch);m.push(...d.problems),g.push(d.dir)}let R=[];try{R=await gt((o.plans??[]).map(d=>U(t.cwd,d)),d=>t.err($(d)))}catch(d){if(!(d instanceof C))throw d;return t.err(N(d.message)),tt}let{entries:_,unread:at}=Y(g);m.push(...at);let M=Date.now(),k=F(_),w={histories:k,untested:J(k,M-c,R),unread:m,last:a,periodMs:c,now:M};o.html!==void 0&&(A(t,"--html",o.html,Q(w)),t.err(`wrote ${o.html}`)),n!==void 0?(A(t,"--markdown",n,S(w)),t.err(`wrote ${n}`)):(r||o.html===void 0)&&t.out(S(w)),t.err(`history: ${_.length} runs of ${k.length} plans; ${w.untested.plans.length} not exercised within ${B(c)}`);for(let d of m)t.err($(d.error));return m.length>0?tt:0}};async function wt(e,t,n,r){let s=e.env,i=s.GITHUB_TOKEN,[o,a,...f]=(s.GITHUB_REPOSITORY??"").split("/");if(!i)throw new u("--artifacts needs GITHUB_TOKEN (a token that may read Actions artifacts)");if(!o||!a||f.length>0)throw new u(`--artifacts needs GITHUB_REPOSITORY as owner/name; got ${JSON.stringify(s.GITHUB_REPOSITORY??"")}`);let p=t,{downloadJournalArtifacts:c}=await import("./history-artifacts-ZC2AZGAM.js"),g=await c({apiUrl:s.GITHUB_API_URL??"https://api.github.com",token:i,owner:o,repo:a,dir:p,max:n,branch:r,log:m=>e.err($(m))});return e.err(`downloaded ${g.downloaded} journal artifact(s) into ${p}`),{dir:p,problems:g.problems}}export{Ot as history};
//# sourceMappingURL=history-P4E3Q74V.js.map
