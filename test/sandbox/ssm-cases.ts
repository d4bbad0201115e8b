/**
 * Parameter Store behaviour chaos-gate's claims rely on, as cases run against any endpoint: the
 * sandbox's stand-in (ssm.test.ts) and moto_server (ssm-moto.test.ts). Each case uses its own names.
 */
import {
  DeleteParameterCommand,
  GetParameterCommand,
  GetParametersByPathCommand,
  GetParametersCommand,
  PutParameterCommand,
  type SSMClient,
} from '@aws-sdk/client-ssm';
import { expect } from 'vitest';

/** The error name a call fails with, or 'none'. */
export async function errorOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return 'none';
  } catch (error) {
    return (error as { name?: string }).name ?? 'unknown';
  }
}

const expiration = (at: number): string =>
  JSON.stringify([
    { Type: 'Expiration', Version: '1.0', Attributes: { Timestamp: new Date(at).toISOString() } },
  ]);

export type SsmCase = [name: string, run: (ssm: SSMClient, prefix: string) => Promise<void>];

export const SSM_CASES: SsmCase[] = [
  [
    'creates version 1 of a Standard String parameter and reads it back',
    async (ssm, p) => {
      const put = await ssm.send(new PutParameterCommand({ Name: `${p}/a`, Value: 'one', Type: 'String' }));
      expect(put).toMatchObject({ Version: 1, Tier: 'Standard' });
      const got = await ssm.send(new GetParameterCommand({ Name: `${p}/a` }));
      expect(got.Parameter).toMatchObject({ Name: `${p}/a`, Value: 'one', Version: 1, Type: 'String' });
    },
  ],
  [
    'refuses a create without Overwrite on an existing name (ParameterAlreadyExists) and keeps the value',
    async (ssm, p) => {
      await ssm.send(new PutParameterCommand({ Name: `${p}/b`, Value: 'first', Type: 'String' }));
      expect(
        await errorOf(
          ssm.send(
            new PutParameterCommand({ Name: `${p}/b`, Value: 'second', Type: 'String', Overwrite: false }),
          ),
        ),
      ).toBe('ParameterAlreadyExists');
      const got = await ssm.send(new GetParameterCommand({ Name: `${p}/b` }));
      expect(got.Parameter).toMatchObject({ Value: 'first', Version: 1 });
    },
  ],
  [
    'adds a version with Overwrite; the old one stays readable as name:version',
    async (ssm, p) => {
      await ssm.send(new PutParameterCommand({ Name: `${p}/c`, Value: 'v1', Type: 'String' }));
      const put = await ssm.send(new PutParameterCommand({ Name: `${p}/c`, Value: 'v2', Overwrite: true }));
      expect(put.Version).toBe(2);
      expect((await ssm.send(new GetParameterCommand({ Name: `${p}/c` }))).Parameter?.Value).toBe('v2');
      expect((await ssm.send(new GetParameterCommand({ Name: `${p}/c:1` }))).Parameter?.Value).toBe('v1');
    },
  ],
  [
    'deletes a parameter (then ParameterNotFound on read and delete), and a new one starts at version 1',
    async (ssm, p) => {
      await ssm.send(new PutParameterCommand({ Name: `${p}/d`, Value: 'x', Type: 'String' }));
      await ssm.send(new PutParameterCommand({ Name: `${p}/d`, Value: 'y', Overwrite: true }));
      await ssm.send(new DeleteParameterCommand({ Name: `${p}/d` }));
      expect(await errorOf(ssm.send(new GetParameterCommand({ Name: `${p}/d` })))).toBe('ParameterNotFound');
      expect(await errorOf(ssm.send(new DeleteParameterCommand({ Name: `${p}/d` })))).toBe(
        'ParameterNotFound',
      );
      const again = await ssm.send(new PutParameterCommand({ Name: `${p}/d`, Value: 'z', Type: 'String' }));
      expect(again.Version).toBe(1);
    },
  ],
  [
    'accepts an Advanced parameter with an Expiration policy',
    async (ssm, p) => {
      const put = await ssm.send(
        new PutParameterCommand({
          Name: `${p}/e`,
          Value: 'claim',
          Type: 'String',
          Tier: 'Advanced',
          Policies: expiration(Date.now() + 3_600_000),
        }),
      );
      expect(put).toMatchObject({ Version: 1, Tier: 'Advanced' });
    },
  ],
  [
    'refuses names prefixed aws or ssm (ValidationException)',
    async (ssm, p) => {
      expect(
        await errorOf(ssm.send(new PutParameterCommand({ Name: 'ssm-claim', Value: 'x', Type: 'String' }))),
      ).toBe('ValidationException');
      expect(
        await errorOf(ssm.send(new PutParameterCommand({ Name: 'awsclaim', Value: 'x', Type: 'String' }))),
      ).toBe('ValidationException');
      expect(await errorOf(ssm.send(new GetParameterCommand({ Name: `${p}/never` })))).toBe(
        'ParameterNotFound',
      );
    },
  ],
  [
    'GetParameters answers the found ones and names the missing ones',
    async (ssm, p) => {
      await ssm.send(new PutParameterCommand({ Name: `${p}/f1`, Value: 'x', Type: 'String' }));
      const out = await ssm.send(new GetParametersCommand({ Names: [`${p}/f1`, `${p}/f2`] }));
      expect(out.Parameters?.map((x) => x.Name)).toEqual([`${p}/f1`]);
      expect(out.InvalidParameters).toEqual([`${p}/f2`]);
    },
  ],
  [
    'GetParametersByPath lists one level without Recursive, paged by at most 10',
    async (ssm, p) => {
      for (let i = 0; i < 12; i++)
        await ssm.send(
          new PutParameterCommand({
            Name: `${p}/g/r${String(i).padStart(2, '0')}`,
            Value: String(i),
            Type: 'String',
          }),
        );
      await ssm.send(new PutParameterCommand({ Name: `${p}/g/deeper/x`, Value: 'deep', Type: 'String' }));
      const names: string[] = [];
      let token: string | undefined;
      do {
        const page = await ssm.send(
          new GetParametersByPathCommand({
            Path: `${p}/g/`,
            Recursive: false,
            MaxResults: 10,
            ...(token ? { NextToken: token } : {}),
          }),
        );
        expect((page.Parameters ?? []).length).toBeLessThanOrEqual(10);
        names.push(...(page.Parameters ?? []).map((x) => x.Name ?? ''));
        token = page.NextToken;
      } while (token);
      expect(names.sort()).toEqual(
        Array.from({ length: 12 }, (_, i) => `${p}/g/r${String(i).padStart(2, '0')}`),
      );
    },
  ],
];
