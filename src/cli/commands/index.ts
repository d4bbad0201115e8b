/**
 * Every CLI subcommand, in the order `--help` lists them: its name, its one-line summary, and how to load
 * it. A command's module is imported only when that command runs, so `--version`, `--help` and a light
 * command such as `validate` never parse the AWS SDK, the sandbox or the reports (docs/design/targets.md, issue 17:
 * within 2.5× of a bare `node -e 0`; `npm run bench` measures it). Add new commands here.
 */
import type { CliCommand } from '../command.js';

/** A command as the top-level help lists it, loaded on demand. */
export interface CommandEntry {
  name: string;
  /** One line for `chaos-gate --help`. */
  summary: string;
  load(): Promise<CliCommand>;
}

export const commands: readonly CommandEntry[] = [
  {
    name: 'run',
    summary: 'run a plan for real against FIS (or the sandbox) and print the verdict',
    load: async () => (await import('./run.js')).run,
  },
  {
    name: 'plan',
    summary: 'render what preflight decides for a plan (PR review), optionally resolving targets',
    load: async () => (await import('./plan.js')).plan,
  },
  {
    name: 'validate',
    summary: 'check a plan offline: schema, line:column errors and every check a run makes before AWS',
    load: async () => (await import('./validate.js')).validate,
  },
  {
    name: 'init',
    summary: 'write a first plan for an FIS action and a service, commented, that validates as written',
    load: async () => (await import('./init.js')).init,
  },
  {
    name: 'import',
    summary: 'write a plan from an existing FIS experiment template (by id, or a saved JSON/YAML file)',
    load: async () => (await import('./import.js')).importCommand,
  },
  {
    name: 'simulate',
    summary: 'run a plan against a simulated world (scenario file) on a virtual clock',
    load: async () => (await import('./simulate.js')).simulate,
  },
  {
    name: 'report',
    summary: 'render a run journal (also a crashed prefix) as job-summary markdown or an HTML replay',
    load: async () => (await import('./report.js')).report,
  },
  {
    name: 'history',
    summary: 'verdict history per plan: last verdicts, time to stop, budget, flakiness and the untested set',
    load: async () => (await import('./history.js')).history,
  },
  {
    name: 'demo',
    summary:
      'two Redis partitions on the local sandbox through the action (held, then aborted); --simulated: no sandbox',
    load: async () => (await import('./demo.js')).demo,
  },
  {
    name: 'measure',
    summary: "measure one window of every SLI now: check a plan's queries before any experiment",
    load: async () => (await import('./measure.js')).measure,
  },
  {
    name: 'scan',
    summary: 'calibrate a hypothesis threshold and its abort cost over a recorded run',
    load: async () => (await import('./scan.js')).scan,
  },
  {
    name: 'model',
    summary: 'model failover: predict a regional failover experiment before spending it',
    load: async () => (await import('./model.js')).model,
  },
  {
    name: 'sandbox',
    summary: 'run the local FIS/CloudWatch/GitHub stand-ins, a canary service and load on loopback',
    load: async () => (await import('./sandbox.js')).sandbox,
  },
  {
    name: 'kill',
    summary:
      'stop every running chaos-gate experiment and block new ones (--release lifts it, --status reads it)',
    load: async () => (await import('./kill.js')).killCommand,
  },
];
