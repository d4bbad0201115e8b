/**
 * The verdict attestation: the in-toto Statement the action builds, checked against the Statement v1
 * and test-result predicate shapes of the in-toto spec (fixtures/schemas/in-toto/, ajv 2020), and the
 * signing call — the action hands `@actions/attest`'s `attest()` exactly that Statement's subject and
 * predicate. There is no OIDC or Sigstore here: the signer is a stand-in of that outside service that
 * records what it got, answers like it, fails or never answers.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsImport from 'ajv-formats';
import type { Journal } from '../../src/journal/types.js';
import { parseInputs } from '../../src/action/inputs.js';
import { runFromInputs, type ActionCore, type ActionDeps } from '../../src/action/run.js';
import type { AttestRequest, Attester } from '../../src/action/attest.js';
import { verdictStatement } from '../../src/report/attestation.js';

const addFormats = ((addFormatsImport as unknown as { default?: unknown }).default ??
  addFormatsImport) as unknown as (ajv: Ajv2020) => void;

const FIX = new URL('../../fixtures/', import.meta.url);
const journal = (name: string): Journal =>
  JSON.parse(readFileSync(new URL(`github/journals/${name}.json`, FIX), 'utf8')) as Journal;
const schema = (name: string): Record<string, unknown> =>
  JSON.parse(readFileSync(new URL(`schemas/in-toto/${name}`, FIX), 'utf8')) as Record<string, unknown>;

const ajv = new Ajv2020({ allErrors: true, strict: false });
addFormats(ajv);
ajv.addSchema(schema('statement-v1.schema.json'));
const validTestResult = ajv.compile(schema('test-result-v0.1.schema.json'));

const DIGEST = 'ab'.repeat(32);
const SHA = 'e'.repeat(40);
const OIDC = 'http://127.0.0.1:9/oidc';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'chaos-gate-attest-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Core extends ActionCore {
  outputs: Record<string, string>;
  warnings: string[];
  notices: string[];
}

function fakeCore(): Core {
  const c: Core = {
    outputs: {},
    warnings: [],
    notices: [],
    info: () => undefined,
    warning: (m) => void c.warnings.push(m),
    notice: (m) => void c.notices.push(m),
    setOutput: (n, v) => void (c.outputs[n] = v),
    saveState: () => undefined,
    writeSummary: async () => undefined,
  };
  return c;
}

let seq = 0;
/** One action run in a fresh workspace with a plan and a policy on disk; the engine answers `name`. */
async function run(
  name: string,
  o: { with?: Record<string, string>; attest?: Attester; oidc?: boolean; reason?: string } = {},
): Promise<{ code: number; core: Core; ws: string }> {
  const ws = join(dir, `ws-${++seq}`);
  mkdirSync(join(ws, 'chaos'), { recursive: true });
  writeFileSync(join(ws, 'chaos/redis-partition.yaml'), `id: redis-partition # ${seq}\n`);
  writeFileSync(join(ws, 'policy.yaml'), 'maxDuration: 10m\n');
  const env: Record<string, string> = {
    GITHUB_REPOSITORY: 'acme/shop',
    GITHUB_EVENT_NAME: 'push',
    GITHUB_SHA: SHA,
    GITHUB_SERVER_URL: 'https://github.com',
    GITHUB_RUN_ID: '99',
    GITHUB_WORKSPACE: ws,
    ...(o.oidc === false ? {} : { ACTIONS_ID_TOKEN_REQUEST_URL: OIDC }),
  };
  const inputs = parseInputs(
    (n) =>
      ({
        plan: 'chaos/redis-partition.yaml',
        policy: 'policy.yaml',
        'check-run': 'false',
        'pr-comment': 'false',
        ...o.with,
      })[n] ?? '',
  );
  // No github-token: no reporter; the token the signer needs is given in `with` where it matters.
  const core = fakeCore();
  const deps: ActionDeps = {
    core,
    env,
    runGate: async (req) => {
      const j = journal(name);
      if (o.reason) j.reason = o.reason;
      mkdirSync(dirname(req.journalPath), { recursive: true });
      writeFileSync(req.journalPath, JSON.stringify(j));
      return j;
    },
    reviewPlan: async () => {
      throw new Error('not used');
    },
    validatePlan: async () => ({ text: 'ok', exitCode: 0 }),
    uploadArtifact: async () => undefined,
    stepLog: false,
    attest: o.attest,
    attestDeadlineMs: 200,
  };
  const code = await runFromInputs(inputs, deps);
  return { code, core, ws };
}

const SUBJECT = {
  'attest-subject-name': 'ghcr.io/acme/checkout',
  'attest-subject-digest': `sha256:${DIGEST}`,
  'github-token': 'ghs-attest-token',
};

function sha256(path: string): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}

