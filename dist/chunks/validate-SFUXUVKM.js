import { createRequire as __cgCreateRequire } from 'node:module';
const require = __cgCreateRequire(import.meta.url);
import{a as c}from"./chunk-5F5Y2QXL.js";import{a as i,b as r}from"./chunk-Y4OFZKUG.js";import{a as l,c as n}from"./chunk-WDVDBI72.js";import"./chunk-KXR5YWHK.js";import"./chunk-EKNCD2XM.js";import"./chunk-3KLCAFWW.js";import"./chunk-EM6PDFUN.js";import"./chunk-6WKIOMCZ.js";import"./chunk-RZEKKQEN.js";import"./chunk-V6Q5TVEM.js";import"./chunk-XLQ3EX6P.js";import"./chunk-77HAELQ6.js";import"./chunk-IJH6KL4Z.js";import"./chunk-T3CBBOP3.js";import"./chunk-JK3FOVJL.js";import"./chunk-4ZL3I2BX.js";import"./chunk-SGKFDL4C.js";import"./chunk-WWFBIK55.js";import"./chunk-GSNKVR4F.js";import"./chunk-ZS7KEDBG.js";import"./chunk-EQXRDIRX.js";import"./chunk-RDFI6XVV.js";import"./chunk-M3SHSEKE.js";import"./chunk-T6DYACQC.js";import"./chunk-PYQUZR4R.js";import"./chunk-4RLLMRF4.js";import"./chunk-LMC7RMET.js";import"./chunk-25DXEFVI.js";var d=2,u=`Usage: chaos-gate validate <plan> [--policy <file>] [--json]

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
//# sourceMappingURL=validate-SFUXUVKM.js.map
