import { describe, expect, it } from 'vitest';
import type { Gate } from '../../src/engine/gates.js';
import { staticRefusalGate } from '../../src/engine/static-gate.js';
import { parseJournal } from '../../src/journal/read.js';
import { downsample, MAX_CHART_POINTS, renderSummary } from '../../src/report/markdown.js';
import { loadScenario } from '../../src/sim/scenario.js';
import { planWith, simulate } from '../sim/helpers.js';
import { expectGolden } from '../helpers/golden.js';

/** `UPDATE_GOLDEN=1 npx vitest run test/report` rewrites the committed files after a deliberate change. */
function golden(name: string, actual: string): void {
  expectGolden(`fixtures/golden/${name}.md`, actual);
}

const budgetGate: Gate = {
  name: 'error-budget',
  stage: 'before-targets',
  check: async () => ({
    pass: true,
    budget: {
      objective: 0.999,
      windowMs: 30 * 86_400_000,
      allowedBadEvents: 2_073_600,
      serviceBadEvents: 412_000,
      chaosAllowance: 207_360,
      ledgerSpent: 15_200,
      debit: 310,
      remainingAfter: 191_850,
    },
  }),
};

const cases: [string, string][] = [
  ['held', 'held'],
  ['deviated', 'deviated-breach'],
  ['aborted', 'aborted-rule'],
  ['inconclusive', 'inconclusive-blind'],
  ['not-run', 'not-run-steady-breach'],
  ['failed', 'failed-stop-unverified'],
];

describe('job summary markdown (golden)', () => {
  it.each(cases)('renders a %s run', async (verdict, scenario) => {
    const { result } = await simulate(scenario, {
      deps: () => ({ region: 'eu-west-1', gates: verdict === 'held' ? [budgetGate] : [] }),
    });
    expect(result.verdict).toBe(verdict);
    golden(verdict, renderSummary(result.journal));
  });

  it('renders a refused run', async () => {
    const plan = planWith((p) => {
      p.abort.rules = [];
    });
    const { result } = await simulate(loadScenario('fixtures/scenarios/held.yaml'), {
      plan,
      deps: () => ({ gates: [staticRefusalGate()] }),
    });
    expect(result.verdict).toBe('refused');
    golden('refused', renderSummary(result.journal));
  });

  it('renders a crashed prefix with a warning and no verdict', async () => {
    const { journal } = await simulate('aborted-rule', { deps: () => ({ region: 'eu-west-1' }) });
    const prefix = parseJournal(journal.lines.slice(0, 20).join(''), 'crashed');
    const md = renderSummary(prefix);
    expect(md.startsWith('## ⚠️ unfinished — ')).toBe(true);
    expect(md).toContain('This journal has no final record');
    golden('crashed-prefix', md);
  });

  it('keeps at most 60 points per chart and keeps the worst point of each bucket', async () => {
    const plan = planWith((p) => {
      p.hypothesis.expect = [];
      p.blastRadius = { ...p.blastRadius, maxRunDuration: '20m' };
    });
    const s = loadScenario('fixtures/scenarios/held.yaml');
    s.injector.actionDuration = 600_000;
    const { result } = await simulate(s, { plan });
    const points = result.journal.measurements.map((m) => ({ m, v: m.slis.p95_latency_s! }));
    const shown = downsample(points, MAX_CHART_POINTS);
    expect(shown).toHaveLength(MAX_CHART_POINTS);
    const max = Math.max(...points.map((p) => p.v.value ?? 0));
    expect(Math.max(...shown.map((p) => p.v.value ?? 0))).toBe(max);
    // The chart resamples onto an even time grid of at most 61 points and keeps the worst reading.
    const md = renderSummary(result.journal);
    const line = md.split('\n').find((l) => l.startsWith('  line "p95_latency_s"'))!;
    const charted = (/\[(.*)\]/.exec(line)?.[1] ?? '').split(', ').map(Number);
    expect(charted.length).toBeLessThanOrEqual(MAX_CHART_POINTS + 1);
    expect(Math.max(...charted)).toBeCloseTo(max, 3);
  });
});
