import { createRequire as __cgCreateRequire } from 'node:module';
const require = __cgCreateRequire(import.meta.url);
import{a as j}from"./chunk-WDYXHSGP.js";import{b as x}from"./chunk-SI3X4DE7.js";import{a as _,b as U,c as S,e as R}from"./chunk-W4N5LGRK.js";import"./chunk-WMCPU32G.js";import"./chunk-BHUM7DTT.js";import"./chunk-EJBLL3L7.js";import"./chunk-PLLNKGMS.js";import"./chunk-2HHDUQUA.js";import"./chunk-LWPML6ZQ.js";import"./chunk-MKAHH734.js";import"./chunk-6OAJOIND.js";import"./chunk-MUWS54WB.js";import{b as d,c as v}from"./chunk-WFTLWT46.js";import{b as E}from"./chunk-Y3YFF6YU.js";import{a as I}from"./chunk-BE2TR774.js";import"./chunk-77HAELQ6.js";import"./chunk-F5CQG3BV.js";import"./chunk-YJR2IGVK.js";import{b as w}from"./chunk-THX4JMUZ.js";import"./chunk-F3IEBV6A.js";import"./chunk-LKPMGJ6X.js";import{a,b}from"./chunk-IXNIOXIC.js";import"./chunk-3J4NY55U.js";import"./chunk-7G6JGMPY.js";import"./chunk-PYQUZR4R.js";import"./chunk-4RLLMRF4.js";import{b as T}from"./chunk-TVCK7UTO.js";import"./chunk-M3SHSEKE.js";import"./chunk-6D3SD7QI.js";import"./chunk-25DXEFVI.js";import{resolve as i}from"node:path";var C=6e4,G=`Usage: chaos-gate run <plan> [options]

Runs the experiment of a plan as a gate: preflight, FIS template, steady state, injection under
tripwires, verified stop, recovery, verdict.

Options:
  --journal <path>            journal file (default out/<plan id>.journal.json next to the cwd)
  --policy <file>             policy file whose ceilings the plan may only narrow
  --prometheus-url <url>      Prometheus HTTP API (or CHAOS_GATE_PROMETHEUS_URL)
  --prometheus-header 'K: V'  extra header, repeatable (or CHAOS_GATE_PROMETHEUS_HEADERS)
  --aws-region <region>       AWS Region (or AWS_REGION)
  --queue-timeout <duration>  wait this long for overlapping chaos-gate experiments (default ${d})
  --abort-file <path>         a file whose appearance aborts the run
  --drift repair|refuse       what to do with a template edited by hand (default repair)
  --run-id <id>               idempotency key of this run (default GITHUB_RUN_ID or a timestamp)
  --attempt <n>               attempt number (default GITHUB_RUN_ATTEMPT or 1)
  --json                      print {verdict, reason, exitCode, experimentId, journal} at the end
  -h, --help                  show this help

SIGINT/SIGTERM stop the fault (verified) and end the run as aborted.

${j("run")}`,k={name:"run",usage:G,async run(A,e){let P=b(A,{journal:{type:"string"},policy:{type:"string"},"prometheus-url":{type:"string"},"prometheus-header":{type:"string",multiple:!0},"aws-region":{type:"string"},"queue-timeout":{type:"string"},"abort-file":{type:"string"},drift:{type:"string"},"run-id":{type:"string"},attempt:{type:"string"},json:{type:"boolean",default:!1}}),{values:r,positionals:m}=P;if(m.length!==1)throw new a("expected exactly one plan file");let p=m[0],c=r["queue-timeout"],f=T(c??d);if(f===void 0)throw new a(`--queue-timeout '${c}' is not a duration; expected ${I}`);let o=r.drift;if(o!==void 0&&o!=="repair"&&o!=="refuse")throw new a(`--drift '${o}' must be repair or refuse`);let u=Number(r.attempt??e.env.GITHUB_RUN_ATTEMPT??"1");if(!Number.isInteger(u)||u<1)throw new a("--attempt must be a positive integer");let l=i(e.cwd,r.journal??`out/${p.replace(/^.*\//,"").replace(/\.(ya?ml|json)$/,"")}.journal.json`),h=new AbortController,s=t=>{e.err(`chaos-gate: ${t} received \u2014 stopping the fault and verifying the stop`),h.abort(`${t}`)};process.on("SIGINT",s),process.on("SIGTERM",s);let g=e.errTty??!1,y=R(e.err,{steadyEveryMs:g?0:1e4,compactAfterMs:C,paint:S(e.env,g)?_:U});try{let t=await x({planPath:i(e.cwd,p),displayPath:p,policyPath:r.policy?i(e.cwd,r.policy):void 0,prometheus:{url:r["prometheus-url"],...r["prometheus-header"]?{headers:r["prometheus-header"]}:{}},awsRegion:r["aws-region"],journalPath:l,runId:r["run-id"]??e.env.GITHUB_RUN_ID??`local-${Date.now()}`,attempt:u,repo:e.env.GITHUB_REPOSITORY,sha:e.env.GITHUB_SHA,queueTimeoutMs:f,abortFile:r["abort-file"]?i(e.cwd,r["abort-file"]):void 0,drift:o,signal:h.signal,env:e.env,onTick:y.onTick,onEvent:y.onEvent,onExperimentId:n=>e.err(`chaos-gate: experiment ${n} started`),log:n=>e.err(`chaos-gate: ${n}`)});return r.json?e.out(JSON.stringify({verdict:t.verdict,reason:t.reason,exitCode:t.exitCode,experimentId:t.experimentId??null,journal:l})):(e.out(`verdict: ${t.verdict} \u2014 ${t.reason}`),e.out(`journal: ${l}`)),t.exitCode}catch(t){if(t instanceof E){for(let n of t.issues)e.err(w(n));return 2}if(t instanceof v)return e.err(t.message),2;throw t}finally{process.off("SIGINT",s),process.off("SIGTERM",s)}}};export{k as run};
//# sourceMappingURL=run-4NH35WBJ.js.map
