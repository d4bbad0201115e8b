/**
 * A retried step never starts a second experiment (docs/design/run.md#start-and-stop): the runner is SIGKILLed mid-fault and the
 * same `--run-id`/`--attempt` is run again, as a re-run job step would. StartExperiment carries the same
 * deterministic clientToken, so FIS answers with the experiment already running and the retry follows
 * it to the end. The stand-in's own record must show one experiment and one action run.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import path from 'node:path';
import { ListExperimentsCommand, type ExperimentSummary } from '@aws-sdk/client-fis';
import {
  canaryFaults,
  readJournal,
  startE2E,
  waitFor,
  type CliResult,
  type E2E,
  type RunJson,
} from './harness.js';
import type { Journal } from '../../src/journal/types.js';

const RUN_ID = 'e2e-retry-run-7';

let e2e: E2E;
let firstId = '';
let first: CliResult;
let retry: CliResult;
let retryJson: RunJson;
let retryJournal: Journal;
let experiments: ExperimentSummary[] = [];
let starts: { body?: unknown; status: number }[] = [];

beforeAll(async () => {
  e2e = await startE2E();
  const args = (n: number) => [
    'run',
    'fixtures/plans/e2e-retry.yaml',
    '--journal',
    path.join(e2e.dir, `retry-${n}.journal.json`),
    '--json',
    '--run-id',
    RUN_ID,
    '--attempt',
    '1',
  ];
  const child = e2e.cli(args(1));
  [, firstId = ''] = await child.waitForStderr(/experiment (EXP\w+) started/, 90_000);
  await waitFor(
    'the action to run',
    async () => ((await e2e.actions(firstId)).some((a) => a.startTime && !a.endTime) ? true : undefined),
    15_000,
  );
  child.kill('SIGKILL');
  first = await child.done;
  const second = e2e.cli(args(2));
  retry = await second.done;
  retryJson = JSON.parse(retry.stdout.trim().split('\n').at(-1) ?? '{}') as RunJson;
  retryJournal = readJournal(path.join(e2e.dir, 'retry-2.journal.json'));
  experiments = (await e2e.fis.send(new ListExperimentsCommand({ maxResults: 100 }))).experiments ?? [];
  starts = await e2e.requests({ service: 'fis', operation: 'StartExperiment' });
}, 150_000);

afterAll(async () => {
  await e2e?.close();
}, 30_000);

describe('the same --run-id and --attempt run twice', () => {
  it('the retry attached to the experiment the killed runner started', () => {
    expect(first.signal).toBe('SIGKILL');
    expect(retryJson.experimentId, retry.stderr).toBe(firstId);
    expect(retryJournal.experimentId).toBe(firstId);
    expect(retryJournal.runId).toBe(RUN_ID);
  });

  it('sent the same clientToken both times, so FIS started one experiment and ran one action', async () => {
    const real = starts.filter((r) => !JSON.stringify(r.body ?? '').includes('skip-all'));
    expect(real).toHaveLength(2);
    const tokens = real.map((r) => (r.body as { clientToken?: string }).clientToken);
    expect(tokens[0]).toMatch(/^cg-/);
    expect(tokens[1]).toBe(tokens[0]);
    const mine = experiments.filter(
      (e) => e.tags?.['chaos-gate:plan'] === 'e2e-retry' && e.tags?.['chaos-gate:dry-run'] === undefined,
    );
    expect(mine.map((e) => e.id)).toEqual([firstId]);
    expect(await e2e.actions()).toHaveLength(1);
  });

  it('the retry followed the experiment to its end, as FIS reported it', () => {
    expect(retry.code, retry.stderr).toBe(retryJson.exitCode);
    expect(['held', 'deviated'], `${retryJson.verdict}: ${retryJournal.reason}`).toContain(retryJson.verdict);
    const ended = retryJournal.events.find((e) => e.type === 'fault-ended');
    expect(ended?.data).toMatchObject({ status: 'completed' });
    expect(retryJournal.events.some((e) => e.type === 'stop-requested')).toBe(false);
  });

  it('leaves the canary without a fault', async () => {
    expect(await canaryFaults(e2e)).toEqual({});
  });

  it('leaves no experiment running in the stand-in', async () => {
    await e2e.sweep();
    expect(await e2e.liveExperiments()).toEqual([]);
  });
});
