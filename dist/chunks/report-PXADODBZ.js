import { createRequire as __cgCreateRequire } from 'node:module';
const require = __cgCreateRequire(import.meta.url);
import{a as m,c as h}from"./chunk-YVERZYOC.js";import{a as p}from"./chunk-46O3G4IC.js";import{a as n,b as d,e as u}from"./chunk-QF4H3ZVO.js";import"./chunk-IRCMQXCG.js";import"./chunk-LY6DVYZL.js";import{c as i}from"./chunk-F4ZWS355.js";import"./chunk-M3SHSEKE.js";import"./chunk-3UROKGFD.js";import"./chunk-PYQUZR4R.js";import{e as l}from"./chunk-74BIIMHA.js";import"./chunk-RFY3XBIP.js";import"./chunk-2CBHCUH5.js";import"./chunk-4RLLMRF4.js";import"./chunk-XTG5ZU7U.js";import"./chunk-B2RS7DJ3.js";import"./chunk-I4ASWHR4.js";import"./chunk-25DXEFVI.js";import{resolve as c}from"node:path";var w=2,g=`Usage: chaos-gate report <journal> [--markdown] [--html <out>]

Renders a run journal as the job-summary markdown (verdict, reason, SLI charts, timings, FIS link),
or as one self-contained HTML file that replays the run (Play, Next event, Restart, Speed, scrubber).
Reads both the final journal and the NDJSON prefix a crashed or killed run leaves behind.

Options:
  --markdown    print the markdown (the default when --html is not given)
  --html <out>  write the HTML replay report to <out>
  -h, --help    show this help

${p("report")}`,C={name:"report",usage:g,async run(f,r){let o=d(f,{markdown:{type:"boolean"},html:{type:"string"}}),[a,...s]=o.positionals;if(a===void 0)throw new n("missing the journal file argument");if(s.length>0)throw new n(`expected one journal file, got also: ${s.join(" ")}`);try{let e=h(c(r.cwd,a)),t=o.values.html;return t!==void 0&&(u(r,"--html",t,i(e)),r.err(`wrote ${t}`)),(t===void 0||o.values.markdown)&&r.out(l(e)),0}catch(e){if(!(e instanceof m))throw e;return r.err(e.message),w}}};export{C as report};
//# sourceMappingURL=report-PXADODBZ.js.map
