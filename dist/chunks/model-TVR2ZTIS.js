import { createRequire as __cgCreateRequire } from 'node:module';
const require = __cgCreateRequire(import.meta.url);
import{a as v}from"./chunk-WDYXHSGP.js";import{a as l,b as g}from"./chunk-IXNIOXIC.js";import{b as u}from"./chunk-3XBTKLZR.js";import"./chunk-FOSMA5LH.js";import"./chunk-M4D3BQ5T.js";import"./chunk-PYQUZR4R.js";import"./chunk-EHR7TKGS.js";import{d as m}from"./chunk-VOPGYP3F.js";import{a as p,d as f}from"./chunk-M3SHSEKE.js";import"./chunk-6D3SD7QI.js";import"./chunk-25DXEFVI.js";import{writeFileSync as h}from"node:fs";import{resolve as y}from"node:path";var x=1,w=`Usage: chaos-gate model failover --every <s> --failures <n> --depth shallow|deep --ttl <s>
                                --capacity full|half|zero --replication async|sync [--fault region|model]
                                [--min-served 70] [--max-failover 15] [--json] [--html <out>]

A deterministic model of an agent service failing over from a primary to a secondary region over
60 s at 10 rps, the primary down from 15 s to 45 s (docs/analysis.md). Same inputs as a plan's failover section.

Options:
  --every S          health-check period in seconds
  --failures N       consecutive failed checks that mark the primary down
  --depth D          shallow (the process answers) or deep (calls the model endpoint)
  --ttl S            seconds clients cache the route
  --capacity C       secondary capacity: full (10 rps), half (5 rps), zero (cold for 20 s)
  --replication R    async (10 s lag) or sync
  --fault F          region (default) or model (only the model endpoint fails)
  --min-served P     gate: minimum percent of outage requests served (default 70)
  --max-failover S   gate: maximum seconds to the first request served by the secondary (default 15)
  --json             print {markedDownAt, servedShare, failoverSeconds, lostConversations, pass, criteria, series, events}
  --html OUT         also write the interactive replay to OUT (one self-contained file)
  -h, --help         show this help

${v("model")}`,b={every:{flag:"--every",expected:"a number of seconds above 0"},failures:{flag:"--failures",expected:"a whole number of failed checks, 1 or more"},depth:{flag:"--depth",expected:"shallow or deep"},ttl:{flag:"--ttl",expected:"a number of seconds above 0"},capacity:{flag:"--capacity",expected:"full, half or zero"},replication:{flag:"--replication",expected:"async or sync"},fault:{flag:"--fault",expected:"region or model"},minServed:{flag:"--min-served",expected:"a percentage from 0 to 100"},maxFailover:{flag:"--max-failover",expected:"a number of seconds above 0"}};function F(a){let o=t=>{let r=a[t];if(typeof r!="string")return;let e=Number(r);return r.trim()===""||Number.isNaN(e)?r:e},n={every:o("every"),failures:o("failures"),depth:a.depth,ttl:o("ttl"),capacity:a.capacity,replication:a.replication,fault:a.fault,minServed:o("min-served"),maxFailover:o("max-failover")},s=u.safeParse(n);if(!s.success){let r=[...new Set(s.error.issues.map(e=>String(e.path[0]??"")))].map(e=>{let{flag:i,expected:c}=b[e]??{flag:`--${e}`,expected:"a valid value"},d=n[e];return d===void 0?`${i} is missing; expected ${c}`:`${i} '${String(d)}' is not valid; expected ${c}`});throw new l(r.join(`
`))}return s.data}var T={name:"model",usage:w,async run(a,o){let[n,...s]=a;if(n!=="failover")throw new l(n===void 0?"missing the model name (failover)":`unknown model '${n}'; expected failover`);let t=g(s,{every:{type:"string"},failures:{type:"string"},depth:{type:"string"},ttl:{type:"string"},capacity:{type:"string"},replication:{type:"string"},fault:{type:"string"},"min-served":{type:"string"},"max-failover":{type:"string"},json:{type:"boolean",default:!1},html:{type:"string"}});if(t.positionals.length>0)throw new l(`unexpected argument: ${t.positionals.join(" ")}`);let r=F(t.values),e=p(r);if(o.out(t.values.json?JSON.stringify(e,null,2):f(e,r)),t.values.html!==void 0){let i=y(o.cwd,t.values.html);h(i,m(e,r)),o.err(`wrote the replay to ${t.values.html}`)}return e.pass?0:x}};export{T as model,F as parseFailoverFlags};
//# sourceMappingURL=model-TVR2ZTIS.js.map
