import { createRequire as __cgCreateRequire } from 'node:module';
const require = __cgCreateRequire(import.meta.url);
import{s as a}from"./chunk-6OAJOIND.js";import{e as s}from"./chunk-25DXEFVI.js";var r=s(a(),1),u=20;async function p(c,i){let e=[],n;do{let o=await c.send(new r.ListTargetAccountConfigurationsCommand({experimentTemplateId:i,maxResults:u,...n?{nextToken:n}:{}}));for(let t of o.targetAccountConfigurations??[])!t.accountId||!t.roleArn||e.push({accountId:t.accountId,roleArn:t.roleArn,...t.description?{description:t.description}:{}});n=o.nextToken}while(n);return e}export{p as a};
//# sourceMappingURL=chunk-2HHDUQUA.js.map
