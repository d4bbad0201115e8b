import { createRequire as __cgCreateRequire } from 'node:module';
const require = __cgCreateRequire(import.meta.url);
import{A,B,a,b,c,d,e,f,g,h,i,j,k,l,m,n,o,p,q,r,s,t,u,v,w,x,y,z}from"./chunk-PISTBP6N.js";import"./chunk-25DXEFVI.js";export{g as ExitCode,j as addPath,r as debug,x as endGroup,s as error,h as exportVariable,m as getBooleanInput,B as getIDToken,k as getInput,l as getMultilineInput,A as getState,y as group,v as info,q as isDebug,a as markdownSummary,u as notice,f as platform,z as saveState,o as setCommandEcho,p as setFailed,n as setOutput,i as setSecret,w as startGroup,b as summary,e as toPlatformPath,c as toPosixPath,d as toWin32Path,t as warning};
//# sourceMappingURL=core-LXDNQE65.js.map
