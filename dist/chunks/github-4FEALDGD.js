import { createRequire as __cgCreateRequire } from 'node:module';
const require = __cgCreateRequire(import.meta.url);
import{a,b,c,d,e,f,g,h,i,j}from"./chunk-CH4JZW4E.js";import"./chunk-UACI64T5.js";import"./chunk-7G6JGMPY.js";import"./chunk-PYQUZR4R.js";import"./chunk-AKAES6EZ.js";import"./chunk-2CBHCUH5.js";import"./chunk-4RLLMRF4.js";import"./chunk-G62HPFDP.js";import"./chunk-EHR7TKGS.js";import"./chunk-6D3SD7QI.js";import"./chunk-25DXEFVI.js";export{i as ACTIONS_BOT_LOGIN,b as DEFAULT_GITHUB_RETRY,a as DEFAULT_GITHUB_TIMEOUT_MS,d as GitHubApiError,j as GitHubReporter,c as WRITE_SPACING_MS,f as headSha,h as isForkPullRequest,e as isTransient,g as pullNumber};
//# sourceMappingURL=github-4FEALDGD.js.map
