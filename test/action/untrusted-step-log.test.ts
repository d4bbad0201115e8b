/**
 * A Prometheus that answers with workflow commands in its error text, and a plan whose title carries
 * them too, through the action's own code path and the real `@actions/core`: stdout read back line by
 * line as the runner reads it (test/security/hostile.ts) issues only the commands chaos-gate itself
 * writes — the phase groups, its outputs and one error annotation carrying the verdict — and the
 * hostile text still shows in the log, as text.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { parseInputs } from '../../src/action/inputs.js';
import { runFromInputs } from '../../src/action/run.js';
import { actionsCore } from '../../src/action/wiring.js';
import { loadScenario } from '../../src/sim/scenario.js';
import { planWith, simulate } from '../sim/helpers.js';
import { PAYLOADS, parseRunnerLine, runnerLines } from '../security/hostile.js';

const HOSTILE = PAYLOADS.join('\n');

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'cg-untrusted-log-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => vi.restoreAllMocks());

/** Everything written to stdout while `fn` runs (where the runner reads workflow commands). */
async function captureStdout<T>(fn: () => Promise<T>): Promise<{ value: T; text: string }> {
  let text = '';
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    text += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    return true;
  });
  const value = await fn();
  vi.restoreAllMocks();
  return { value, text };
}

const unescapeData = (s: string): string =>
  s.replace(/%0D/g, '\r').replace(/%0A/g, '\n').replace(/%25/g, '%');

/** The commands chaos-gate writes through `@actions/core`; anything else came from the hostile text. */
const OURS = new Set(['group', 'endgroup', 'error', 'warning', 'notice', 'set-output', 'save-state']);

describe('the step log with hostile Prometheus error text and plan title', () => {
  it('issues only chaos-gate’s own workflow commands, and shows the hostile text as text', async () => {
    const ws = join(dir, 'ws');
    const eventPath = join(dir, 'push.json');
    writeFileSync(eventPath, JSON.stringify({ ref: 'refs/heads/main' }));
    const env = {
      GITHUB_WORKSPACE: ws,
      GITHUB_RUN_ID: '9',
      GITHUB_RUN_ATTEMPT: '1',
      GITHUB_EVENT_NAME: 'push',
      GITHUB_EVENT_PATH: eventPath,
      GITHUB_REPOSITORY: 'acme/shop',
    };
    const inputs = parseInputs(
      (n) => ({ plan: 'chaos/checkout.yaml', 'journal-path': join(ws, 'journal.json') })[n] ?? '',
    );
    const plan = planWith((p) => {
      p.title = `Checkout\n${HOSTILE}`;
    });
    const scenario = loadScenario('fixtures/scenarios/inconclusive-blind.yaml');
    const gap = scenario.metrics.p95_latency_s?.gaps[0];
    if (!gap) throw new Error('inconclusive-blind has no gap');
    gap.message = `server returned HTTP 503\n${HOSTILE}`;

    let reason = '';
    const { value: code, text } = await captureStdout(() =>
      runFromInputs(inputs, {
        core: actionsCore,
        env,
        runGate: async (req) => {
          await req.onPlanLoaded({ planId: 'checkout' });
          const run = await simulate(scenario, {
            plan,
            deps: () => ({ onTick: req.onTick, onEvent: req.onEvent }),
          });
          reason = run.result.reason;
          return run.result.journal;
        },
        reviewPlan: async () => {
          throw new Error('not used');
        },
        validatePlan: async () => ({ text: 'ok', exitCode: 0 }),
        uploadArtifact: async () => undefined,
      }),
    );
    const lines = runnerLines(text);
    expect(code, text).toBe(1);
    // The hostile text reached the verdict's reason through the engine.
    expect(reason).toContain('::add-mask::hunter2');

    const commands = lines.flatMap((l) => parseRunnerLine(l) ?? []);
    expect(
      commands.filter((c) => !OURS.has(c.command)),
      text,
    ).toEqual([]);
    const errors = commands.filter((c) => c.command === 'error');
    expect(errors).toHaveLength(1);
    expect(errors[0]!.properties).toBe('title=chaos-gate%3A inconclusive');
    expect(unescapeData(errors[0]!.data)).toBe(reason);
    // Every group is one of our phases, opened once and closed.
    const groups = commands.filter((c) => c.command === 'group').map((c) => c.data);
    for (const g of groups)
      expect(g).toMatch(/^chaos-gate: (preflight|provision|steady state|fault|recovery)$/);
    expect(commands.filter((c) => c.command === 'endgroup')).toHaveLength(groups.length);

    // Shown, not executed: the abort line quotes the error on one line, the verdict line the reason.
    const abort = lines.find((l) => l.includes('» abort:'));
    expect(abort).toContain('server returned HTTP 503\\n');
    expect(abort?.replaceAll('\u200b', '')).toContain('::add-mask::hunter2\\n::error file=');
    const verdictLine = lines.filter((l) => l.startsWith('chaos-gate: inconclusive — ')).at(-1);
    expect(verdictLine?.replaceAll('\u200b', '')).toContain('##[error]legacy error');
  });
});
