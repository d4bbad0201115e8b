/**
 * AMP SigV4 through the standard AWS credential chain (issue 14.6): with no explicit credentials the
 * Prometheus source signs with what the SDK's chain finds — environment variables, a profile of the
 * shared credentials file, a `credential_process` — like the FIS and CloudWatch clients. A gateway in
 * front of a real Prometheus checks each signature by signing the request again with the secret it
 * expects, and forwards only what verifies.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PrometheusSource } from '../../src/metrics/prometheus/source.js';
import { signRequest } from '../../src/metrics/prometheus/sigv4.js';
import { secrets } from '../../src/security/redact.js';
import { prometheusSkipReason, startPrometheus, type PrometheusServer } from '../helpers/prometheus.js';

const KEYS = {
  accessKeyId: 'AKIACHAINEXAMPLE01',
  secretAccessKey: 'chain/Secret+Key/EXAMPLE0123456789',
} as const;

const CHAIN_VARS = [
  'AWS_ACCESS_KEY_ID',
  'AWS_SECRET_ACCESS_KEY',
  'AWS_SESSION_TOKEN',
  'AWS_PROFILE',
  'AWS_SHARED_CREDENTIALS_FILE',
  'AWS_CONFIG_FILE',
  'AWS_EC2_METADATA_DISABLED',
] as const;

let dir: string;
let prom: PrometheusServer | undefined;
let gateway: { origin: string; verdicts: boolean[]; close(): Promise<void> };
const saved: Record<string, string | undefined> = {};

/** Verifies a SigV4 request by signing it again with the expected secret; forwards it when it matches. */
async function startVerifyingGateway(upstream: string | undefined): Promise<typeof gateway> {
  const verdicts: boolean[] = [];
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    void (async () => {
      const auth = String(req.headers.authorization ?? '');
      const signed = /SignedHeaders=([^,]+)/.exec(auth)?.[1]?.split(';') ?? [];
      const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(
        String(req.headers['x-amz-date'] ?? ''),
      );
      let valid = false;
      if (m && auth.includes(`Credential=${KEYS.accessKeyId}/`)) {
        const date = new Date(Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!));
        const headers: Record<string, string> = {};
        for (const h of signed) if (h !== 'host') headers[h] = String(req.headers[h]);
        const again = await signRequest(
          {
            method: req.method ?? 'GET',
            url: new URL(req.url ?? '/', `http://${String(req.headers.host)}`),
            headers,
          },
          { region: 'us-east-1', service: 'aps', credentials: { ...KEYS }, signingDate: date },
        );
        valid = again['authorization'] === auth;
      }
      verdicts.push(valid);
      if (valid && upstream) {
        const up = await fetch(`${upstream}${(req.url ?? '/').replace(/^\/workspaces\/[^/]+/, '')}`);
        res.writeHead(up.status, { 'content-type': 'application/json' }).end(await up.text());
        return;
      }
      if (valid) {
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end('{"status":"success","data":{"resultType":"scalar","result":[0,"1"]}}');
        return;
      }
      res
        .writeHead(403, { 'content-type': 'application/json' })
        .end('{"status":"error","errorType":"auth","error":"bad signature"}');
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    verdicts,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'chaos-gate-sigv4-chain-'));
  for (const v of CHAIN_VARS) saved[v] = process.env[v];
  if (!prometheusSkipReason) prom = await startPrometheus([]);
  gateway = await startVerifyingGateway(prom?.url);
}, 60_000);

afterEach(() => {
  for (const v of CHAIN_VARS) {
    if (saved[v] === undefined) delete process.env[v];
    else process.env[v] = saved[v];
  }
  secrets.clear();
});

afterAll(async () => {
  await gateway?.close();
  await prom?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** Clears every source of AWS credentials but the one a test sets (no metadata service on loopback). */
function isolateChain(): void {
  for (const v of CHAIN_VARS) delete process.env[v];
  process.env.AWS_EC2_METADATA_DISABLED = 'true';
  process.env.AWS_CONFIG_FILE = join(dir, 'no-config');
  process.env.AWS_SHARED_CREDENTIALS_FILE = join(dir, 'no-credentials');
}

async function readUp(): Promise<{ value: number | null; status: string; error?: string }> {
  const source = new PrometheusSource({
    url: `${gateway.origin}/workspaces/ws-1`,
    sigv4: { region: 'us-east-1' },
  });
  const [r] = await source.read([{ name: 'up', spec: { prometheus: 'vector(1)' } }], Date.now(), 5_000);
  return r as { value: number | null; status: string; error?: string };
}

describe('SigV4 for Amazon Managed Prometheus through the standard credential chain', () => {
  it('signs with credentials from the environment', async () => {
    isolateChain();
    process.env.AWS_ACCESS_KEY_ID = KEYS.accessKeyId;
    process.env.AWS_SECRET_ACCESS_KEY = KEYS.secretAccessKey;
    const before = gateway.verdicts.length;
    expect(await readUp()).toMatchObject({ status: 'ok', value: 1 });
    expect(gateway.verdicts.slice(before)).toEqual([true]);
  });

  it('signs with a named profile of the shared credentials file (no AWS_* keys set)', async () => {
    isolateChain();
    const file = join(dir, 'credentials');
    writeFileSync(
      file,
      `[default]\naws_access_key_id = AKIAWRONGDEFAULT00\naws_secret_access_key = wrong\n\n[chaos]\naws_access_key_id = ${KEYS.accessKeyId}\naws_secret_access_key = ${KEYS.secretAccessKey}\n`,
    );
    process.env.AWS_SHARED_CREDENTIALS_FILE = file;
    process.env.AWS_PROFILE = 'chaos';
    const before = gateway.verdicts.length;
    expect(await readUp()).toMatchObject({ status: 'ok', value: 1 });
    expect(gateway.verdicts.slice(before)).toEqual([true]);
    // The secret the chain found is registered with the one redactor.
    expect(secrets.redact(`key ${KEYS.secretAccessKey}`)).toBe('key ***');
  });

  it('signs with a credential_process of the shared config file (how SSO helpers plug in)', async () => {
    isolateChain();
    const script = join(dir, 'creds.mjs');
    writeFileSync(
      script,
      `console.log(JSON.stringify({ Version: 1, AccessKeyId: ${JSON.stringify(KEYS.accessKeyId)}, SecretAccessKey: ${JSON.stringify(KEYS.secretAccessKey)} }));\n`,
    );
    const config = join(dir, 'config');
    writeFileSync(config, `[profile helper]\ncredential_process = ${process.execPath} ${script}\n`);
    process.env.AWS_CONFIG_FILE = config;
    process.env.AWS_PROFILE = 'helper';
    const before = gateway.verdicts.length;
    expect(await readUp()).toMatchObject({ status: 'ok', value: 1 });
    expect(gateway.verdicts.slice(before)).toEqual([true]);
  });

  it('is an error reading, not a throw, when the chain finds nothing', async () => {
    isolateChain();
    const r = await readUp();
    expect(r.status).toBe('error');
    expect(r.error).toMatch(/credential/i);
  });
});
