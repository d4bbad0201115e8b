import { createRequire as __cgCreateRequire } from 'node:module';
const require = __cgCreateRequire(import.meta.url);
import{d as g}from"./chunk-UEFYDMT2.js";import{q as w}from"./chunk-DB5O2MGL.js";import{a}from"./chunk-NUQP4DMC.js";import{h as c,j as d,l as f}from"./chunk-BCG5USWU.js";var m=1e4;function A(t){let e=d({region:t.region,env:t.env}),n=f(e),o=new c(n),i,r=()=>i??=import("./clients-CNLCVFA6.js").then(l=>l.withFisClient(o,e,n));return{region:e,clients:r,killSwitch:p({engaged:l=>g(()=>w({cloudwatch:o,fis:async()=>(await r()).fis,region:e},l))},t.clock??a)}}function p(t,e,n=m){let o=e.now(),i=t.engaged();return i.catch(()=>{}),{engaged(r){let s=i;return i=void 0,s&&e.now()-o<=n?s:t.engaged(r)}}}export{A as a};
//# sourceMappingURL=chunk-7QJTOIMW.js.map
