import { createRequire as __cgCreateRequire } from 'node:module';
const require = __cgCreateRequire(import.meta.url);
import{a as p}from"./chunk-5F5Y2QXL.js";import{a as r,b as l}from"./chunk-Y4OFZKUG.js";import"./chunk-RZEKKQEN.js";import"./chunk-T6DYACQC.js";import{a as c}from"./chunk-PYQUZR4R.js";import"./chunk-25DXEFVI.js";import{resolve as f}from"node:path";var m=`Usage: chaos-gate sandbox [--port-file <path>] [--config <file>] [--no-load] [--json]

Starts the sandbox on 127.0.0.1 and runs until SIGINT/SIGTERM:
  aws     FIS (restJson1) and CloudWatch on one port \u2014 point any SDK or the AWS CLI at it with
          AWS_ENDPOINT_URL=<aws url> and dummy credentials
  canary  a service with Prometheus metrics at /metrics whose faults follow FIS actions
  admin   JSON API: inject API faults, set FIS timings and canary behaviour, read requests/actions
  github  the GitHub REST stand-in (token: sandbox-token)

Options:
  --port-file <path>  write the endpoint URLs as JSON here once everything listens
  --config <file>     sandbox config (YAML or JSON): accountId, region, ports, fis, canary, load
  --no-load           do not start the load generator against the canary
  --json              print the URLs as one JSON line instead of a table
  -h, --help          show this help

See docs/sandbox.md for every admin route.

${p("sandbox")}`,b=1,x={name:"sandbox",usage:m,async run(S,o){let{values:t,positionals:i}=l(S,{"port-file":{type:"string"},config:{type:"string"},"no-load":{type:"boolean"},json:{type:"boolean"}});if(i.length>0)throw new r(`unexpected argument '${i[0]}'; the sandbox takes options only`);let{missingSandboxDependency:u}=await import("./requirement-ZFT37R5J.js"),d=u("sandbox");if(d!==void 0)return o.err(d),b;let{loadSandboxConfig:h}=await import("./config-7S6IQJFV.js"),{startSandbox:g}=await import("./server-FAOHX4HW.js"),e;try{e=t.config?h(f(o.cwd,t.config)):{}}catch(s){throw new r(c(s))}t["no-load"]&&(e={...e,load:{...e.load,enabled:!1}});let a=await g({config:e,portFile:t["port-file"]?f(o.cwd,t["port-file"]):void 0});if(t.json)o.out(JSON.stringify(a.urls));else{o.out("chaos-gate sandbox listening on 127.0.0.1");for(let[s,n]of Object.entries(a.urls))o.out(`  ${s.padEnd(7)} ${n}`);o.out(`
  export AWS_ENDPOINT_URL=${a.urls.aws} ${e.credentials?`AWS_ACCESS_KEY_ID=${e.credentials.accessKeyId} AWS_SECRET_ACCESS_KEY='<credentials.secretAccessKey of the config>'`:"AWS_ACCESS_KEY_ID=sandbox AWS_SECRET_ACCESS_KEY=sandbox"} AWS_REGION=${e.region??"us-east-1"}`),o.out("  Ctrl-C to stop.")}return await new Promise(s=>{let n=()=>{process.off("SIGINT",n),process.off("SIGTERM",n),s()};process.on("SIGINT",n),process.on("SIGTERM",n)}),await a.close(),0}};export{x as sandbox};
//# sourceMappingURL=sandbox-PUG4IH5H.js.map
