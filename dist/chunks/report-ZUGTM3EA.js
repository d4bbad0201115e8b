import { createRequire as __cgCreateRequire } from 'node:module';
const require = __cgCreateRequire(import.meta.url);
import{a as d,c as u}from"./chunk-IBPMUCFR.js";import{a as p}from"./chunk-WDYXHSGP.js";import{a as n,b as h}from"./chunk-IXNIOXIC.js";import"./chunk-BHUM7DTT.js";import"./chunk-LKPMGJ6X.js";import"./chunk-PYQUZR4R.js";import"./chunk-4RLLMRF4.js";import{e as l}from"./chunk-GVALTURK.js";import"./chunk-G62HPFDP.js";import"./chunk-EHR7TKGS.js";import{c as m}from"./chunk-VOPGYP3F.js";import"./chunk-M3SHSEKE.js";import"./chunk-6D3SD7QI.js";import"./chunk-25DXEFVI.js";import{mkdirSync as w,writeFileSync as g}from"node:fs";import{dirname as y,resolve as c}from"node:path";var k=2,j=`Usage: chaos-gate report <journal> [--markdown] [--html <out>]

Renders a run journal as the job-summary markdown (verdict, reason, SLI charts, timings, FIS link),
or as one self-contained HTML file that replays the run (Play, Next event, Restart, Speed, scrubber).
Reads both the final journal and the NDJSON prefix a crashed or killed run leaves behind.

Options:
  --markdown    print the markdown (the default when --html is not given)
  --html <out>  write the HTML replay report to <out>
  -h, --help    show this help

${p("report")}`,N={name:"report",usage:j,async run(f,r){let o=h(f,{markdown:{type:"boolean"},html:{type:"string"}}),[a,...s]=o.positionals;if(a===void 0)throw new n("missing the journal file argument");if(s.length>0)throw new n(`expected one journal file, got also: ${s.join(" ")}`);try{let e=u(c(r.cwd,a)),t=o.values.html;if(t!==void 0){let i=c(r.cwd,t);w(y(i),{recursive:!0}),g(i,m(e)),r.err(`wrote ${t}`)}return(t===void 0||o.values.markdown)&&r.out(l(e)),0}catch(e){if(!(e instanceof d))throw e;return r.err(e.message),k}}};export{N as report};
//# sourceMappingURL=report-ZUGTM3EA.js.map
