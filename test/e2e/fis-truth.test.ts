/**
 * What FIS says, and what it does not say, against the sandbox through the real (pinned, patched) FIS
 * SDK client: a dry run FIS does not finish in time is stopped and ends the run `not-run` with no
 * experiment started (never "0 targets"); a StartExperiment whose answers are lost is found by its run
 * tags, reported and stopped by the gate, and the verdict is never `held`. The sandbox's own records
 * (its request log, GetExperiment) say what happened.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import path from 'node:path';
import { FisClient, ListExperimentsCommand } from '@aws-sdk/client-fis';
import { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import { addFisPatches } from '../../src/injector/fis/patches.js';
import { FisInjector } from '../../src/injector/fis/injector.js';
import { systemClock } from '../../src/clock/clock.js';
import { MemoryJournalWriter } from '../../src/journal/writer.js';
import { loadPlan } from '../../src/plan/load.js';
import { runGate, type RunResult } from '../../src/engine/run.js';
import {
  copyPlan,
  PLANS,
  readJournal,
  REGION,
  startE2E,
  waitFor,
  type E2E,
  type RunJson,
} from './harness.js';

const CREDENTIALS = { accessKeyId: 'e2e', secretAccessKey: 'e2e' };

let e2e: E2E;

beforeAll(async () => {
  e2e = await startE2E();
}, 60_000);

afterAll(async () => {
  await e2e?.close();
}, 30_000);

describe('a dry run FIS does not finish in time', () => {
  let result: RunResult;
  let dryRunId = '';
  let since = 0;

  beforeAll(async () => {
    // Every experiment stays `pending` for a minute: FIS is slow to resolve the targets.
    await e2e.sandbox.admin.send('PATCH', '/fis/timings', { pendingMs: 60_000 });
    since = await e2e.mark();
    const fis = new FisClient({ endpoint: e2e.sandbox.urls.aws, region: REGION, credentials: CREDENTIALS });
    addFisPatches(fis);
    const cloudwatch = new CloudWatchClient({
      endpoint: e2e.sandbox.urls.aws,
      region: REGION,
      credentials: CREDENTIALS,
    });
    try {
      const { plan } = await loadPlan(path.join(PLANS, 'e2e-held.yaml'));
      const injector = new FisInjector({
        fis,
        cloudwatch,
        region: REGION,
        clock: systemClock,
        dryRunTimeoutMs: 1_500,
        pollMs: 200,
      });
      const ctx = { runId: `slow-dry-run-${Date.now()}`, attempt: 1 };
      result = await runGate({
        plan,
        planDigest: 'e2e',
        runId: ctx.runId,
        attempt: 1,
        clock: systemClock,
        sources: {},
        injector,
        journal: new MemoryJournalWriter(),
        ctx,
      });
    } finally {
      await e2e.sandbox.admin.send('PATCH', '/fis/timings', { pendingMs: 0 });
      fis.destroy();
      cloudwatch.destroy();
    }
    const starts = await e2e.requests({ service: 'fis', operation: 'StartExperiment', since });
    dryRunId = String(
      (result.journal.events.find((e) => e.type === 'not-run')?.message ?? '').match(/EXP\w+/)?.[0],
    );
    expect(starts.length).toBeGreaterThan(0);
  }, 60_000);

  it('ends not-run naming the dry run and how long it waited, never "0 targets"', () => {
    expect(result.verdict, result.reason).toBe('not-run');
    expect(result.reason).toMatch(
      new RegExp(
        `^FIS did not finish dry run ${dryRunId} of EXT\\w+ within \\d+\\.\\d s: it was still pending`,
      ),
    );
    expect(result.reason).toContain('no experiment was started');
    expect(result.journal.events.some((e) => e.type === 'targets-resolved')).toBe(false);
    expect(result.journal.resolvedTargets).toBeUndefined();
  });

  it('stopped the pending dry run: the gate sent StopExperiment for it and FIS shows it stopped', async () => {
    const stops = await e2e.requests({ service: 'fis', operation: 'StopExperiment', since });
    expect(stops.map((r) => r.path)).toEqual([`/experiments/${dryRunId}`]);
    const stopped = await waitFor(
      'the dry run to read stopped',
      async () => {
        const e = await e2e.experiment(dryRunId);
        return e.state?.status === 'stopped' ? e : undefined;
      },
      10_000,
    );
    expect(stopped.tags?.['chaos-gate:dry-run']).toBe('true');
  });

  it('sent no real StartExperiment: the only one was the dry run (skip-all)', async () => {
    const starts = await e2e.requests({ service: 'fis', operation: 'StartExperiment', since });
    expect(starts).toHaveLength(1);
    expect(JSON.stringify(starts[0]?.body)).toContain('skip-all');
    expect(result.experimentId).toBeUndefined();
    expect(await e2e.actions()).toEqual([]);
  });
});

describe('a StartExperiment whose answers are all lost', () => {
  let json: RunJson;
  let journal: ReturnType<typeof readJournal>;
  let since = 0;
  let code: number | null = null;

  beforeAll(async () => {
    since = await e2e.mark();
    const journalPath = path.join(e2e.dir, 'lost-start.journal.json');
    // A plan of its own: a fresh lease alarm, not the one the dry-run case above left in ALARM.
    const plan = copyPlan(e2e.dir, 'e2e-held.yaml', (t) => t.replace('id: e2e-held', 'id: e2e-lost-start'));
    const child = e2e.cli(['run', plan, '--journal', journalPath, '--json']);
    try {
      // Once the dry run is done, every StartExperiment still reaches FIS (the experiment starts), but
      // no answer comes back.
      await waitFor(
        'the dry run to resolve the targets',
        async () => {
          try {
            return readJournal(journalPath).events.some((e) => e.type === 'targets-resolved')
              ? true
              : undefined;
          } catch {
            return undefined;
          }
        },
        60_000,
      ).catch((error: unknown) => {
        throw new Error(`${String(error)}; the run said:\n${child.stderr().slice(-2000)}`);
      });
      await e2e.sandbox.admin.send('POST', '/faults', {
        service: 'fis',
        operation: 'StartExperiment',
        kind: 'drop-answer',
        durationMs: 120_000,
      });
      const out = await child.done;
      code = out.code;
      json = JSON.parse(out.stdout.trim().split('\n').at(-1) ?? '{}') as RunJson;
      journal = readJournal(journalPath);
    } finally {
      child.kill('SIGKILL');
      await e2e.sandbox.admin.send('DELETE', '/faults');
    }
  }, 120_000);

  it('is never held: the run cannot time the fault, so it fails and says which experiment it found', () => {
    expect(json.verdict, json.reason).toBe('failed');
    expect(code).toBe(1);
    expect(json.experimentId).toMatch(/^EXP/);
    expect(json.reason).toContain(`FIS lists experiment ${json.experimentId} of this run`);
    expect(journal.experimentId).toBe(json.experimentId);
  });

  it('found the experiment that really started, stopped it, and FIS shows it stopped', async () => {
    const starts = await e2e.requests({ service: 'fis', operation: 'StartExperiment', since });
    const sent = starts.filter((r) => !JSON.stringify(r.body).includes('skip-all'));
    expect(sent.length).toBeGreaterThanOrEqual(2);
    expect(sent.every((r) => r.status === 0)).toBe(true);
    const lists = await e2e.requests({ service: 'fis', operation: 'ListExperiments', since });
    expect(lists.length).toBeGreaterThan(0);
    const stops = await e2e.requests({ service: 'fis', operation: 'StopExperiment', since });
    expect(stops.map((r) => r.path)).toContain(`/experiments/${json.experimentId}`);
    const experiment = await e2e.experiment(json.experimentId ?? '');
    expect(['stopping', 'stopped']).toContain(experiment.state?.status);
    const verified = journal.events.find((e) => e.type === 'stop-verified');
    expect(verified?.data).toMatchObject({ status: 'stopped', by: 'stop-experiment' });
    // One experiment of this run, however many times StartExperiment was asked (its clientToken).
    const listed = await e2e.fis.send(new ListExperimentsCommand({}));
    const real = listed.experiments?.filter(
      (e) => e.tags?.['chaos-gate:plan'] === 'e2e-lost-start' && e.tags['chaos-gate:dry-run'] === undefined,
    );
    expect(real?.map((e) => e.id)).toEqual([json.experimentId]);
  });
});
