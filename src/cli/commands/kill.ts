/**
 * `chaos-gate kill [--reason R]` / `chaos-gate kill --release`: the kill switch of SPEC §6.4. It imports
 * only the AWS clients and the kill-switch module, so it works where a full run would not.
 */
import { parseArgs } from 'node:util';
import { createAwsClients } from '../../injector/aws/clients.js';
import { engageKillSwitch, killSwitchStatus, releaseKillSwitch } from '../../injector/fis/kill-switch.js';
import { UsageError, type CliCommand } from '../command.js';

export const killCommand: CliCommand = {
  name: 'kill',
  summary: 'Stop every running chaos-gate experiment and block new ones (--release to lift)',
  usage: [
    'Usage: chaos-gate kill [--reason <text>] [--aws-region <region>] [--json]',
    '       chaos-gate kill --release [--reason <text>]',
    '       chaos-gate kill --status',
    '',
    'Engaging: forces the kill-switch alarm (a stop condition of every chaos-gate template) to ALARM,',
    'engages the FIS safety lever where the endpoint has one, and stops every running experiment tagged',
    'chaos-gate:plan. Until --release, every run refuses before touching anything.',
    'Exit 0 when every live experiment was verified stopped within 30 s (or, with --release, the switch is OK again).',
  ].join('\n'),
  async run(argv, io) {
    let values;
    try {
      ({ values } = parseArgs({
        args: argv,
        options: {
          reason: { type: 'string' },
          release: { type: 'boolean', default: false },
          status: { type: 'boolean', default: false },
          'aws-region': { type: 'string' },
          json: { type: 'boolean', default: false },
        },
      }));
    } catch (error) {
      throw new UsageError(error instanceof Error ? error.message : String(error));
    }
    const clients = createAwsClients({ region: values['aws-region'], env: io.env });
    const who = io.env.GITHUB_ACTOR ?? io.env.USER ?? 'unknown';
    const reason = values.reason ?? `requested by ${who}`;
    if (values.status) {
      const status = await killSwitchStatus(clients);
      io.out(
        values.json ? JSON.stringify(status) : status.engaged ? `ENGAGED: ${status.reason}` : 'disengaged',
      );
      return 0;
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
