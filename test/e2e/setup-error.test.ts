/**
 * Issue 12.6: a broken AWS set-up ends a run `failed`, not `not-run`. `chaos-gate run` is started as a
 * user starts it, against the sandbox, (1) with no credentials anywhere the SDK looks and (2) with an
 * endpoint nobody listens on: both are set-ups that will fail every run until fixed, so the verdict is
 * `failed` with the cause in the reason. (3) A throttled CloudWatch is transient and stays `not-run`.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readJournal, startE2E, type CliResult, type E2E, type RunJson } from './harness.js';
import type { Journal } from '../../src/journal/types.js';

const PLAN = 'fixtures/plans/e2e-held.yaml';

let e2e: E2E;
let runs = 0;

interface Outcome extends CliResult {
  json: RunJson;
  journal: Journal;
}

/** `chaos-gate run <PLAN> --json` with the harness environment changed by `env` (undefined removes). */
async function run(env: NodeJS.ProcessEnv): Promise<Outcome> {
  const journalPath = path.join(e2e.dir, `setup-${++runs}.journal.json`);
  const result = await e2e.cli(['run', PLAN, '--journal', journalPath, '--json'], env).done;
  const last = result.stdout.trim().split('\n').at(-1) ?? '';
  let json: RunJson;
  try {
    json = JSON.parse(last) as RunJson;
  } catch {
    throw new Error(`no JSON verdict (exit ${result.code}):\n${result.stdout}\n${result.stderr}`);
  }
  return { ...result, json, journal: readJournal(journalPath) };
}

beforeAll(async () => {
  e2e = await startE2E();
}, 60_000);

afterAll(async () => {
  await e2e?.close();
}, 30_000);

describe('a broken AWS set-up', () => {
  it('no credentials: failed, naming the credential problem, and nothing reaches AWS', async () => {
    const config = path.join(e2e.dir, 'empty-aws-config');
    const credentials = path.join(e2e.dir, 'empty-aws-credentials');
    writeFileSync(config, '');
    writeFileSync(credentials, '');
    const mark = await e2e.mark();
    const r = await run({
      AWS_ACCESS_KEY_ID: undefined,
      AWS_SECRET_ACCESS_KEY: undefined,
      AWS_SESSION_TOKEN: undefined,
      AWS_PROFILE: undefined,
      AWS_CONFIG_FILE: config,
      AWS_SHARED_CREDENTIALS_FILE: credentials,
      AWS_EC2_METADATA_DISABLED: 'true',
    });
    expect(r.json.verdict, r.stderr).toBe('failed');
    expect(r.code).toBe(1);
    expect(r.json.reason).toContain('cannot read the kill switch');
    expect(r.json.reason).toContain(
      'CredentialsProviderError: Could not load credentials from any providers',
    );
    expect(r.json.reason).toContain("check the runner's AWS credentials");
    expect(r.journal.verdict).toBe('failed');
    // Not "try later": the journal holds a fatal error and no not-run decision.
    expect(r.journal.events.some((e) => e.type === 'not-run')).toBe(false);
    expect(r.journal.events.find((e) => e.type === 'error')?.data).toMatchObject({ fatal: true });
    expect(r.json.experimentId).toBeNull();
    expect(await e2e.requests({ since: mark })).toEqual([]);
  }, 90_000);

  it('an endpoint nobody listens on: failed, naming the refused connection', async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const closed = `http://127.0.0.1:${(probe.address() as AddressInfo).port}`;
    await new Promise<void>((resolve) => probe.close(() => resolve()));

    const r = await run({ AWS_ENDPOINT_URL: closed });
    expect(r.json.verdict, r.stderr).toBe('failed');
    expect(r.code).toBe(1);
    expect(r.json.reason).toContain('cannot read the kill switch');
    expect(r.json.reason).toMatch(/the AWS set-up is broken \(connect ECONNREFUSED 127\.0\.0\.1:\d+\)/);
  }, 90_000);
});

describe('a transient AWS failure', () => {
  it('throttled CloudWatch: not-run, the run may be tried again later', async () => {
    await e2e.sandbox.admin.send('POST', '/faults', {
      service: 'cloudwatch',
      operation: 'DescribeAlarms',
      kind: 'throttle',
    });
    try {
      const mark = await e2e.mark();
      const r = await run({});
      expect(r.json.verdict, r.stderr).toBe('not-run');
      expect(r.code).toBe(1);
      expect(r.json.reason).toBe('cannot read the kill switch (Rate exceeded); refusing to start');
      // It was the throttle: every DescribeAlarms answered 400 Throttling, and the SDK retried it.
      const calls = await e2e.requests({ service: 'cloudwatch', operation: 'DescribeAlarms', since: mark });
      expect(calls.length).toBeGreaterThan(1);
      expect(calls.every((c) => c.status === 400)).toBe(true);
    } finally {
      await e2e.sandbox.admin.send('DELETE', '/faults');
    }
  }, 90_000);
});
