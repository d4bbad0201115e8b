/**
 * `chaos-gate run <plan>`: the gate for real — FIS and CloudWatch through the standard AWS credential
 * chain and endpoints (`AWS_ENDPOINT_URL*` reaches the sandbox), Prometheus from flags or the
 * environment. Prints the experiment id the moment it exists and one line per measurement on stderr
 * (coloured on a terminal, plain with NO_COLOR or in CI); stdout carries the result.
 */
import { resolve } from 'node:path';
import { executeRun } from '../../compose/run.js';
import { PlanError, formatIssue } from '../../plan/load.js';
import { parseDuration } from '../../plan/duration.js';
import { DURATION_EXPECTED } from '../../plan/schema.js';
import { DEFAULT_QUEUE_TIMEOUT } from '../../preflight/concurrency.js';
import { cliOutputRoots, confinedOutputPath, parseFlags, UsageError, type CliCommand } from '../command.js';
import { exitCodesHelp } from '../exit-codes.js';
import { exitOf } from '../../errors/exit.js';
import { errorMessage } from '../../errors/message.js';
import { COLOR, PLAIN, judgementLines, progressPrinter, useColor } from '../../report/progress.js';
import { fisConsoleUrl } from '../../report/common.js';
import { forLog } from '../../security/log-text.js';
import { notifySettings, parseNotifyTargets, runLinks } from '../../notify/index.js';

/**
 * Fault lines of a long run: one per measurement for the first minute after the injection, then one
 * every 5 s with each SLI's worst value so far (the action's step log paces them the same way).
 */
const FULL_FAULT_MS = 60_000;

const usage = `Usage: chaos-gate run <plan> [options]

Runs the experiment of a plan as a gate: preflight, FIS template, steady state, injection under
tripwires, verified stop, recovery, verdict.

Options:
  --journal <path>            journal file (default out/<plan id>.journal.json next to the cwd)
  --policy <file>             policy file whose ceilings the plan may only narrow
  --history <path>            past runs' journals (a file or directory; repeatable) the policy's
                              requires entries are checked against (the promotion ladder)
  --prometheus-url <url>      Prometheus HTTP API (or CHAOS_GATE_PROMETHEUS_URL)
  --prometheus-header 'K: V'  extra header, repeatable (or CHAOS_GATE_PROMETHEUS_HEADERS)
  --alertmanager-url <url>    Alertmanager for abort.alerts (or CHAOS_GATE_ALERTMANAGER_URL)
  --aws-region <region>       AWS Region (or AWS_REGION)
  --queue-timeout <duration>  wait this long, in all, for overlapping chaos-gate experiments and for FIS's
                              active-experiment quota (default ${DEFAULT_QUEUE_TIMEOUT})
  --abort-file <path>         a file whose appearance aborts the run
  --drift repair|refuse       what to do with a template edited by hand (default repair)
  --notify KIND=URL           send the run to a sink, repeatable; KIND cdevents, slack, pagerduty or
                              grafana, credentials from the environment (docs/notifications.md)
  --run-id <id>               idempotency key of this run (default GITHUB_RUN_ID or a timestamp)
  --attempt <n>               attempt number (default GITHUB_RUN_ATTEMPT or 1)
  --json                      print {verdict, reason, exitCode, experimentId, journal} at the end
  -h, --help                  show this help

SIGINT/SIGTERM stop the fault (verified) and end the run as aborted.

${exitCodesHelp('run')}`;

