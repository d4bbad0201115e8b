import { createRequire as __cgCreateRequire } from 'node:module';
const require = __cgCreateRequire(import.meta.url);
import{a as c}from"./chunk-WDYXHSGP.js";import{a as i,b as r}from"./chunk-IXNIOXIC.js";import{a as l,c as n}from"./chunk-JRZ3XOQ7.js";import"./chunk-KZKXZ3VF.js";import"./chunk-ZQ6LOEG6.js";import"./chunk-77HAELQ6.js";import"./chunk-VWTGY2LF.js";import"./chunk-O3A3UMY5.js";import"./chunk-YFH4TU2Z.js";import"./chunk-3XBTKLZR.js";import"./chunk-FOSMA5LH.js";import"./chunk-M4D3BQ5T.js";import"./chunk-YTJKWLTU.js";import"./chunk-VSRKG4CO.js";import"./chunk-JTX5CRBO.js";import"./chunk-LKPMGJ6X.js";import"./chunk-PYQUZR4R.js";import"./chunk-EHR7TKGS.js";import"./chunk-M3SHSEKE.js";import"./chunk-25DXEFVI.js";var d=2,u=`Usage: chaos-gate validate <plan> [--policy <file>] [--json]

Checks a plan file (YAML or JSON) without touching AWS, Prometheus or GitHub, with every check a run
applies before it touches anything: the plan schema; the static refusals (abort rules, SLIs, action and
run durations against their ceilings, tags, selection modes, PromQL syntax, the interval and what the
fault's measurements allow blindAfter and each rule's for); the failover model; the schedule's time
zone, cron fields and windows; the dependency-closure veto when the service catalog is in the
workspace; and with --policy, the policy's ceilings.

Options:
  --policy <file>  the policy file whose ceilings the plan may only narrow (as the action's policy input)
  --json           print one JSON object {valid, file, digest, issues, refusals}
  -h, --help       show this help

${c("validate")}`,w={name:"validate",usage:u,async run(p,e){let t=r(p,{json:{type:"boolean",default:!1},policy:{type:"string"}}),[o,...s]=t.positionals;if(o===void 0)throw new i("missing the plan file argument; expected chaos-gate validate <plan>");if(s.length>0)throw new i(`expected one plan file, got also: ${s.join(" ")}`);let a=await l(o,{cwd:e.cwd,policy:t.values.policy,workspace:e.env.GITHUB_WORKSPACE??e.cwd});if(t.values.json)e.out(JSON.stringify(a,null,2));else for(let h of n(a))e.out(h);return a.valid?0:d}};export{w as validate};
//# sourceMappingURL=validate-FGYAURDZ.js.map
