import { createRequire as __cgCreateRequire } from 'node:module';
const require = __cgCreateRequire(import.meta.url);
import{d as c,e as d,f as m}from"./chunk-S4QRAPZ7.js";import{a as l}from"./chunk-2CBHCUH5.js";import{b as o}from"./chunk-4RLLMRF4.js";import{G as u,a as s,k as a,r as f,s as r}from"./chunk-QJPOLOHU.js";function p(n){return n.kind==="plan-review"}function R(n,e={}){let i=p(n)?k(n):$(n,e),t=[e.checkUrl&&`[check run](${e.checkUrl})`,e.runUrl&&`[workflow run and artifacts](${e.runUrl})`].filter(Boolean),g=t.length?`

<sub>chaos-gate \xB7 ${t.join(" \xB7 ")}</sub>
`:`
`,h=a((p(n),n.planId));return o(l(`${h}
${i}${g}`,65536,"comment"))}function $(n,e){let i=[c(n),d(n)],t=m(n);return t&&i.push(t),i.join(`

`)}function k(n){let e=[],i=n.refusals.length?`\u26D4 would be refused (${n.refusals.length})`:"\u{1F4CB} ready to run";e.push(`## ${i} \xB7 ${r(n.planId)}`),e.push(`**${s(n.title)}**: ${r(n.service)} in ${r(n.environment)}, plan digest ${r(n.digest.slice(0,12))}${n.planPath?`, file ${r(n.planPath)}`:""}`),n.refusals.length&&e.push("### Refusals",["| field | line | why |","|---|---|---|",...n.refusals.map(t=>`| ${r(t.field)} | ${t.line??""} | ${f(t.message)} |`)].join(`
`));for(let t of n.sections)e.push(`### ${s(t.heading)}`),t.rows.length&&e.push(u(t.rows,["check","result"])),t.note&&e.push(s(t.note));return e.join(`

`)}function I(n,e){return`> \u2139\uFE0F ${n==="fork"?"This pull request comes from a fork, and GitHub gives fork workflows a read-only token":"The token was refused write access (403)"}, so the ${e} could not be written. It is shown here in the job summary instead.`}export{p as a,R as b,I as c};
//# sourceMappingURL=chunk-RFGO25AK.js.map
