/**
 * What the repository promises about itself. A green CI run means every test ran: under `CI=true` a
 * missing Chromium or Prometheus fails the suites that need it (the helper throws while the test file
 * loads); elsewhere they are skipped with the reason. `npm test` never writes a golden. Fixtures, docs and
 * code name the canary's address one way.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { skipOrFailUnderCi, underCi } from '../helpers/ci.js';
import { committedDurations, guessMs } from '../setup/sequencer.js';

const ROOT = join(import.meta.dirname, '../..');

/** Imports a test helper in a fresh Node with `env`, then runs `call` on it; returns the exit and stderr. */
function loadHelper(
  helper: string,
  call: string,
  env: Record<string, string>,
): { code: number | null; err: string } {
  const script = `const m = await import(${JSON.stringify(join(ROOT, 'test/helpers', helper))}); ${call}`;
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { PATH: '/usr/bin:/bin', HOME: process.env['HOME'] ?? '/tmp', ...env },
  });
  return { code: r.status, err: r.stderr };
}

describe('missing integration dependencies', () => {
  it('counts CI=true and CI=1 as CI, and an unset, empty, false or 0 CI as not', () => {
    expect(underCi({ CI: 'true' })).toBe(true);
    expect(underCi({ CI: '1' })).toBe(true);
    for (const off of [undefined, '', 'false', 'FALSE', '0']) expect(underCi({ CI: off })).toBe(false);
  });

  it('skips with the reason locally and throws it under CI', () => {
    expect(skipOrFailUnderCi('x', 'it is missing', {})).toBe('it is missing');
    expect(() => skipOrFailUnderCi('the x tests', 'it is missing', { CI: 'true' })).toThrow(
      'the x tests must run under CI (CI=true), but it is missing',
    );
  });

  it('fails the Chromium suites under CI=true when the browser is missing, and skips them otherwise', () => {
    const call = 'console.log(m.chromiumSkipReason() ?? "runs")';
    const ci = loadHelper('chromium.ts', call, { CI: 'true', CHROMIUM_PATH: '/nonexistent/chromium' });
    expect(ci.code).not.toBe(0);
    expect(ci.err).toContain(
      'the Chromium browser tests must run under CI (CI=true), but Chromium is not at',
    );
    const local = loadHelper('chromium.ts', call, { CHROMIUM_PATH: '/nonexistent/chromium' });
    expect(local.code).toBe(0);
  });

  it('fails the Prometheus suites under CI=true when the binary is missing, and skips them otherwise', () => {
    const env = { PATH: '/nonexistent', PROMETHEUS_BIN: '/nonexistent/prometheus' };
    const ci = loadHelper('prometheus.ts', 'console.log(m.prometheusSkipReason)', { ...env, CI: 'true' });
    expect(ci.code).not.toBe(0);
    expect(ci.err).toContain(
      "the Prometheus integration tests must run under CI (CI=true), but the 'prometheus'",
    );
    const local = loadHelper('prometheus.ts', 'console.log(m.prometheusSkipReason)', env);
    expect(local.code).toBe(0);
  });

  it('fails the Alertmanager suites under CI=true when the binary is missing, and skips them otherwise', () => {
    const env = { PATH: '/nonexistent', ALERTMANAGER_BIN: '/nonexistent/alertmanager' };
    const call = 'console.log(m.alertmanagerSkipReason)';
    const ci = loadHelper('alertmanager.ts', call, { ...env, CI: 'true' });
    expect(ci.code).not.toBe(0);
    expect(ci.err).toContain(
      "the Alertmanager integration tests must run under CI (CI=true), but the 'prometheus-alertmanager'",
    );
    const local = loadHelper('alertmanager.ts', call, env);
    expect(local.code).toBe(0);
  });
});

describe('goldens during npm test', () => {
  it('fails on a missing golden without writing it, and writes it only under UPDATE_GOLDEN=1', async () => {
    const { mkdtempSync, existsSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { expectGolden } = await import('../helpers/golden.js');
    const dir = mkdtempSync(join(tmpdir(), 'chaos-gate-golden-'));
    try {
      const file = join(dir, 'missing.md');
      expect(() => expectGolden(file, 'text', {})).toThrow(
        /golden .*missing\.md is missing: write it with UPDATE_GOLDEN=1/,
      );
      expect(existsSync(file)).toBe(false);
      expectGolden(file, 'text', { UPDATE_GOLDEN: '1' });
      expect(existsSync(file)).toBe(true);
      expect(() => expectGolden(file, 'other text', {})).toThrow();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('one name for the canary address', () => {
  it('is CANARY_URL everywhere: no fixture, doc, source or bench names SANDBOX_CANARY_URL', async () => {
    const { readdirSync, readFileSync, statSync } = await import('node:fs');
    const hits: string[] = [];
    const walk = (dir: string): void => {
      for (const name of readdirSync(join(ROOT, dir))) {
        const rel = join(dir, name);
        if (statSync(join(ROOT, rel)).isDirectory()) walk(rel);
        else if (
          /\.(ya?ml|json|md|ts)$/.test(name) &&
          readFileSync(join(ROOT, rel), 'utf8').includes('SANDBOX_CANARY_URL')
        )
          hits.push(rel);
      }
    };
    for (const dir of ['fixtures/plans', 'fixtures/analysis', 'docs', 'src', 'bench']) walk(dir);
    if (readFileSync(join(ROOT, 'README.md'), 'utf8').includes('SANDBOX_CANARY_URL')) hits.push('README.md');
    expect(hits).toEqual([]);
  });
});

describe('the committed test durations (test/setup/durations.json)', () => {
  it('name only test files that exist, each with a duration in milliseconds', () => {
    const durations = committedDurations(ROOT);
    expect(Object.keys(durations).length).toBeGreaterThan(100);
    for (const [file, ms] of Object.entries(durations)) {
      expect(existsSync(join(ROOT, file)), `${file} is gone: run npm run test:durations`).toBe(true);
      expect(file).toMatch(/^test\/.*\.test\.ts$/);
      expect(Number.isInteger(ms) && ms >= 0, `${file}: ${ms}`).toBe(true);
    }
  });

  it('rank a file they do not know by what it starts: a sandbox run to its end, then end to end, then the rest', () => {
    expect(guessMs('test/lifecycle/new.test.ts')).toBeGreaterThan(guessMs('test/e2e/new.test.ts'));
    expect(guessMs('test/e2e/new.test.ts')).toBeGreaterThan(guessMs('test/plan/new.test.ts'));
    expect(guessMs('test/plan/new.test.ts')).toBe(0);
  });
});
