/**
 * The pinned @aws-sdk/client-fis@3.523.0 drops experimentOptions from StartExperiment (docs/design/fis.md#the-pinned-fis-client), so a
 * dry run sent through it unpatched would inject for real. These tests prove the patch puts the field on
 * the wire under the signature, and that a FIS endpoint which ignores it is caught, stopped and refused.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { FisClient, StartExperimentCommand } from '@aws-sdk/client-fis';
import { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import { SignatureV4 } from '@smithy/signature-v4';
import { HttpRequest } from '@smithy/protocol-http';
import { Sha256 } from '@aws-crypto/sha256-js';
import { addFisPatches } from '../../src/injector/fis/patches.js';
import { FisInjector, InjectorRefusal } from '../../src/injector/fis/injector.js';
import { VirtualClock } from '../../src/clock/clock.js';
import { Plan } from '../../src/plan/schema.js';

interface Captured {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

const credentials = { accessKeyId: 'AKIDTEST', secretAccessKey: 'secret-test' };
let server: http.Server;
let endpoint = '';
const captured: Captured[] = [];
/** When true, the fake FIS answers StartExperiment as an endpoint that ignores experimentOptions. */
let honourOptions = true;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      captured.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body });
      res.setHeader('content-type', 'application/json');
      const now = Date.now() / 1000;
      if (req.method === 'POST' && req.url === '/experiments') {
        const input = JSON.parse(body) as { experimentOptions?: unknown; experimentTemplateId: string };
        const experiment: Record<string, unknown> = {
          id: 'EXPdryrun0001',
          experimentTemplateId: input.experimentTemplateId,
          state: { status: 'initiating', reason: 'Experiment is initiating.' },
          creationTime: now,
        };
        if (honourOptions && input.experimentOptions) experiment.experimentOptions = input.experimentOptions;
        res.end(JSON.stringify({ experiment }));
        return;
      }
      if (req.method === 'DELETE' && req.url?.startsWith('/experiments/')) {
        res.end(JSON.stringify({ experiment: { id: req.url.split('/')[2], state: { status: 'stopping' } } }));
        return;
      }
      res.statusCode = 404;
      res.end(JSON.stringify({ message: 'not in this fake' }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

function fisClient(patched: boolean): FisClient {
  const client = new FisClient({ region: 'us-east-1', endpoint, credentials, maxAttempts: 1 });
  if (patched) addFisPatches(client);
  return client;
}

const plan = Plan.parse({
  version: 1,
  id: 'dry-run-check',
  title: 'dry run',
  service: 'svc',
  environment: 'staging',
  owner: 'team',
  hypothesis: {
    slis: [{ name: 'err', prometheus: 'vector(0)', max: 0.01 }],
    steadyState: { duration: '5s' },
    recovery: { within: '10s' },
  },
  abort: { rules: [{ sli: 'err', above: 0.05, for: '3s' }] },
  fis: {
    roleArn: 'arn:aws:iam::123456789012:role/fis',
    targets: {
      nodes: {
        resourceType: 'aws:ec2:instance',
        resourceTags: { Environment: 'staging-chaos' },
        selectionMode: 'COUNT(1)',
      },
    },
    actions: { stop: { actionId: 'aws:ec2:stop-instances', targets: { Instances: 'nodes' } } },
  },
});

describe('FIS dry run through the pinned client', () => {
  it('an unpatched 3.523.0 client silently drops experimentOptions (the hazard this project guards against)', async () => {
    captured.length = 0;
    const input = {
      clientToken: 't1',
      experimentTemplateId: 'EXT1',
      experimentOptions: { actionsMode: 'skip-all' },
    };
    await fisClient(false).send(new StartExperimentCommand(input as never));
    const sent = JSON.parse(captured[0]?.body ?? '{}') as Record<string, unknown>;
    expect(sent.experimentTemplateId).toBe('EXT1');
    expect(sent).not.toHaveProperty('experimentOptions');
  });

  it('the patch puts actionsMode skip-all on the wire, covered by the SigV4 signature', async () => {
    captured.length = 0;
    const input = {
      clientToken: 't2',
      experimentTemplateId: 'EXT1',
      experimentOptions: { actionsMode: 'skip-all' },
    };
    await fisClient(true).send(new StartExperimentCommand(input as never));
    const req = captured[0] as Captured;
    expect(JSON.parse(req.body)).toMatchObject({ experimentOptions: { actionsMode: 'skip-all' } });
    expect(Number(req.headers['content-length'])).toBe(Buffer.byteLength(req.body));

    // Re-sign the request exactly as received: the signature only matches if it covered the patched body.
    const amzDate = String(req.headers['x-amz-date']);
    const signingDate = new Date(
      `${amzDate.slice(0, 4)}-${amzDate.slice(4, 6)}-${amzDate.slice(6, 8)}T${amzDate.slice(9, 11)}:${amzDate.slice(11, 13)}:${amzDate.slice(13, 15)}Z`,
    );
    const auth = String(req.headers.authorization);
    const signedHeaders = /SignedHeaders=([^,]+)/.exec(auth)?.[1]?.split(';') ?? [];
    const headers: Record<string, string> = {};
    for (const h of signedHeaders) headers[h] = String(req.headers[h]);
    const url = new URL(req.path, endpoint);
    const replay = new HttpRequest({
      method: req.method,
      protocol: 'http:',
      hostname: url.hostname,
      port: Number(url.port),
      path: url.pathname,
      headers,
      body: req.body,
    });
    const signer = new SignatureV4({ credentials, region: 'us-east-1', service: 'fis', sha256: Sha256 });
    const resigned = await signer.sign(replay, { signingDate });
    expect(resigned.headers.authorization).toBe(auth);
  });

  it('refuses and stops the experiment when the endpoint ignores the dry-run option', async () => {
    captured.length = 0;
    honourOptions = false;
    try {
      const injector = new FisInjector({
        fis: fisClient(true),
        cloudwatch: new CloudWatchClient({ region: 'us-east-1', endpoint, credentials, maxAttempts: 1 }),
        region: 'us-east-1',
        clock: new VirtualClock(),
      });
      const error = await injector.resolveTargets(plan, 'EXT1', { runId: 'run-1', attempt: 1 }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(InjectorRefusal);
      expect((error as Error).message).toMatch(/actionsMode \(absent\) instead of skip-all/);
      const stop = captured.find((c) => c.method === 'DELETE');
      expect(stop?.path).toBe('/experiments/EXPdryrun0001');
      // Nothing after the stop: no resolved-target listing, no second start.
      expect(captured.filter((c) => c.method === 'POST')).toHaveLength(1);
    } finally {
      honourOptions = true;
    }
  });
});
