/**
 * A kill-switch read that fails fails closed (issue 26 item 7): the FIS safety lever refused (403),
 * throttled beyond its retries, or silent past its deadline is never "released". The read goes out as a
 * run sends it (compose/early.ts, real SDK clients over HTTP to the sandbox), the gate decides, and a run
 * through the engine journals the refusal and starts nothing.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startEarlyReads } from '../../src/compose/early.js';
import { killSwitchGate } from '../../src/preflight/kill-switch.js';
import { getSafetyLever } from '../../src/injector/fis/safety-lever.js';
import { createAwsClients } from '../../src/injector/aws/clients.js';
import { runGate } from '../../src/engine/run.js';
import { VirtualClock } from '../../src/clock/clock.js';
import { MemoryJournalWriter } from '../../src/journal/writer.js';
import { SimWorld } from '../../src/sim/world.js';
import { loadScenario } from '../../src/sim/scenario.js';
import { loadTestPlan } from '../sim/helpers.js';
import { startSandboxProcess, type RunningSandbox } from '../helpers/sandbox.js';

let sandbox: RunningSandbox;
const saved: Record<string, string | undefined> = {};
const ENV = ['AWS_ENDPOINT_URL', 'AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_REGION'] as const;

interface LoggedRequest {
  seq: number;
  operation: string;
  status: number;
}

async function lastSeq(): Promise<number> {
  const { requests } = await sandbox.admin.get<{ requests: LoggedRequest[] }>('/requests');
  return requests.at(-1)?.seq ?? 0;
}

async function leverReads(since: number): Promise<LoggedRequest[]> {
  const { requests } = await sandbox.admin.get<{ requests: LoggedRequest[] }>(
    `/requests?operation=GetSafetyLever&since=${since}`,
  );
  return requests;
}

function gateCheck() {
  const early = startEarlyReads({ region: 'us-east-1', env: process.env });
  const plan = loadTestPlan();
  return killSwitchGate(early.killSwitch).check({ plan, now: Date.now(), record: () => undefined });
}

beforeAll(async () => {
  sandbox = await startSandboxProcess({ args: ['--no-load'] });
  for (const k of ENV) saved[k] = process.env[k];
  Object.assign(process.env, {
    AWS_ENDPOINT_URL: sandbox.urls.aws,
    AWS_ACCESS_KEY_ID: 'sandbox',
    AWS_SECRET_ACCESS_KEY: 'sandbox',
    AWS_REGION: 'us-east-1',
  });
}, 30_000);

afterEach(async () => {
  await sandbox.admin.send('DELETE', '/faults');
});

afterAll(async () => {
  for (const k of ENV) {
    if (saved[k] === undefined) delete process.env[k];
    else process.env[k] = saved[k];
  }
  await sandbox?.stop();
});

describe('the kill-switch read', () => {
  it('passes with the alarm OK and the lever disengaged, as read from the sandbox', async () => {
    expect(await gateCheck()).toEqual({ pass: true, note: 'kill switch released' });
  });

  it('a lever read refused with 403 is a broken set-up naming the call and AWS’s answer, never "released"', async () => {
    await sandbox.admin.send('POST', '/faults', {
      service: 'fis',
      operation: 'GetSafetyLever',
      kind: 'deny',
    });
    const mark = await lastSeq();
    await expect(gateCheck()).rejects.toThrow(
      /the AWS set-up is broken \(AccessDeniedException: FIS GetSafetyLever answered HTTP 403 AccessDeniedException: User: .* is not authorized to perform: fis:GetSafetyLever/,
    );
    // A refusal is definite: asked once, not retried.
    expect((await leverReads(mark)).map((r) => r.status)).toEqual([403]);
  });

  it('a lever throttled beyond its retries refuses the start (not-run), naming the call', async () => {
    await sandbox.admin.send('POST', '/faults', {
      service: 'fis',
      operation: 'GetSafetyLever',
      kind: 'throttle',
    });
    const mark = await lastSeq();
    const outcome = await gateCheck();
    expect(outcome).toMatchObject({ pass: false, verdict: 'not-run' });
    expect(outcome.pass === false && outcome.reason).toMatch(
      /^cannot read the kill switch \(FIS GetSafetyLever answered HTTP 429 ThrottlingException: Rate exceeded\); refusing to start$/,
    );
    expect((await leverReads(mark)).map((r) => r.status)).toEqual([429, 429, 429]);
  });

  it('a throttle that clears within the retries reads the lever', async () => {
    await sandbox.admin.send('POST', '/faults', {
      service: 'fis',
      operation: 'GetSafetyLever',
      kind: 'throttle',
      count: 1,
    });
    expect(await gateCheck()).toEqual({ pass: true, note: 'kill switch released' });
  });

  it('a lever that does not answer in time is a failure, not "unavailable"', async () => {
    await sandbox.admin.send('POST', '/faults', {
      service: 'fis',
      operation: 'GetSafetyLever',
      kind: 'latency',
      latencyMs: 60_000,
    });
    const { fis } = createAwsClients({ region: 'us-east-1' });
    const lever = await getSafetyLever(fis, 'us-east-1', { deadlineMs: 500 });
    expect(lever.available).toBe(false);
    expect(!lever.available && lever.error?.message).toBe(
      'FIS GetSafetyLever failed: FIS GetSafetyLever did not answer within 500 ms',
    );
  });

  it('through the engine: the refusal is journaled, nothing is started, the verdict is never held', async () => {
    await sandbox.admin.send('POST', '/faults', {
      service: 'fis',
      operation: 'GetSafetyLever',
      kind: 'deny',
    });
    const clock = new VirtualClock();
    const world = new SimWorld(loadScenario('fixtures/scenarios/held.yaml'), clock);
    const early = startEarlyReads({ region: 'us-east-1', env: process.env });
    const journal = new MemoryJournalWriter();
    const result = await runGate({
      plan: loadTestPlan(),
      planDigest: 'sha256:x',
      runId: 'r',
      attempt: 1,
      clock,
      sources: world.sources,
      injector: world.injector,
      gates: [killSwitchGate(early.killSwitch)],
      journal,
      ctx: { runId: 'r', attempt: 1 },
    });
    expect(result.verdict).toBe('failed');
    expect(result.reason).toContain('FIS GetSafetyLever answered HTTP 403 AccessDeniedException');
    expect(world.injector.calls.some((c) => c.method === 'start')).toBe(false);
    expect(journal.snapshot().events.some((e) => e.message.includes('kill switch released'))).toBe(false);
  });
});
