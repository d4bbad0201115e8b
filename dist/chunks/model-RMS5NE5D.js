import { createRequire as __cgCreateRequire } from 'node:module';
const require = __cgCreateRequire(import.meta.url);
import{a as h}from"./chunk-5F5Y2QXL.js";import{a as i,b as g,e as v}from"./chunk-Y4OFZKUG.js";import"./chunk-RZEKKQEN.js";import{c as p}from"./chunk-4ZL3I2BX.js";import"./chunk-SGKFDL4C.js";import"./chunk-WWFBIK55.js";import"./chunk-EQXRDIRX.js";import"./chunk-RDFI6XVV.js";import{d as u}from"./chunk-RQXCKHZX.js";import"./chunk-5FKF7ATX.js";import{a as f,d as m}from"./chunk-M3SHSEKE.js";import"./chunk-T6DYACQC.js";import"./chunk-PYQUZR4R.js";import"./chunk-QJPOLOHU.js";import"./chunk-LMC7RMET.js";import"./chunk-25DXEFVI.js";var y=1,x=`Usage: chaos-gate model failover --every <s> --failures <n> --depth shallow|deep --ttl <s>
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

${h("model")}`,w={every:{flag:"--every",expected:"a number of seconds above 0"},failures:{flag:"--failures",expected:"a whole number of failed checks, 1 or more"},depth:{flag:"--depth",expected:"shallow or deep"},ttl:{flag:"--ttl",expected:"a number of seconds above 0"},capacity:{flag:"--capacity",expected:"full, half or zero"},replication:{flag:"--replication",expected:"async or sync"},fault:{flag:"--fault",expected:"region or model"},minServed:{flag:"--min-served",expected:"a percentage from 0 to 100"},maxFailover:{flag:"--max-failover",expected:"a number of seconds above 0"}};function b(o){let a=t=>{let r=o[t];if(typeof r!="string")return;let e=Number(r);return r.trim()===""||Number.isNaN(e)?r:e},n={every:a("every"),failures:a("failures"),depth:o.depth,ttl:a("ttl"),capacity:o.capacity,replication:o.replication,fault:o.fault,minServed:a("min-served"),maxFailover:a("max-failover")},s=p.safeParse(n);if(!s.success){let r=[...new Set(s.error.issues.map(e=>String(e.path[0]??"")))].map(e=>{let{flag:l,expected:c}=w[e]??{flag:`--${e}`,expected:"a valid value"},d=n[e];return d===void 0?`${l} is missing; expected ${c}`:`${l} '${String(d)}' is not valid; expected ${c}`});throw new i(r.join(`
`))}return s.data}var j={name:"model",usage:x,async run(o,a){let[n,...s]=o;if(n!=="failover")throw new i(n===void 0?"missing the model name (failover)":`unknown model '${n}'; expected failover`);let t=g(s,{every:{type:"string"},failures:{type:"string"},depth:{type:"string"},ttl:{type:"string"},capacity:{type:"string"},replication:{type:"string"},fault:{type:"string"},"min-served":{type:"string"},"max-failover":{type:"string"},json:{type:"boolean",default:!1},html:{type:"string"}});if(t.positionals.length>0)throw new i(`unexpected argument: ${t.positionals.join(" ")}`);let r=b(t.values),e=f(r);return a.out(t.values.json?JSON.stringify(e,null,2):m(e,r)),t.values.html!==void 0&&(v(a,"--html",t.values.html,u(e,r)),a.err(`wrote the replay to ${t.values.html}`)),e.pass?0:y}};export{j as model,b as parseFailoverFlags};
//# sourceMappingURL=model-RMS5NE5D.js.map
