/**
 * The sandbox through boto3 — botocore's own serializers, parsers and SigV4 signer, written
 * independently of the JS SDK — with signature verification on: GetMetricStatistics works, a Metrics
 * Insights SELECT answers, a PT15S partition is refused when its template is created (so it never runs)
 * while PT1M starts, a target account configuration is created, and a wrong secret is refused by FIS,
 * CloudWatch and the Tagging API. Skipped, with the reason printed, where no Python has boto3.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandboxProcess, type RunningSandbox } from '../helpers/sandbox.js';

const SCRIPT = path.join(path.dirname(fileURLToPath(import.meta.url)), 'boto3_contract.py');
const RIGHT = { accessKeyId: 'AKIASANDBOXBOTO3TEST', secretAccessKey: 'boto3-right-secret' };

/** The first Python on this machine that imports boto3 (pyenv's python3, else Debian's python3-boto3). */
function pythonWithBoto3(): string | undefined {
  for (const python of ['python3', '/usr/bin/python3']) {
    const r = spawnSync(python, ['-c', 'import boto3'], { stdio: 'ignore' });
    if (r.status === 0) return python;
  }
  return undefined;
}

const python = pythonWithBoto3();
if (!python)
  console.warn(
    '[boto3] skipped: no python3 with boto3 (pip install boto3, or apt-get install python3-boto3)',
  );

interface ClientErrorView {
  code: string;
  status: number;
  message: string;
}
interface Observations {
  getMetricStatistics: { Sum: number; Maximum: number; SampleCount: number; Unit: string }[];
  insights: number[][];
  pt15s: ClientErrorView | null;
  pt1m: string;
  startedState: string;
  targetAccounts: string[];
  wrongFis: ClientErrorView | null;
  wrongCloudWatch: ClientErrorView | null;
  wrongTagging: ClientErrorView | null;
  rightTagging: boolean;
}

describe.skipIf(!python)('the sandbox through boto3, signatures verified', () => {
  let sandbox: RunningSandbox;
  let seen: Observations;

  beforeAll(async () => {
    sandbox = await startSandboxProcess({ config: { credentials: RIGHT }, args: ['--no-load'] });
    const r = spawnSync(python!, [SCRIPT], {
      env: {
        ...process.env,
        SANDBOX_AWS: sandbox.urls.aws,
        RIGHT_KEY: RIGHT.accessKeyId,
        RIGHT_SECRET: RIGHT.secretAccessKey,
        AWS_CONFIG_FILE: '/dev/null',
        AWS_SHARED_CREDENTIALS_FILE: '/dev/null',
      },
      encoding: 'utf8',
      timeout: 60_000,
    });
    if (r.status !== 0) throw new Error(`boto3 script failed (${r.status}):\n${r.stderr}`);
    seen = JSON.parse(r.stdout) as Observations;
  }, 90_000);

  afterAll(async () => {
    await sandbox?.stop();
  });

  it('GetMetricStatistics answers the minute of 1-second data it was given', () => {
    expect(seen.getMetricStatistics).toEqual([
      { Sum: 1830, Maximum: 60, SampleCount: 60, Unit: 'Milliseconds' },
    ]);
  });

  it('a Metrics Insights SELECT answers through GetMetricData', () => {
    expect(seen.insights).toEqual([[60]]);
  });

  it('a PT15S partition is a ValidationException at CreateExperimentTemplate, so it never runs; PT1M starts', () => {
    expect(seen.pt15s).toMatchObject({ code: 'ValidationException', status: 400 });
    expect(seen.pt15s?.message).toMatch(
      /PT15S of parameter duration must be an ISO 8601 duration between PT1M and PT12H/,
    );
    expect(seen.pt1m).toBe('PT1M');
    expect(['pending', 'initiating']).toContain(seen.startedState);
  });

  it('creates and lists a target account configuration', () => {
    expect(seen.targetAccounts).toEqual(['210987654321']);
  });

  it('refuses a wrong secret in every protocol, and passes the right one', () => {
    expect(seen.wrongFis).toMatchObject({ code: 'InvalidSignatureException', status: 403 });
    expect(seen.wrongCloudWatch).toMatchObject({ code: 'SignatureDoesNotMatch', status: 403 });
    expect(seen.wrongTagging).toMatchObject({ code: 'InvalidSignatureException', status: 403 });
    expect(seen.rightTagging).toBe(true);
  });
});
