import { createRequire as __cgCreateRequire } from 'node:module';
const require = __cgCreateRequire(import.meta.url);
import{a as l,c as n}from"./chunk-QAH2BRLA.js";import{a as c}from"./chunk-46O3G4IC.js";import{a as i,b as r}from"./chunk-QF4H3ZVO.js";import"./chunk-MNYVBWUK.js";import"./chunk-77HAELQ6.js";import"./chunk-2G6GP3NB.js";import"./chunk-5T6GIAZI.js";import"./chunk-4ZBO6UPA.js";import"./chunk-J3LL46CP.js";import"./chunk-MN7XPOS3.js";import"./chunk-LPBPJ2RO.js";import"./chunk-WWFBIK55.js";import"./chunk-JTX5CRBO.js";import"./chunk-LY6DVYZL.js";import"./chunk-M3SHSEKE.js";import"./chunk-3UROKGFD.js";import"./chunk-PYQUZR4R.js";import"./chunk-I4ASWHR4.js";import"./chunk-25DXEFVI.js";var d=2,u=`Usage: chaos-gate validate <plan> [--policy <file>] [--json]

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
//# sourceMappingURL=validate-HBOYR2QR.js.map
