import { createRequire as __cgCreateRequire } from 'node:module';
const require = __cgCreateRequire(import.meta.url);
import{a}from"./chunk-VLBHN3Y2.js";import{d as t}from"./chunk-3UROKGFD.js";function d(e){let n=e.GITHUB_EVENT_PATH;if(n)try{JSON.parse(t(n,{what:"event payload",maxBytes:a}).text);return}catch(r){return r instanceof Error?r.message:String(r)}}function s(e){return`::error title=chaos-gate%3A refused::${`the event payload cannot be read (${e}): nothing was run, since a fork's code cannot be ruled out`.replace(/%/g,"%25").replace(/\r/g,"%0D").replace(/\n/g,"%0A")}
`}export{d as a,s as b};
//# sourceMappingURL=chunk-54TL7WSI.js.map
