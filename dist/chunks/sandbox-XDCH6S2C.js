import { createRequire as __cgCreateRequire } from 'node:module';
const require = __cgCreateRequire(import.meta.url);
import{a as c}from"./chunk-46O3G4IC.js";import{a as r,b as l}from"./chunk-QF4H3ZVO.js";import"./chunk-LY6DVYZL.js";import"./chunk-3UROKGFD.js";import{a as d}from"./chunk-PYQUZR4R.js";import"./chunk-25DXEFVI.js";import{resolve as p}from"node:path";var u=`Usage: chaos-gate sandbox [--port-file <path>] [--config <file>] [--no-load] [--json]

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

${c("sandbox")}`,w={name:"sandbox",usage:u,async run(f,e){let{values:t,positionals:i}=l(f,{"port-file":{type:"string"},config:{type:"string"},"no-load":{type:"boolean"},json:{type:"boolean"}});if(i.length>0)throw new r(`unexpected argument '${i[0]}'; the sandbox takes options only`);let{loadSandboxConfig:S}=await import("./config-GULKUUBV.js"),{startSandbox:h}=await import("./server-MHIDQVVJ.js"),o;try{o=t.config?S(p(e.cwd,t.config)):{}}catch(s){throw new r(d(s))}t["no-load"]&&(o={...o,load:{...o.load,enabled:!1}});let a=await h({config:o,portFile:t["port-file"]?p(e.cwd,t["port-file"]):void 0});if(t.json)e.out(JSON.stringify(a.urls));else{e.out("chaos-gate sandbox listening on 127.0.0.1");for(let[s,n]of Object.entries(a.urls))e.out(`  ${s.padEnd(7)} ${n}`);e.out(`
  export AWS_ENDPOINT_URL=${a.urls.aws} ${o.credentials?`AWS_ACCESS_KEY_ID=${o.credentials.accessKeyId} AWS_SECRET_ACCESS_KEY='<credentials.secretAccessKey of the config>'`:"AWS_ACCESS_KEY_ID=sandbox AWS_SECRET_ACCESS_KEY=sandbox"} AWS_REGION=${o.region??"us-east-1"}`),e.out("  Ctrl-C to stop.")}return await new Promise(s=>{let n=()=>{process.off("SIGINT",n),process.off("SIGTERM",n),s()};process.on("SIGINT",n),process.on("SIGTERM",n)}),await a.close(),0}};export{w as sandbox};
//# sourceMappingURL=sandbox-XDCH6S2C.js.map
