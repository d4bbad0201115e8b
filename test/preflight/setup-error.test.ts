/**
 * Issue 12.6: a preflight gate whose probe reports a broken set-up (a SetupError) throws — the engine turns
 * a thrown gate into a fatal error and the `failed` verdict — while a transient probe failure keeps the
 * gate's `not-run` answer. One case per gate that reads AWS before the start.
 */
import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../src/clock/clock.js';
import type { GateContext } from '../../src/engine/gates.js';
import { blastRadiusGate } from '../../src/preflight/blast-radius.js';
import { budgetGate } from '../../src/preflight/budget.js';
import { concurrencyGate } from '../../src/preflight/concurrency.js';
import { incidentGate } from '../../src/preflight/incidents.js';
import { killSwitchGate } from '../../src/preflight/kill-switch.js';
import { findSetupError, rethrowSetupError, SetupError } from '../../src/preflight/setup-error.js';
import { Plan } from '../../src/plan/schema.js';

const plan = Plan.parse({
  version: 1,
  id: 'setup',
  title: 'setup',
  service: 'svc',
  environment: 'staging',
  owner: 'sre',
  hypothesis: {
    slis: [{ name: 'error_ratio', prometheus: 'sum(rate(e[1m])) / sum(rate(t[1m]))', max: 0.01 }],
    steadyState: { duration: '5s' },
    recovery: { within: '10s' },
  },
  abort: { rules: [{ sli: 'error_ratio', above: 0.05, for: '3s' }] },
  budget: { objective: 0.999, errors: { prometheus: 'errors' }, total: { prometheus: 'total' } },
  fis: {
    roleArn: 'arn:aws:iam::123456789012:role/fis',
    targets: { t: { resourceType: 'aws:ec2:instance', resourceTags: { a: 'b' }, selectionMode: 'COUNT(1)' } },
    actions: { a: { actionId: 'aws:ec2:stop-instances', targets: { Instances: 't' } } },
  },
});

const ctx: GateContext = {
  plan,
  now: 0,
  targets: [{ target: 't', arn: 'arn:aws:ec2:us-east-1:123456789012:instance/i-1', tags: { a: 'b' } }],
  record: () => undefined,
};

const BROKEN =
  'the AWS set-up is broken (CredentialsProviderError: Could not load credentials from any providers)';
const broken = (): never => {
  throw new SetupError(BROKEN);
};
const throttled = (): never => {
  throw Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException' });
};

describe('a broken set-up ends the run failed; a transient failure stays not-run', () => {
  it('kill switch', async () => {
    await expect(killSwitchGate({ engaged: async () => broken() }).check(ctx)).rejects.toThrow(
      `cannot read the kill switch: ${BROKEN}`,
    );
    await expect(killSwitchGate({ engaged: async () => throttled() }).check(ctx)).resolves.toMatchObject({
      pass: false,
      verdict: 'not-run',
      reason: 'cannot read the kill switch (Rate exceeded); refusing to start',
    });
  });

  it('incidents', async () => {
    await expect(incidentGate({ open: async () => broken() }).check(ctx)).rejects.toThrow(
      `cannot tell whether an incident is open: ${BROKEN}`,
    );
    await expect(incidentGate({ open: async () => throttled() }).check(ctx)).resolves.toMatchObject({
      pass: false,
      verdict: 'not-run',
      field: 'schedule.incidents',
    });
  });

  it('budget: the chaos ledger and the counts', async () => {
    const counts = {
      count: async (name: string) => ({ value: name === 'budget.total' ? 1e6 : 0, query: name }),
    };
    await expect(budgetGate({ counts, ledger: { spent: async () => broken() } }).check(ctx)).rejects.toThrow(
      `cannot read the chaos ledger: ${BROKEN}`,
    );
    await expect(
      budgetGate({ counts: { count: async () => broken() }, ledger: { spent: async () => 0 } }).check(ctx),
    ).rejects.toThrow(`cannot read budget.errors: ${BROKEN}`);
    await expect(
      budgetGate({ counts, ledger: { spent: async () => throttled() } }).check(ctx),
    ).resolves.toMatchObject({ pass: false, verdict: 'not-run', field: 'budget' });
  });

  it('concurrency', async () => {
    const gate = (running: () => Promise<never>) =>
      concurrencyGate({ lister: { running }, clock: new VirtualClock(0), queueTimeoutMs: 0 });
    await expect(gate(async () => broken()).check(ctx)).rejects.toThrow(
      `cannot list running experiments: ${BROKEN}`,
    );
    await expect(gate(async () => throttled()).check(ctx)).resolves.toMatchObject({
      pass: false,
      verdict: 'not-run',
    });
  });

  it('blast radius: counting candidates', async () => {
    await expect(
      blastRadiusGate({ candidates: { candidates: async () => broken() } }).check(ctx),
    ).rejects.toThrow(`cannot count the candidates of target t: ${BROKEN}`);
    await expect(
      blastRadiusGate({ candidates: { candidates: async () => throttled() } }).check(ctx),
    ).resolves.toMatchObject({ pass: false, verdict: 'not-run', field: 'fis.targets.t' });
  });
});

describe('rethrowSetupError', () => {
  it('finds a SetupError behind causes and keeps the original as the cause', () => {
    const inner = new SetupError(BROKEN);
    const wrapped = new Error('step: x', { cause: inner });
    let thrown: unknown;
    try {
      rethrowSetupError(wrapped, 'cannot read X');
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(SetupError);
    expect((thrown as Error).message).toBe(`cannot read X: ${BROKEN}`);
    expect((thrown as Error).cause).toBe(wrapped);
    expect(findSetupError(thrown)).toBe(thrown);
  });

  it('returns for anything that is not a set-up error', () => {
    expect(() => rethrowSetupError(new Error('Rate exceeded'), 'cannot read X')).not.toThrow();
    expect(() => rethrowSetupError('text', 'cannot read X')).not.toThrow();
  });
});
