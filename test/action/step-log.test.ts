/**
 * The step log tells the story (issue 15): an aborting run through the action's own code path and the
 * real `@actions/core`, whose workflow commands are read back from stdout as the runner reads them —
 * a group per phase, progress lines while the fault is on, the verdict and reason as the last plain
 * line, and an error annotation carrying them. The engine is the real one on the simulated world.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { JournalEvent, Measurement } from '../../src/journal/types.js';
import { parseInputs } from '../../src/action/inputs.js';
import { recordLinks, runFromInputs } from '../../src/action/run.js';
import type { PlanReview } from '../../src/report/comment.js';
import { fisConsoleUrl } from '../../src/report/common.js';
import { actionsCore } from '../../src/action/wiring.js';
import { STEP_LOG_COMPACT_EVERY_MS, STEP_LOG_FULL_FAULT_MS, stepLog } from '../../src/action/step-log.js';
import { COLOR, PLAIN, formatTick, useColor } from '../../src/report/progress.js';
import { planWith, simulate } from '../sim/helpers.js';

/** The simulated checkout plan; a 1-minute action (FIS's minimum for disrupt-connectivity). */
const plan = planWith((p) => {
  const action = (p.fis as { actions: Record<string, { parameters: Record<string, string> }> }).actions
    .partition;
  if (action) action.parameters.duration = 'PT1M';
});

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'cg-step-log-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => vi.restoreAllMocks());

/** Everything written to stdout while `fn` runs, as lines (the runner parses commands from stdout). */
async function captureStdout<T>(fn: () => Promise<T>): Promise<{ value: T; lines: string[] }> {
  let text = '';
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    text += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    return true;
  });
  const value = await fn();
  vi.restoreAllMocks();
  return { value, lines: text.split(/\r?\n/).filter((l) => l !== '') };
}

/** The data of a workflow command as `@actions/core` escapes it. */
const escapeData = (s: string): string => s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');

describe('the action step log of an aborting run', () => {
  it('groups the phases, prints progress while the fault is on, and ends with the verdict, its reason and an error annotation', async () => {
    const ws = join(dir, 'ws');
    const eventPath = join(dir, 'push.json');
    writeFileSync(eventPath, JSON.stringify({ ref: 'refs/heads/main' }));
    // A push to the repository itself: trusted code (no GitHub token: the reporter stays off).
    const env = {
      GITHUB_WORKSPACE: ws,
      GITHUB_RUN_ID: '5',
      GITHUB_RUN_ATTEMPT: '1',
      GITHUB_EVENT_NAME: 'push',
      GITHUB_EVENT_PATH: eventPath,
      GITHUB_REPOSITORY: 'acme/shop',
      GITHUB_SERVER_URL: 'https://github.com',
    };
    const inputs = parseInputs(
      (n) => ({ plan: 'chaos/checkout.yaml', 'journal-path': join(ws, 'journal.json') })[n] ?? '',
    );
    let reason = '';
    let experiment: { id?: string | undefined; region?: string | undefined } = {};
    const { value: code, lines } = await captureStdout(() =>
      runFromInputs(inputs, {
        core: actionsCore,
        env,
        runGate: async (req) => {
          await req.onPlanLoaded({ planId: 'checkout' });
          const run = await simulate('aborted-rule', {
            plan,
            deps: () => ({ onTick: req.onTick, onEvent: req.onEvent }),
          });
          reason = run.result.reason;
          // The sandbox's Region, so the log can link the experiment in the FIS console.
          const journal = { ...run.result.journal, region: run.result.journal.region ?? 'us-east-1' };
          experiment = { id: journal.experimentId, region: journal.region };
          return journal;
        },
        reviewPlan: async () => {
          throw new Error('not used');
        },
        validatePlan: async () => ({ text: 'ok', exitCode: 0 }),
        uploadArtifact: async () => undefined,
      }),
    );
    expect(code, lines.join('\n')).toBe(1);

    const groups = lines.filter((l) => l.startsWith('::group::')).map((l) => l.slice('::group::'.length));
    expect(groups).toEqual([
      'chaos-gate: preflight',
      'chaos-gate: provision',
      'chaos-gate: steady state',
      'chaos-gate: fault',
      'chaos-gate: recovery',
    ]);
    expect(lines.filter((l) => l === '::endgroup::')).toHaveLength(groups.length);

    // While the fault is on: one line per measurement, on the injection's clock, breaches included.
    const from = lines.indexOf('::group::chaos-gate: fault');
    const to = lines.indexOf('::endgroup::', from);
    const fault = lines.slice(from + 1, to);
    const ticks = fault.filter((l) => /^\s*\+\d+\.\ds\s+fault\s+success_ratio/.test(l));
    expect(ticks.length).toBeGreaterThanOrEqual(3);
    expect(ticks.some((l) => /p95_latency_s \S+ breach/.test(l))).toBe(true);
    expect(fault.some((l) => l.includes('» abort:'))).toBe(true);
    expect(fault.some((l) => l.includes('» stop-requested:'))).toBe(true);

    // The verdict and its reason close the log; the annotation carries them to the run's summary page.
    expect(reason).toMatch(/p95_latency_s .* > 0\.5/);
    const plain = lines.filter((l) => !l.startsWith('::'));
    expect(plain.at(-1)).toBe(`chaos-gate: aborted — ${reason}`);
    // Just before it, where the record is: the summary on the run's page and the experiment in the FIS
    // console (no token here, so no check run to link).
    expect(experiment.id).toBeTruthy();
    expect(plain.slice(-3, -1)).toEqual([
      'chaos-gate: summary https://github.com/acme/shop/actions/runs/5',
      `chaos-gate: FIS console https://us-east-1.console.aws.amazon.com/fis/home?region=us-east-1#ExperimentDetails:ExperimentId=${experiment.id}`,
    ]);
    expect(lines).toContain(`::error title=chaos-gate%3A aborted::${escapeData(reason)}`);
    expect(lines.some((l) => l.includes('exit code 1'))).toBe(false);
  });
});

