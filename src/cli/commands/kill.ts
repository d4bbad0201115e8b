/**
 * `chaos-gate kill [--reason R]` / `chaos-gate kill --release`: the kill switch of docs/design/run.md#the-kill-switch. It imports
 * only the AWS clients and the kill-switch module, so it works where a full run would not.
 */
import { createAwsClients } from '../../injector/aws/clients.js';
import { engageKillSwitch, releaseKillSwitch } from '../../injector/fis/kill-switch.js';
import { killSwitchStatus } from '../../injector/fis/kill-switch-state.js';
import { parseFlags, UsageError, type CliCommand } from '../command.js';
import { exitCodesHelp } from '../exit-codes.js';

/** `--status`: the switch is released (runs may start). */
const EXIT_RELEASED = 0;
/** `--status`: the switch is engaged (every run refuses); also a stop or a release that did not complete. */
const EXIT_ENGAGED = 1;

export const killCommand: CliCommand = {
  name: 'kill',
  usage: [
    'Usage: chaos-gate kill [--reason <text>] [--aws-region <region>] [--json]',
    '       chaos-gate kill --release [--reason <text>]',
    '       chaos-gate kill --status',
    '',
    'Engaging: forces the kill-switch alarm (a stop condition of every chaos-gate template) to ALARM,',
    'engages the FIS safety lever where the endpoint has one, and stops every running experiment tagged',
    'chaos-gate:plan. Until --release, every run refuses before touching anything.',
    '',
    'Options:',
    '  --reason <text>        why (recorded on the alarm; default: requested by $GITHUB_ACTOR or $USER)',
    '  --release              lift the switch: the alarm back to OK, the safety lever disengaged',
    '  --status               print whether the switch is engaged (and why)',
    '  --aws-region <region>  AWS Region (default AWS_REGION)',
    '  --json                 print the result as JSON',
    '  -h, --help             show this help',
    '',
    exitCodesHelp('kill'),
  ].join('\n'),
  async run(argv, io) {
    const { values, positionals } = parseFlags(argv, {
      reason: { type: 'string' },
      release: { type: 'boolean', default: false },
      status: { type: 'boolean', default: false },
      'aws-region': { type: 'string' },
      json: { type: 'boolean', default: false },
    });
    if (positionals.length > 0)
      throw new UsageError(`unexpected argument '${positionals[0]}'; kill takes options only`);
    if (values.status && values.release)
      throw new UsageError('--status and --release are alternatives; expected one of them');
    const clients = createAwsClients({ region: values['aws-region'], env: io.env });
    const who = io.env.GITHUB_ACTOR ?? io.env.USER ?? 'unknown';
    const reason = values.reason ?? `requested by ${who}`;
    if (values.status) {
      const status = await killSwitchStatus(clients);
      io.out(
        values.json ? JSON.stringify(status) : status.engaged ? `engaged: ${status.reason}` : 'released',
      );
      return status.engaged ? EXIT_ENGAGED : EXIT_RELEASED;
    }
    if (values.release) {
      const out = await releaseKillSwitch(clients, reason);
      if (values.json) io.out(JSON.stringify(out));
      else {
        io.out(`kill switch alarm: ${out.alarm}`);
        io.out(
          out.lever.available
            ? `FIS safety lever: ${out.lever.state}`
            : `FIS safety lever: unavailable (${out.lever.detail})`,
        );
      }
      return out.alarm === 'OK' ? 0 : 1;
    }
    const report = await engageKillSwitch(clients, reason);
    if (values.json) io.out(JSON.stringify(report));
    else {
      io.out(`kill switch alarm: ${report.alarm}`);
      io.out(
        report.lever.available
          ? `FIS safety lever: ${report.lever.state}`
          : `FIS safety lever: unavailable (${report.lever.detail})`,
      );
      for (const e of report.stopped) io.out(`stopped: ${e.id} (plan ${e.plan}) is ${e.status}`);
      for (const e of report.failed)
        io.err(
          `could not stop ${e.id} (plan ${e.plan}): ${e.error} — run: aws fis stop-experiment --id ${e.id}`,
        );
      if (report.stopped.length === 0 && report.failed.length === 0)
        io.out('no running chaos-gate experiments');
    }
    return report.failed.length === 0 ? 0 : 1;
  },
};