describe('the verdict statement', () => {
  it('is an in-toto Statement v1 with the test-result predicate: PASSED for held, its SLIs and expectation as tests', () => {
    const s = verdictStatement(journal('held'), {
      subject: [{ name: 'app', digest: { sha256: DIGEST } }],
      configuration: [{ name: 'chaos/p.yaml', digest: { sha256: DIGEST } }],
      url: 'https://github.com/acme/shop/actions/runs/1',
    });
    expect(validTestResult(s), JSON.stringify(validTestResult.errors)).toBe(true);
    expect(s.predicate).toMatchObject({
      result: 'PASSED',
      passedTests: [
        'sli/success_ratio',
        'sli/p95_latency_s',
        'sli/error_ratio',
        'expectation/breaker_opened',
      ],
      warnedTests: [],
      failedTests: [],
    });
  });

  it('is FAILED for every other verdict, and the schemas refuse what the spec forbids', () => {
    for (const name of ['aborted', 'deviated', 'inconclusive', 'not-run', 'refused', 'failed']) {
      const s = verdictStatement(journal(name), {
        subject: [{ name: 'app', digest: { sha256: DIGEST } }],
        configuration: [{ name: 'j', digest: { sha256: DIGEST } }],
      });
      expect(validTestResult(s), name).toBe(true);
      expect(s.predicate.result, name).toBe('FAILED');
    }
    const good = verdictStatement(journal('held'), {
      subject: [{ name: 'app', digest: { sha256: DIGEST } }],
      configuration: [],
    });
    const broken = [
      { ...good, _type: 'https://in-toto.io/Statement/v0.1' },
      { ...good, subject: [{ name: 'app' }] },
      { ...good, subject: [{ name: 'app', digest: { sha256: 'ABC' } }] },
      { ...good, predicate: { ...good.predicate, result: 'HELD' } },
      { ...good, predicate: { passedTests: [] } },
      { ...good, predicateType: 'https://slsa.dev/provenance/v1' },
    ];
    for (const b of broken) expect(validTestResult(b), JSON.stringify(b).slice(0, 80)).toBe(false);
  });
});

describe('the action’s attestation', () => {
  it('writes the Statement and hands attest() its subject and predicate, with the token', async () => {
    const calls: AttestRequest[] = [];
    const { code, core, ws } = await run('aborted', {
      with: SUBJECT,
      // A reason quoting the token (a server echoing a header): masked in what is written and signed.
      reason: 'error_ratio 0.024 above 0.01; upstream said: bad token ghs-attest-token',
      attest: async (req) => {
        calls.push(req);
        return { attestationID: '123456', tlogID: '777' };
      },
    });
    expect(code).toBe(1);
    const written = JSON.parse(readFileSync(core.outputs.attestation as string, 'utf8'));
    expect(validTestResult(written), JSON.stringify(validTestResult.errors)).toBe(true);
    expect(written.subject).toEqual([{ name: 'ghcr.io/acme/checkout', digest: { sha256: DIGEST } }]);
    expect(written.predicate.result).toBe('FAILED');
    expect(written.predicate.url).toBe('https://github.com/acme/shop/actions/runs/99');
    expect(
      written.predicate.configuration.map((d: { name: string; digest: { sha256: string } }) => [
        d.name,
        d.digest.sha256,
      ]),
    ).toEqual([
      ['chaos/redis-partition.yaml', sha256(join(ws, 'chaos/redis-partition.yaml'))],
      ['policy.yaml', sha256(join(ws, 'policy.yaml'))],
      ['chaos-gate/journal.json', sha256(join(ws, 'chaos-gate/journal.json'))],
    ]);
    expect(calls).toEqual([
      {
        subjects: written.subject,
        predicateType: 'https://in-toto.io/attestation/test-result/v0.1',
        predicate: written.predicate,
        token: 'ghs-attest-token',
      },
    ]);
    expect(JSON.stringify(calls[0]?.predicate)).not.toContain('ghs-attest-token');
    expect(JSON.stringify(written)).not.toContain('bad token ghs-attest-token');
    expect(JSON.stringify(written)).toContain('bad token ***');
    expect(core.outputs['attestation-id']).toBe('123456');
    expect(core.outputs['attestation-url']).toBe('https://github.com/acme/shop/attestations/123456');
    expect(core.warnings.filter((w) => w.includes('attestation'))).toEqual([]);
  });

  it('a signer that fails or never answers changes neither the verdict nor the exit code', async () => {
    const failing = await run('held', {
      with: SUBJECT,
      attest: async () => {
        throw new Error('Failed to get ID token: 503 from ghs-attest-token service');
      },
    });
    expect(failing.code).toBe(0);
    expect(failing.core.outputs.verdict).toBe('held');
    expect(failing.core.warnings.join('\n')).toMatch(
      /could not be signed: Failed to get ID token.*the verdict stands/,
    );
    expect(failing.core.warnings.join('\n')).not.toContain('ghs-attest-token');
    expect(failing.core.outputs['attestation-id']).toBeUndefined();
    expect(
      JSON.parse(readFileSync(failing.core.outputs.attestation as string, 'utf8')).predicate.result,
    ).toBe('PASSED');
    const hanging = await run('aborted', { with: SUBJECT, attest: () => new Promise(() => undefined) });
    expect(hanging.code).toBe(1);
    expect(hanging.core.outputs.verdict).toBe('aborted');
    expect(hanging.core.warnings.join('\n')).toMatch(
      /could not be signed: .*signing the verdict attestation/,
    );
  });

  it('without OIDC or a subject it keeps the unsigned Statement and does not call the signer', async () => {
    const calls: AttestRequest[] = [];
    const attest: Attester = async (req) => {
      calls.push(req);
      return {};
    };
    const noOidc = await run('held', { with: SUBJECT, attest, oidc: false });
    expect(noOidc.code).toBe(0);
    expect(noOidc.core.warnings.join()).toContain('id-token: write');
    const noSubject = await run('deviated', { attest });
    expect(noSubject.code).toBe(1);
    const unsigned = JSON.parse(readFileSync(noSubject.core.outputs.attestation as string, 'utf8'));
    expect(validTestResult(unsigned)).toBe(true);
    expect(unsigned.subject).toEqual([
      { name: 'git+https://github.com/acme/shop', digest: { gitCommit: SHA } },
    ]);
    expect(calls).toEqual([]);
  });
});
