/**
 * FIS itself fails the experiment mid-run (the sandbox's admin endpoint forces an `InternalFailure`, as
 * FIS does when a dependent service breaks). The verdict is `failed` with FIS's error code in the
 * reason, exit 1, and the fault is off: a failed experiment stops its actions.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import path from 'node:path';
import { canaryFaults, readJournal, startE2E, waitFor, type E2E, type RunJson } from './harness.js';
import type { Journal } from '../../src/journal/types.js';

const CODE = 'InternalFailure';
const WHY = 'e2e: the sandbox failed this experiment on purpose';

let e2e: E2E;
let json: RunJson;
let journal: Journal;
let code: number | null;
let experimentId = '';

beforeAll(async () => {
  e2e = await startE2E();
  const journalPath = path.join(e2e.dir, 'failed.journal.json');
  const child = e2e.cli(['run', 'fixtures/plans/e2e-failed.yaml', '--journal', journalPath, '--json']);
  [, experimentId = ''] = await child.waitForStderr(/experiment (EXP\w+) started/, 90_000);
  await waitFor(
    'the action to run',
    async () => ((await e2e.actions(experimentId)).some((a) => a.startTime && !a.endTime) ? true : undefined),
    15_000,
  );
  await e2e.sandbox.admin.send('POST', '/fis/fail', { experimentId, code: CODE, reason: WHY });
  const result = await child.done;
  code = result.code;
  json = JSON.parse(result.stdout.trim().split('\n').at(-1) ?? '{}') as RunJson;
  journal = readJournal(journalPath);
}, 120_000);

afterAll(async () => {
  await e2e?.close();
}, 30_000);

describe('an experiment that FIS fails mid-run', () => {
  it('ends failed with exit code 1 and FIS error code in the reason', () => {
    expect(json.verdict, JSON.stringify(json)).toBe('failed');
    expect(code).toBe(1);
    expect(json.experimentId).toBe(experimentId);
    expect(json.reason).toContain(CODE);
  });

  it('journals the failed state FIS reported', () => {
    expect(journal.verdict).toBe('failed');
    const failed = journal.events.filter((e) => e.type === 'experiment-state' && e.data?.status === 'failed');
    expect(failed.length).toBeGreaterThan(0);
    expect(journal.timings.injectedAt).toBeDefined();
    expect(journal.timings.firstBreachAt).toBeUndefined();
  });

  it("journals FIS's per-action status: the action failed, with FIS's reason, and the experiment's final reason", () => {
    const failed = journal.events.find((e) => e.type === 'experiment-state' && e.data?.status === 'failed');
    const actions = failed?.data?.actions as Record<string, string>;
    const details = failed?.data?.actionStates as Record<string, { status: string; reason?: string }>;
    expect(Object.values(actions)).toContain('failed');
    expect(Object.values(details).find((a) => a.status === 'failed')?.reason).toBe(WHY);
    expect(failed?.data).toMatchObject({ errorCode: CODE, reason: WHY });
    expect(failed?.message).toMatch(
      /action \w+ failed \(e2e: the sandbox failed this experiment on purpose\)/,
    );
    // FIS ended it: the gate sent no stop, and the verdict is not held.
    expect(journal.events.some((e) => e.type === 'stop-requested')).toBe(false);
    expect(journal.verdict).not.toBe('held');
  });

  it('the stand-in records the experiment failed and its action no longer running', async () => {
    const experiment = await e2e.experiment(experimentId);
    expect(experiment.state?.status).toBe('failed');
    expect((experiment.state as { error?: { code?: string } }).error?.code).toBe(CODE);
    const actions = await e2e.actions(experimentId);
    expect(actions).toHaveLength(1);
    expect(actions[0]?.endTime).toBeDefined();
  });

  it('leaves the canary without a fault', async () => {
    expect(await canaryFaults(e2e)).toEqual({});
  });

  it('leaves no experiment running in the stand-in', async () => {
    await e2e.sweep();
    expect(await e2e.liveExperiments()).toEqual([]);
  });
});
