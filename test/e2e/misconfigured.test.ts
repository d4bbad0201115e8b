/**
 * A broken set-up is `failed` with exit 2, never `not-run`, and a plan refused statically sends nothing.
 * `chaos-gate run`, `measure` and `plan --resolve` are started as a user starts them, against the
 * sandbox, with a plan that reads Prometheus and no Prometheus URL anywhere: each exits 2 with a message
 * naming the field, its line, the action input and the CLI flag, and the sandbox's own request log shows
 * not one request. A plan the static stage refuses (a target tagged Environment=production) is `refused`
 * with not one request either: the kill-switch read waits for the static stage.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyPlan, startE2E, type E2E, type RunJson } from './harness.js';

let e2e: E2E;

/** The harness environment without any Prometheus setting. */
const NO_PROMETHEUS: NodeJS.ProcessEnv = {
  CHAOS_GATE_PROMETHEUS_URL: undefined,
  CHAOS_GATE_PROMETHEUS_HEADERS: undefined,
};

/** A budget over a Prometheus count, appended to a plan's text. */
const PROMETHEUS_BUDGET = `budget:
  objective: 0.999
  window: 30d
  errors: { prometheus: 'sum(increase(http_requests_total{outcome="error"}[30d]))' }
  total: { prometheus: 'sum(increase(http_requests_total[30d]))' }
  damage: { sli: error_ratio, kind: error-ratio }
`;

beforeAll(async () => {
  e2e = await startE2E();
}, 60_000);

afterAll(async () => {
  await e2e?.close();
}, 30_000);

function lastJson(stdout: string): RunJson {
  return JSON.parse(stdout.trim().split('\n').at(-1) ?? '') as RunJson;
}

describe('a set-up missing a setting', () => {
  it('run: a Prometheus SLI with no Prometheus URL is failed, exit 2, naming the setting, nothing sent', async () => {
    const mark = await e2e.mark();
    const journal = path.join(e2e.dir, 'misconfigured.journal.json');
    const r = await e2e.cli(
      ['run', 'fixtures/plans/sandbox-prometheus.yaml', '--journal', journal, '--json'],
      NO_PROMETHEUS,
    ).done;
    expect(r.code, r.stderr).toBe(2);
    const json = lastJson(r.stdout);
    expect(json).toMatchObject({ verdict: 'failed', exitCode: 2, experimentId: null });
    expect(json.reason).toMatch(
      /^fixtures\/plans\/sandbox-prometheus\.yaml:\d+:\d+: hypothesis\.slis\[0\] \(error_ratio\) reads Prometheus/,
    );
    expect(json.reason).toContain('the action input prometheus-url');
    expect(json.reason).toContain('the CLI flag --prometheus-url');
    expect(json.reason).not.toMatch(/not-run|incident|budget cannot/);
    expect(await e2e.requests({ since: mark })).toEqual([]);
  }, 60_000);

  it('run: a budget read from Prometheus with no URL is failed too, naming budget.errors', async () => {
    const plan = copyPlan(e2e.dir, 'e2e-held.yaml', (text) =>
      text.replace('fis:\n', `${PROMETHEUS_BUDGET}fis:\n`),
    );
    // Copy of e2e-held: scrape SLIs (nothing needs Prometheus but the budget).
    const mark = await e2e.mark();
    const r = await e2e.cli(['run', plan, '--json'], NO_PROMETHEUS).done;
    expect(r.code, r.stderr).toBe(2);
    const json = lastJson(r.stdout);
    expect(json.verdict).toBe('failed');
    expect(json.reason).toContain('budget.errors reads Prometheus (also budget.total)');
    expect(await e2e.requests({ since: mark })).toEqual([]);
  }, 60_000);

  it('measure and plan --resolve call the same set-up bad input (exit 2) in the same words', async () => {
    const mark = await e2e.mark();
    const m = await e2e.cli(['measure', 'fixtures/plans/sandbox-prometheus.yaml'], NO_PROMETHEUS).done;
    expect(m.code, m.stderr).toBe(2);
    expect(m.stderr).toContain('hypothesis.slis[0] (error_ratio) reads Prometheus');
    expect(m.stderr).toContain('the CLI flag --prometheus-url');
    const plan = copyPlan(e2e.dir, 'e2e-held.yaml', (text) =>
      text.replace('fis:\n', `${PROMETHEUS_BUDGET}fis:\n`),
    );
    const p = await e2e.cli(['plan', plan, '--resolve'], NO_PROMETHEUS).done;
    expect(p.code, p.stderr).toBe(2);
    expect(p.stderr).toContain('budget.errors reads Prometheus');
    expect(await e2e.requests({ since: mark })).toEqual([]);
  }, 60_000);
});

describe('a plan refused statically', () => {
  it('run: refused, exit 2, and not one request reaches the sandbox (not even the kill-switch read)', async () => {
    const mark = await e2e.mark();
    const r = await e2e.cli(
      [
        'run',
        'fixtures/plans/refused/forbidden-tag.yaml',
        '--json',
        '--journal',
        path.join(e2e.dir, 'refused.journal.json'),
        // A URL nobody listens on: the set-up is complete, and nothing is read from it.
        '--prometheus-url',
        'http://127.0.0.1:9',
      ],
      NO_PROMETHEUS,
    ).done;
    expect(r.code, r.stderr).toBe(2);
    expect(lastJson(r.stdout)).toMatchObject({ verdict: 'refused', experimentId: null });
    expect(await e2e.requests({ since: mark })).toEqual([]);
  }, 60_000);
});
