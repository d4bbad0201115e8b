import { createRequire as __cgCreateRequire } from 'node:module';
const require = __cgCreateRequire(import.meta.url);
import{a as o}from"./chunk-M5L4IEY6.js";import{e as t}from"./chunk-T6DYACQC.js";import{a as n}from"./chunk-PYQUZR4R.js";function u(e){let r=e.GITHUB_EVENT_PATH;if(r)try{JSON.parse(t(r,{what:"event payload",maxBytes:o}).text);return}catch(a){return n(a)}}function c(e){return`::error title=chaos-gate%3A refused::${`the event payload cannot be read (${e}): nothing was run, since a fork's code cannot be ruled out`.replace(/%/g,"%25").replace(/\r/g,"%0D").replace(/\n/g,"%0A")}
`}export{u as a,c as b};
//# sourceMappingURL=chunk-MVMHYL6P.js.map
