/**
 * `chaos-gate plan <plan> [--resolve]`: what preflight would decide, rendered for a pull request (markdown)
 * or a terminal (text). With --resolve it resolves the targets by a FIS dry run (nothing injected) and
 * reads the budget. Exit 0 unless refused (2), as the action's `command: plan`.
 */
import { resolve } from 'node:path';
import { reviewPlan, ReviewResolveError } from '../../compose/review.js';
import { formatIssue, PlanError } from '../../plan/load.js';
import { EXIT_BAD_INPUT, exitOf } from '../../errors/exit.js';
import { errorMessage } from '../../errors/message.js';
import { prComment } from '../../report/comment.js';
import { refusalLines, reviewLines } from '../../report/review.js';
import { parseFlags, UsageError, type CliCommand } from '../command.js';
import { exitCodesHelp } from '../exit-codes.js';

const usage = `Usage: chaos-gate plan <plan> [--resolve] [--policy <file>] [--markdown | --json]
       [--prometheus-url <url>] [--aws-region <region>]

Renders everything preflight decides for a plan without injecting anything: static and policy refusals,
the schedule and the next allowed start, the failover model's prediction, and with --resolve the targets
a FIS dry run resolves (actionsMode skip-all) with the computed blast radius, and the error budget.

Options:
  --resolve        resolve targets with a FIS dry run and read the budget (needs AWS or the sandbox)
  --policy <file>  the policy the plan may only narrow
  --markdown       print the PR-comment markdown
  --json           print {exitCode, refusals, decisions, targets}
${exitCodesHelp('plan')}`;

export const plan: CliCommand = {
  name: 'plan',
  usage,
  async run(argv, io) {
    const parsed = parseFlags(argv, {
      resolve: { type: 'boolean', default: false },
      policy: { type: 'string' },
      markdown: { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
      'prometheus-url': { type: 'string' },
      'aws-region': { type: 'string' },
    });
    const [file, ...extra] = parsed.positionals;
    if (file === undefined || extra.length > 0) throw new UsageError('expected exactly one plan file');
    const v = parsed.values;
    try {
      const r = await reviewPlan({
        planPath: resolve(io.cwd, file),
        displayPath: file,
        policyPath: v.policy ? resolve(io.cwd, v.policy) : undefined,
        resolve: v.resolve,
        prometheus: { url: v['prometheus-url'] },
        awsRegion: v['aws-region'],
        env: io.env,
      });
      if (v.json) {
        io.out(
          JSON.stringify(
            {
              exitCode: r.exitCode,
              refusals: r.review.refusals,
              decisions: r.decisions,
              targets: r.targets ?? null,
            },
            null,
            2,
          ),
        );
      } else if (v.markdown) {
        io.out(prComment(r.review));
      } else {
        for (const line of reviewLines(r.review, file)) io.out(line);
        io.out('');
        const notNow = r.decisions.flatMap((d) =>
          d.outcome.pass === false && d.outcome.verdict === 'not-run'
            ? [`${d.gate}: ${d.outcome.reason}`]
            : [],
        );
        if (r.review.refusals.length > 0) {
          // One reason per line, located in the plan like `validate` prints them.
          for (const line of refusalLines(r.review, file)) io.out(line);
        } else if (notNow.length > 0) {
          io.out('not now (nothing wrong with the plan):');
          for (const reason of notNow) io.out(`  ${reason}`);
        } else {
          io.out('ready to run');
        }
      }
      return r.exitCode;
    } catch (error) {
      // Nothing was injected; the plan (as FIS reads it) or the AWS setting is what is wrong: exit 2.
      if (error instanceof ReviewResolveError) {
        io.err(`${file}: ${error.message}`);
        return EXIT_BAD_INPUT;
      }
      const exit = exitOf(error);
      if (exit?.verdict !== 'refused') throw error;
      // An unusable plan lists its issues; any other file its heading with them (errors/exit.ts).
      if (error instanceof PlanError) for (const issue of error.issues) io.err(formatIssue(issue));
      else io.err(errorMessage(error));
      return exit.code;
    }
  },
};
