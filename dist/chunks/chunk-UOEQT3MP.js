import { createRequire as __cgCreateRequire } from 'node:module';
const require = __cgCreateRequire(import.meta.url);
import{e as t,f as s}from"./chunk-4GYX42EE.js";var i="us-east-1";function o(n={}){let e=n.env??process.env;return n.region||e.AWS_REGION||e.AWS_DEFAULT_REGION||i}function d(n,e=process.env){return(e.AWS_ENDPOINT_URL_FIS||e.AWS_ENDPOINT_URL||`https://fis.${n}.amazonaws.com`).replace(/\/+$/,"")}function c(n,e={}){return{region:n,maxAttempts:e.maxAttempts??t.maxAttempts,requestHandler:s({connectionTimeoutMs:e.connectionTimeoutMs,attemptTimeoutMs:e.attemptTimeoutMs}),...e.endpoint!==void 0?{endpoint:e.endpoint}:{},...e.credentials!==void 0?{credentials:e.credentials}:{}}}export{o as a,d as b,c};
//# sourceMappingURL=chunk-UOEQT3MP.js.map
