/**
 * The sandbox's SSM Parameter Store stand-in through the real `@aws-sdk/client-ssm` (awsJson1_1): the
 * shared cases (also run against moto in ssm-moto.test.ts), then what only the stand-in does — expiry
 * by an Expiration policy, the policy and tier rules, name rules — and that the sandbox serves it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GetParameterCommand, PutParameterCommand } from '@aws-sdk/client-ssm';
import { SSM_CASES, errorOf } from './ssm-cases.js';
import { startSsm, type SsmHarness } from './ssm-harness.js';

let h: SsmHarness;
beforeAll(async () => {
  h = await startSsm();
});
afterAll(async () => {
  await h?.close();
});

const policy = (type: string, attrs: Record<string, unknown>) =>
  JSON.stringify([{ Type: type, Version: '1.0', Attributes: attrs }]);

describe('the SSM stand-in: the cases shared with moto', () => {
  SSM_CASES.forEach(([name, run], i) => it(name, () => run(h.client, `/cases/${i}`)));
});

describe('the SSM stand-in: expiry and policies', () => {
  it('deletes a parameter once its Expiration timestamp has passed, and the name can be created again', async () => {
    h.clock.t = Date.UTC(2026, 0, 1);
    const at = h.clock.t + 60_000;
    await h.client.send(
      new PutParameterCommand({
        Name: '/exp/a',
        Value: 'held',
        Type: 'String',
        Tier: 'Advanced',
        Policies: policy('Expiration', { Timestamp: new Date(at).toISOString() }),
      }),
    );
    h.clock.t = at - 1;
    expect((await h.client.send(new GetParameterCommand({ Name: '/exp/a' }))).Parameter?.Value).toBe('held');
    h.clock.t = at;
    expect(await errorOf(h.client.send(new GetParameterCommand({ Name: '/exp/a' })))).toBe(
      'ParameterNotFound',
    );
    expect(h.standIn.history.filter((e) => e.name === '/exp/a').map((e) => e.kind)).toEqual([
      'created',
      'expired',
    ]);
    const again = await h.client.send(
      new PutParameterCommand({ Name: '/exp/a', Value: 'new', Type: 'String' }),
    );
    expect(again.Version).toBe(1);
    h.clock.t = null;
  });

  it('refuses policies on the Standard tier and takes Intelligent-Tiering with a policy as Advanced', async () => {
    const p = policy('Expiration', { Timestamp: new Date(Date.now() + 60_000).toISOString() });
    expect(
      await errorOf(
        h.client.send(
          new PutParameterCommand({
            Name: '/pol/std',
            Value: 'x',
            Type: 'String',
            Tier: 'Standard',
            Policies: p,
          }),
        ),
      ),
    ).toBe('ValidationException');
    const put = await h.client.send(
      new PutParameterCommand({
        Name: '/pol/it',
        Value: 'x',
        Type: 'String',
        Tier: 'Intelligent-Tiering',
        Policies: p,
      }),
    );
    expect(put.Tier).toBe('Advanced');
  });

  it('names each bad policy with its own error', async () => {
    const put = (Policies: string) =>
      errorOf(
        h.client.send(
          new PutParameterCommand({
            Name: '/pol/bad',
            Value: 'x',
            Type: 'String',
            Tier: 'Advanced',
            Policies,
          }),
        ),
      );
    expect(await put(policy('Retention', {}))).toBe('InvalidPolicyTypeException');
    expect(await put(policy('Expiration', { Timestamp: 'tomorrow' }))).toBe(
      'InvalidPolicyAttributeException',
    );
    expect(await put(policy('Expiration', { Timestamp: new Date(Date.now() - 1000).toISOString() }))).toBe(
      'InvalidPolicyAttributeException',
    );
    const ts = new Date(Date.now() + 60_000).toISOString();
    expect(
      await put(
        JSON.stringify(
          [0, 1].map(() => ({ Type: 'Expiration', Version: '1.0', Attributes: { Timestamp: ts } })),
        ),
      ),
    ).toBe('IncompatiblePolicyException');
    expect(await put('not json')).toBe('InvalidPolicyAttributeException');
    expect(await errorOf(h.client.send(new GetParameterCommand({ Name: '/pol/bad' })))).toBe(
      'ParameterNotFound',
    );
  });

  it('refuses bad names: characters, a hierarchy without its leading slash, more than 15 levels', async () => {
    const put = (Name: string) =>
      errorOf(h.client.send(new PutParameterCommand({ Name, Value: 'x', Type: 'String' })));
    expect(await put('/has space')).toBe('ValidationException');
    expect(await put('no/leading-slash')).toBe('ValidationException');
    expect(await put(`/${Array.from({ length: 16 }, (_, i) => `l${i}`).join('/')}`)).toBe(
      'HierarchyLevelLimitExceededException',
    );
    expect(await put(`/${Array.from({ length: 15 }, (_, i) => `l${i}`).join('/')}`)).toBe('none');
  });

  it('answers an unknown operation with UnknownOperationException', async () => {
    const res = await fetch(`${h.url}/`, {
      method: 'POST',
      headers: { 'x-amz-target': 'AmazonSSM.SendCommand', 'content-type': 'application/x-amz-json-1.1' },
      body: '{}',
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { __type: string }).__type).toBe('UnknownOperationException');
  });
});
