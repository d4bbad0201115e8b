import { createRequire as __cgCreateRequire } from 'node:module';
const require = __cgCreateRequire(import.meta.url);
import{a as x,b as E,c as L,d as P,e as $}from"./chunk-ECJEYNG3.js";import{e as f}from"./chunk-W4N5LGRK.js";import"./chunk-IDF634SF.js";import{b as w}from"./chunk-BHUM7DTT.js";import{a as v}from"./chunk-WDYXHSGP.js";import{a as h,b}from"./chunk-IXNIOXIC.js";import"./chunk-LWPML6ZQ.js";import{e as y,f as S}from"./chunk-Y3YFF6YU.js";import"./chunk-BE2TR774.js";import"./chunk-77HAELQ6.js";import"./chunk-F5CQG3BV.js";import"./chunk-YJR2IGVK.js";import"./chunk-THX4JMUZ.js";import"./chunk-F3IEBV6A.js";import"./chunk-LKPMGJ6X.js";import"./chunk-7G6JGMPY.js";import"./chunk-PYQUZR4R.js";import"./chunk-4RLLMRF4.js";import"./chunk-TVCK7UTO.js";import"./chunk-6D3SD7QI.js";import"./chunk-25DXEFVI.js";import{existsSync as T}from"node:fs";import{dirname as N,join as A,resolve as p}from"node:path";import{fileURLToPath as G}from"node:url";var m=class{constructor(t,n=Date.now()){this.speed=t;this.start=n}speed;start;realStart=Date.now();now(){return this.start+Math.round((Date.now()-this.realStart)*this.speed)}sleep(t,n){return new Promise(s=>{if(n?.aborted||t<=0)return s();let r=setTimeout(a,t/this.speed);function a(){clearTimeout(r),n?.removeEventListener("abort",a),s()}n?.addEventListener("abort",a,{once:!0})})}};var g=.5,j=.7,k=.1;function R(o){let t=o.steady??o,s=(e=>e.between?(e.between[0]+e.between[1])/2:e.max!==void 0?e.max*g:e.min!==void 0?e.min<1&&e.min>0?e.min+(1-e.min)*g:e.min*(1+g):0)(t),r=s;o.max!==void 0&&(r=s+(o.max-s)*j),o.min!==void 0&&(r=s-(s-o.min)*j);let a=Math.abs(r-s)||Math.abs(s)*.05,i={baseline:s,noise:a*k,gaps:[]};return r!==s&&(i.effect={to:r,shape:"ramp",delay:1e3,rampOver:3e3,recoveryLag:3e3}),o.min!==void 0&&o.min>0&&o.min<1&&(i.max=1),s>=0&&(i.min=0),i}function I(o,t={}){let n=o.hypothesis,s={};for(let e of n.slis)s[e.name]=R(e);for(let e of n.expect){let d=e.atLeast??e.atMost??1,l=e.atLeast!==void 0?d-1:d+1;s[e.name]={baseline:l,noise:0,gaps:[],effect:{to:d,shape:"step",delay:1e3,rampOver:0,recoveryLag:0}}}let r=o.abort.rules[0],a=r?s[r.sli]:void 0;if(t.breach&&r&&a?.effect){let e=r.above??r.below??0;a.effect.to=r.above!==void 0?e*1.3+.001:e*.7,a.effect.delay=4e3}let i=Math.max(100,Math.ceil(n.minRequests*1e3/n.interval*1.1));return x.parse({seed:t.seed??1,description:`generated from plan ${o.id}`,metrics:Object.fromEntries(Object.entries(s).map(([e,d])=>[e,{...d,effect:d.effect&&{...d.effect,delay:`${d.effect.delay}ms`,rampOver:`${d.effect.rampOver}ms`,recoveryLag:`${d.effect.recoveryLag}ms`}}])),requests:{baseline:i,noise:i*.02},injector:{actionDuration:`${y(o)||6e4}ms`,initiating:"500ms",stopLatency:"1500ms"}})}var D="fixtures/plans/redis-partition.yaml",O=6e3,H=3e4,C=2,F=`Usage: chaos-gate demo [--no-prometheus] [--out-dir <dir>]
       chaos-gate demo --simulated [--plan <file>] [--scenario <file>] [--breach] [--speed <n>]
                                   [--out-dir <dir>] [--journal <path>]

Default: starts the sandbox (\`chaos-gate sandbox\`) as a child process and runs two Redis partition
plans through the GitHub Action's own code path, against the sandbox's AWS and GitHub stand-ins:
fixtures/plans/demo-holds.yaml with the canary's fallback on (expects held) and
fixtures/plans/demo-aborts.yaml with it off (expects aborted: a tripwire stops FIS). SLIs come from a
real Prometheus when \`prometheus\` is on PATH (or $PROMETHEUS_BIN), else from the canary's /metrics.
Prints a line per measurement, the check runs the GitHub stand-in recorded, where the journal, summary
and HTML report are, and a recap. Exit 0 when both verdicts are as expected, else 1. Under 90 s.

Options:
  --no-prometheus    use the scrape source even when Prometheus is installed
  --out-dir <dir>    where the files go (default out/demo)
  --simulated        the older demo: one plan on a simulated world, no sandbox (options below)
  -h, --help         show this help

With --simulated:
  --plan <file>      the plan to run (default ${D})
  --scenario <file>  a scenario file instead of the world generated from the plan
  --breach           make the first abort rule's SLI break its threshold (shows an abort)
  --speed <n>        simulated seconds per wall second (default: the run fits in ~6 s)
  --out-dir <dir>    where the journal goes (default out/demo)
  --journal <path>   the journal's path itself (default <out-dir>/<plan id>.journal.json)

Ctrl-C stops the fault like a cancelled job (then, by default, ends the sandbox and Prometheus).

${v("demo")}`;function U(o,t){let n=p(o,t);if(T(n))return n;let s=N(G(import.meta.url));for(let r of["..","../..","../../.."]){let a=p(s,r,t);if(T(a))return a}return n}function _(o){if(o.length>0)throw new h(`unexpected argument '${o[0]}': the demo takes options only`)}async function W(o,t){let n=b(o,{plan:{type:"string"},scenario:{type:"string"},breach:{type:"boolean",default:!1},speed:{type:"string"},"out-dir":{type:"string"},journal:{type:"string"}});_(n.positionals);let s=n.values.plan??D,r=await P(U(t.cwd,s),t);if(!r)return C;let a;if(n.values.scenario!==void 0)try{a=L(p(t.cwd,n.values.scenario))}catch(c){if(!(c instanceof E))throw c;return t.err(c.message),C}else a=I(r.plan,{breach:n.values.breach});let i=n.values.speed!==void 0?Number(n.values.speed):Math.max(1,S(r.plan)/O);if(!Number.isFinite(i)||i<=0)throw new h(`--speed ${n.values.speed}: expected a positive number`);let e=p(t.cwd,n.values.journal??A(n.values["out-dir"]??A("out","demo"),`${r.plan.id}.journal.json`));t.out(`chaos-gate demo: ${r.plan.title}`),t.out(`plan ${s} (digest ${r.digest.slice(0,12)}), simulated world at ${i.toFixed(0)}x speed
`);let d=new AbortController,l=c=>d.abort(c);process.once("SIGINT",l),process.once("SIGTERM",l);try{let c=f(t.out,{steadyEveryMs:H}),{result:u}=await $({loaded:r,scenario:a,clock:new m(i),journal:new w(e),signal:d.signal,onTick:c.onTick,onEvent:c.onEvent});return t.out(`
verdict: ${u.verdict} (exit ${u.exitCode})`),t.out(`reason:  ${u.reason}`),t.out(`journal: ${e}`),t.out(`summary: chaos-gate report ${e} --markdown`),u.exitCode}finally{process.removeListener("SIGINT",l),process.removeListener("SIGTERM",l)}}var M=["SIGINT","SIGTERM"];async function J(o,t){let{values:n,positionals:s}=b(o,{"no-prometheus":{type:"boolean"},"out-dir":{type:"string"}});_(s);let{runSandboxDemo:r}=await import("./sandbox-demo-OP7VNLMP.js"),a=new AbortController,i=e=>{a.signal.aborted||t.err(`
chaos-gate demo: ${e}: stopping the fault, then the sandbox\u2026`),a.abort(e)};for(let e of M)process.on(e,i);try{return(await r({cwd:t.cwd,outDir:n["out-dir"],noPrometheus:n["no-prometheus"]??!1,env:t.env,out:t.out,signal:a.signal,progress:()=>f(d=>t.out(`  ${d}`))})).ok?0:1}finally{for(let e of M)process.removeListener(e,i)}}var ie={name:"demo",usage:F,async run(o,t){return o.includes("--simulated")?W(o.filter(n=>n!=="--simulated"),t):J(o,t)}};export{ie as demo};
//# sourceMappingURL=demo-F2HLM5E2.js.map
