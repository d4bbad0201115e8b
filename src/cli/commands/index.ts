/** Every CLI subcommand, in the order `--help` lists them. Add new commands here. */
import type { CliCommand } from '../command.js';
import { validate } from './validate.js';
import { simulate } from './simulate.js';
import { report } from './report.js';
import { demo } from './demo.js';
import { scan } from './scan.js';
import { model } from './model.js';
import { sandbox } from './sandbox.js';
import { measure } from './measure.js';
import { run } from './run.js';
import { plan } from './plan.js';
import { killCommand } from './kill.js';

export const commands: CliCommand[] = [
  run,
  plan,
  validate,
  simulate,
  report,
  demo,
  measure,
  scan,
  model,
  sandbox,
  killCommand,
];