export const run: CliCommand = {
  name: 'run',
  usage,
  async run(argv, io) {
    const parsed = parseFlags(argv, {
      journal: { type: 'string' },
      policy: { type: 'string' },
      history: { type: 'string', multiple: true },
      'prometheus-url': { type: 'string' },
      'prometheus-header': { type: 'string', multiple: true },
      'alertmanager-url': { type: 'string' },
      'aws-region': { type: 'string' },
      'queue-timeout': { type: 'string' },
      'abort-file': { type: 'string' },
      drift: { type: 'string' },
      notify: { type: 'string', multiple: true },
      'run-id': { type: 'string' },
      attempt: { type: 'string' },
      json: { type: 'boolean', default: false },
    });
    const { values, positionals } = parsed;
    if (positionals.length !== 1) throw new UsageError('expected exactly one plan file');
    const planFile = positionals[0] as string;
    const queue = values['queue-timeout'];
    const queueTimeoutMs = parseDuration(queue ?? DEFAULT_QUEUE_TIMEOUT);
    if (queueTimeoutMs === undefined)
      throw new UsageError(`--queue-timeout '${queue}' is not a duration; expected ${DURATION_EXPECTED}`);
    const drift = values.drift;
    if (drift !== undefined && drift !== 'repair' && drift !== 'refuse') {
      throw new UsageError(`--drift '${drift}' must be repair or refuse`);
    }
    const attempt = Number(values.attempt ?? io.env.GITHUB_RUN_ATTEMPT ?? '1');
    if (!Number.isInteger(attempt) || attempt < 1)
      throw new UsageError(`--attempt must be a positive integer`);

    // Registers the URLs and credentials with the redactor before anything can print them.
    const notify = notifySettings(parseNotifyTargets(values.notify ?? [], '--notify'), io.env);
    const journalPath = confinedOutputPath(
      io,
      '--journal',
      values.journal ?? `out/${planFile.replace(/^.*\//, '').replace(/\.(ya?ml|json)$/, '')}.journal.json`,
    );
    const controller = new AbortController();
    const onSignal = (signal: NodeJS.Signals): void => {
      io.err(`chaos-gate: ${signal} received — stopping the fault and verifying the stop`);
      controller.abort(`${signal}`);
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    // Progress goes to stderr, so stdout carries only the result (`--json` or the verdict lines).
    const errTty = io.errTty ?? false;
    const progress = progressPrinter(io.err, {
      steadyEveryMs: errTty ? 0 : 10_000,
      compactAfterMs: FULL_FAULT_MS,
      paint: useColor(io.env, errTty) ? COLOR : PLAIN,
    });
    try {
      const result = await executeRun({
        planPath: resolve(io.cwd, planFile),
        displayPath: planFile,
        policyPath: values.policy ? resolve(io.cwd, values.policy) : undefined,
        historyPaths: values.history?.map((h) => resolve(io.cwd, h)),
        prometheus: {
          url: values['prometheus-url'],
          ...(values['prometheus-header'] ? { headers: values['prometheus-header'] } : {}),
        },
        alertmanagerUrl: values['alertmanager-url'],
        awsRegion: values['aws-region'],
        journalPath,
        outputRoots: cliOutputRoots(io),
        runId: values['run-id'] ?? io.env.GITHUB_RUN_ID ?? `local-${Date.now()}`,
        attempt,
        repo: io.env.GITHUB_REPOSITORY,
        sha: io.env.GITHUB_SHA,
        queueTimeoutMs,
        abortFile: values['abort-file'] ? resolve(io.cwd, values['abort-file']) : undefined,
        drift,
        notify,
        notifyLinks: () => runLinks(io.env),
        signal: controller.signal,
        env: io.env,
        onTick: progress.onTick,
        onEvent: progress.onEvent,
        onExperimentId: (id) => io.err(`chaos-gate: experiment ${id} started`),
        log: (line) => io.err(`chaos-gate: ${line}`),
      });
      // The recap on stderr with the progress: the journal's judgement, as every report states it.
      for (const line of judgementLines(result.journal)) io.err(line);
      // Where to look at the experiment itself.
      if (result.journal.experimentId && result.journal.region)
        io.err(
          `chaos-gate: FIS console ${fisConsoleUrl(result.journal.region, forLog(result.journal.experimentId))}`,
        );
      if (values.json) {
        io.out(
          JSON.stringify({
            verdict: result.verdict,
            reason: result.reason,
            exitCode: result.exitCode,
            experimentId: result.experimentId ?? null,
            journal: journalPath,
          }),
        );
      } else {
        io.out(`verdict: ${result.verdict} — ${result.reason}`);
        io.out(`journal: ${journalPath}`);
      }
      return result.exitCode;
    } catch (error) {
      const exit = exitOf(error);
      if (exit?.verdict === 'refused') {
        // An unusable plan lists its issues; any other file its heading with them (errors/exit.ts).
        if (error instanceof PlanError) for (const issue of error.issues) io.err(formatIssue(issue));
        else io.err(errorMessage(error));
        return exit.code;
      }
      if (exit?.verdict === 'failed') {
        // A setting the run needs is missing or unusable, found before anything was sent: `failed`,
        // exit 2 (compose/setup.ts), in the same words the action uses.
        const reason = errorMessage(error);
        if (values.json) {
          io.out(
            JSON.stringify({
              verdict: 'failed',
              reason,
              exitCode: exit.code,
              experimentId: null,
              journal: null,
            }),
          );
        } else io.out(`verdict: failed — ${reason}`);
        return exit.code;
      }
      throw error;
    } finally {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    }
  },
};
