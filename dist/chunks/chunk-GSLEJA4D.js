import { createRequire as __cgCreateRequire } from 'node:module';
const require = __cgCreateRequire(import.meta.url);
import{a as E}from"./chunk-4RLLMRF4.js";var T=["AWS_ACCESS_KEY_ID","AWS_SECRET_ACCESS_KEY","AWS_SESSION_TOKEN","AWS_SECURITY_TOKEN","AWS_CONTAINER_AUTHORIZATION_TOKEN","GITHUB_TOKEN","GH_TOKEN","ACTIONS_RUNTIME_TOKEN","ACTIONS_ID_TOKEN_REQUEST_TOKEN"];function O(_){for(let S of T)E.add(_[S])}export{O as a};
//# sourceMappingURL=chunk-GSLEJA4D.js.map
