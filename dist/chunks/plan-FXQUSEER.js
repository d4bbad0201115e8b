import { createRequire as __cgCreateRequire } from 'node:module';
const require = __cgCreateRequire(import.meta.url);
import{a as f}from"./chunk-5CBYKFSJ.js";import{h as p}from"./chunk-4PCS7BKY.js";import"./chunk-E5EBO5T2.js";import"./chunk-PY2ED4MI.js";import"./chunk-D4GKDDSR.js";import"./chunk-LWPML6ZQ.js";import"./chunk-6D3SD7QI.js";import{a as h}from"./chunk-WDYXHSGP.js";import{c as u}from"./chunk-FAIAVHGM.js";import"./chunk-GLO66KI6.js";import{b as i,c as d}from"./chunk-QNV4IV7E.js";import"./chunk-PKSCTFNT.js";import"./chunk-M3SHSEKE.js";import"./chunk-BE2TR774.js";import"./chunk-F5CQG3BV.js";import"./chunk-F3IEBV6A.js";import"./chunk-TVCK7UTO.js";import"./chunk-2HHDUQUA.js";import"./chunk-3UROKGFD.js";import"./chunk-3J4NY55U.js";import"./chunk-4RLLMRF4.js";import{a as c,b as m}from"./chunk-ABPKUT7E.js";import"./chunk-IG7KZC6A.js";import"./chunk-6OAJOIND.js";import"./chunk-7G6JGMPY.js";import"./chunk-MUWS54WB.js";import"./chunk-25DXEFVI.js";import{resolve as g}from"node:path";var x=`Usage: chaos-gate plan <plan> [--resolve] [--policy <file>] [--markdown | --json]
       [--prometheus-url <url>] [--aws-region <region>]

Renders everything preflight decides for a plan without injecting anything: static and policy refusals,
the schedule and the next allowed start, the failover model's prediction, and with --resolve the targets
a FIS dry run resolves (actionsMode skip-all) with the computed blast radius, and the error budget.

Options:
  --resolve        resolve targets with a FIS dry run and read the budget (needs AWS or the sandbox)
  --policy <file>  the policy the plan may only narrow
  --markdown       print the PR-comment markdown
  --json           print {exitCode, refusals, decisions, targets}
${h("plan")}`,S={name:"plan",usage:x,async run(w,t){let l=m(w,{resolve:{type:"boolean",default:!1},policy:{type:"string"},markdown:{type:"boolean",default:!1},json:{type:"boolean",default:!1},"prometheus-url":{type:"string"},"aws-region":{type:"string"}}),[s,...y]=l.positionals;if(s===void 0||y.length>0)throw new c("expected exactly one plan file");let r=l.values;try{let e=await f({planPath:g(t.cwd,s),displayPath:s,policyPath:r.policy?g(t.cwd,r.policy):void 0,resolve:r.resolve,prometheus:{url:r["prometheus-url"]},awsRegion:r["aws-region"],env:t.env});if(r.json)t.out(JSON.stringify({exitCode:e.exitCode,refusals:e.review.refusals,decisions:e.decisions,targets:e.targets??null},null,2));else if(r.markdown)t.out(p(e.review));else{t.out(`plan ${e.review.planId} (${s}, digest ${e.loaded.digest.slice(0,12)})`);for(let o of e.review.sections){t.out(`
${o.heading}`);let v=Math.max(...o.rows.map(([a])=>a.length),4);for(let[a,$]of o.rows)t.out(`  ${a.padEnd(v)}  ${$}`);o.note&&t.out(`  (${o.note})`)}t.out("");let n=e.decisions.flatMap(o=>o.outcome.pass===!1&&o.outcome.verdict==="not-run"?[`${o.gate}: ${o.outcome.reason}`]:[]);if(e.review.refusals.length>0){t.out(`refused (${e.review.refusals.length}):`);for(let o of e.review.refusals)t.out(`  ${s}:${o.line??1}: ${o.message}`)}else if(n.length>0){t.out("not now (nothing wrong with the plan):");for(let o of n)t.out(`  ${o}`)}else t.out("ready to run")}return e.exitCode}catch(e){if(e instanceof i){for(let n of e.issues)t.err(d(n));return 2}if(e instanceof u)return t.err(e.message),2;throw e}}};export{S as plan};
//# sourceMappingURL=plan-FXQUSEER.js.map