describe('where the record is', () => {
  it('links the check run, the summary and the FIS console, and leaves out what is unknown', () => {
    const env = {
      GITHUB_SERVER_URL: 'https://github.com',
      GITHUB_REPOSITORY: 'acme/shop',
      GITHUB_RUN_ID: '9',
    };
    expect(recordLinks(env, 1234, { experimentId: 'EXP1', region: 'eu-west-1' }, fisConsoleUrl)).toEqual([
      'chaos-gate: check run https://github.com/acme/shop/runs/1234',
      'chaos-gate: summary https://github.com/acme/shop/actions/runs/9',
      'chaos-gate: FIS console https://eu-west-1.console.aws.amazon.com/fis/home?region=eu-west-1#ExperimentDetails:ExperimentId=EXP1',
    ]);
    expect(recordLinks({}, undefined, {}, fisConsoleUrl)).toEqual([]);
  });
});

describe('the action step log of command: plan', () => {
  it('shows the review as chaos-gate plan prints it, refusals located in the plan', async () => {
    const ws = join(dir, 'ws-plan');
    const env = { GITHUB_WORKSPACE: ws, GITHUB_RUN_ID: '6', GITHUB_REPOSITORY: 'acme/shop' };
    const inputs = parseInputs((n) => ({ plan: 'chaos/checkout.yaml', command: 'plan' })[n] ?? '');
    const review: PlanReview = {
      kind: 'plan-review',
      planId: 'checkout',
      title: 'Checkout rides out a partition',
      service: 'checkout',
      environment: 'staging',
      digest: 'c0ffee5a1e2b3c4d',
      refusals: [{ field: 'blastRadius.maxTargets', message: 'wider than the policy ceiling 1', line: 12 }],
      sections: [{ heading: 'Blast radius', rows: [['max targets', '5 (::warning::not a command)']] }],
    };
    const { value: code, lines } = await captureStdout(() =>
      runFromInputs(inputs, {
        core: actionsCore,
        env,
        runGate: async () => {
          throw new Error('not used');
        },
        reviewPlan: async () => review,
        validatePlan: async () => ({ text: 'ok', exitCode: 0 }),
        uploadArtifact: async () => undefined,
      }),
    );
    expect(code).toBe(2);
    expect(lines).toContain('plan checkout (chaos/checkout.yaml, digest c0ffee5a1e2b)');
    expect(lines).toContain('Blast radius');
    expect(lines.find((l) => l.startsWith('  max targets'))).toMatch(/^ {2}max targets {2}5 \(/);
    expect(lines).toContain('refused (1):');
    expect(lines).toContain('  chaos/checkout.yaml:12: wider than the policy ceiling 1');
    // Plan text is shown, never run: no line the runner would read as a warning command.
    expect(lines.some((l) => l.startsWith('::warning::not a command'))).toBe(false);
  });
});

const T0 = Date.UTC(2026, 0, 5, 10);

function tick(at: number, phase: Measurement['phase'], p95: number): Measurement {
  return {
    at,
    phase,
    requests: 800,
    slis: {
      p95_latency_s: {
        value: p95,
        status: p95 > 0.18 ? 'breach' : 'ok',
        bound: '<= 0.18',
        query: 'q',
      },
    },
  };
}

describe('step log pacing', () => {
  it('compacts a long fault to a line every few seconds with the worst value so far, but prints every breach', () => {
    const lines: string[] = [];
    const groups: string[] = [];
    const log = stepLog({
      info: (l) => void lines.push(l),
      startGroup: (g) => void groups.push(g),
      endGroup: () => undefined,
    });
    const inject: JournalEvent = { at: T0, type: 'inject', message: 'experiment EXP1 started' };
    log.onEvent({ at: T0 - 60_000, type: 'run-started', message: 'run 1' });
    log.onEvent(inject);
    // 5 minutes of fault at 1 s: p95 peaks at 0.17 (+90 s, fine) and breaches once at +200 s.
    for (let s = 1; s <= 300; s++) {
      const p95 = s === 90 ? 0.17 : s === 200 ? 0.25 : 0.1;
      log.onTick(tick(T0 + s * 1000, 'fault', p95));
    }
    log.close();

    const faultLines = lines.filter((l) => /\sfault\s/.test(l));
    const full = STEP_LOG_FULL_FAULT_MS / 1000;
    const compactEvery = STEP_LOG_COMPACT_EVERY_MS / 1000;
    // One per measurement up to the first minute, then one per 5 s, plus the breach on its own line.
    expect(faultLines.length).toBeLessThanOrEqual(full + (300 - full) / compactEvery + 2);
    expect(faultLines.length).toBeGreaterThanOrEqual(full + (300 - full) / compactEvery - 1);
    const offset = (l: string): number => Number(l.trim().split('s ')[0]);
    // The first compact line after the 0.17 at +90 s carries it as the worst so far.
    const after90 = faultLines.find((l) => offset(l) > 90);
    expect(after90).toContain(`×${compactEvery}`);
    expect(after90).toContain('p95_latency_s 0.1 ok (worst 0.17)');
    expect(faultLines.filter((l) => l.includes('0.25 breach'))).toHaveLength(1);
    expect(faultLines.find((l) => l.trim().startsWith('+200.0s'))).toContain('0.25 breach');
    expect(groups).toEqual(['chaos-gate: preflight', 'chaos-gate: fault']);
  });
});

describe('console colour', () => {
  it('colours a terminal, and stays plain with NO_COLOR, in CI, or when not a terminal', () => {
    expect(useColor({}, true)).toBe(true);
    expect(useColor({ NO_COLOR: '1' }, true)).toBe(false);
    expect(useColor({ NO_COLOR: '' }, true)).toBe(true);
    expect(useColor({ CI: 'true' }, true)).toBe(false);
    expect(useColor({}, false)).toBe(false);
    const m = tick(T0, 'fault', 0.3);
    const time = { kind: 'offset' as const, seconds: 2 };
    expect(formatTick(m, time, { paint: COLOR })).toContain('\u001b[31mbreach\u001b[0m');
    expect(formatTick(m, time, { paint: PLAIN })).not.toContain('\u001b[');
  });
});
