/**
 * The SSM Parameter Store stand-in on loopback with a settable clock, and a real `@aws-sdk/client-ssm`
 * client against it (no retries, so a wrong first answer is seen). Shared by the stand-in's own tests,
 * its moto contract and the claim tests.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { SSMClient } from '@aws-sdk/client-ssm';
import { SsmStandIn } from '../../src/sandbox/ssm/index.js';
import { sdkConfig } from '../helpers/contract.js';

export interface SsmHarness {
  url: string;
  standIn: SsmStandIn;
  client: SSMClient;
  /** The stand-in's clock (ms); `null` follows the real clock. */
  clock: { t: number | null };
  close(): Promise<void>;
}

export function ssmClient(endpoint: string): SSMClient {
  return new SSMClient(sdkConfig(endpoint));
}

export async function startSsm(): Promise<SsmHarness> {
  const clock: { t: number | null } = { t: null };
  const standIn = new SsmStandIn({
    now: () => clock.t ?? Date.now(),
    region: 'us-east-1',
    accountId: '123456789012',
  });
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (!standIn.handles(req)) {
        res.writeHead(404).end();
        return;
      }
      void standIn.handle(req, Buffer.concat(chunks), res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const client = ssmClient(url);
  return {
    url,
    standIn,
    client,
    clock,
    async close() {
      client.destroy();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
