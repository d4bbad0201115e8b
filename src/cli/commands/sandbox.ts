/**
 * `chaos-gate sandbox [--port-file <path>] [--config <file>] [--no-load]`: runs the local AWS stand-in
 * (FIS + CloudWatch), the canary service with its load generator, the admin endpoint and the GitHub
 * stand-in on loopback until SIGINT or SIGTERM.
 */
import { resolve } from 'node:path';
import { errorMessage } from '../../errors/message.js';
import { parseFlags, UsageError, type CliCommand } from '../command.js';
import { exitCodesHelp } from '../exit-codes.js';

const usage = `Usage: chaos-gate sandbox [--port-file <path>] [--config <file>] [--no-load] [--json]

Starts the sandbox on 127.0.0.1 and runs until SIGINT/SIGTERM:
  aws     FIS (restJson1) and CloudWatch on one port — point any SDK or the AWS CLI at it with
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

${exitCodesHelp('sandbox')}`;

/** Exit code when the sandbox cannot start (src/cli/exit-codes.ts). */
const EXIT_COULD_NOT_START = 1;

/** The `sandbox` subcommand. */
export const sandbox: CliCommand = {
  name: 'sandbox',
  usage,
  async run(argv, io) {
    const { values, positionals } = parseFlags(argv, {
      'port-file': { type: 'string' },
      config: { type: 'string' },
      'no-load': { type: 'boolean' },
      json: { type: 'boolean' },
    });
    if (positionals.length > 0)
      throw new UsageError(`unexpected argument '${positionals[0]}'; the sandbox takes options only`);
    // Before anything starts: an install without development dependencies lacks the GitHub description.
    const { missingSandboxDependency } = await import('../../sandbox/github/requirement.js');
    const missing = missingSandboxDependency('sandbox');
    if (missing !== undefined) {
      io.err(missing);
      return EXIT_COULD_NOT_START;
    }
    // Loaded here, not at the top, so `chaos-gate --help` does not pay for the sandbox.
    const { loadSandboxConfig } = await import('../../sandbox/config.js');
    const { startSandbox } = await import('../../sandbox/server.js');
    let config;
    try {
      config = values.config ? loadSandboxConfig(resolve(io.cwd, values.config)) : {};
    } catch (error) {
      throw new UsageError(errorMessage(error));
    }
    if (values['no-load']) config = { ...config, load: { ...config.load, enabled: false } };
    const handle = await startSandbox({
      config,
      portFile: values['port-file'] ? resolve(io.cwd, values['port-file']) : undefined,
    });
    if (values.json) io.out(JSON.stringify(handle.urls));
    else {
      io.out('chaos-gate sandbox listening on 127.0.0.1');
      for (const [name, url] of Object.entries(handle.urls)) io.out(`  ${name.padEnd(7)} ${url}`);
      io.out(
        // With credentials in the config every request's signature is checked: sign with those.
        `\n  export AWS_ENDPOINT_URL=${handle.urls.aws} ${
          config.credentials
            ? `AWS_ACCESS_KEY_ID=${config.credentials.accessKeyId} AWS_SECRET_ACCESS_KEY='<credentials.secretAccessKey of the config>'`
            : 'AWS_ACCESS_KEY_ID=sandbox AWS_SECRET_ACCESS_KEY=sandbox'
        } AWS_REGION=${config.region ?? 'us-east-1'}`,
      );
      io.out('  Ctrl-C to stop.');
    }
    await new Promise<void>((done) => {
      const stop = () => {
        process.off('SIGINT', stop);
        process.off('SIGTERM', stop);
        done();
      };
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
    });
    await handle.close();
    return 0;
  },
};
