/**
 * The run's cost (src/engine/cost.ts): the engine records in the journal the AWS calls its meter counted,
 * the FIS action-minutes of its experiment and the estimate priced from them; the summary shows that
 * figure with the prices it used and recounts nothing.
 */
import { describe, expect, it } from 'vitest';
import { loadScenario } from '../../src/sim/scenario.js';
import { simulate } from '../sim/helpers.js';
import { actionMinutes, estimateCost, PRICES } from '../../src/engine/cost.js';
import { renderSummary } from '../../src/report/markdown.js';
import type { ApiMeter } from '../../src/injector/ports.js';

const held = () => loadScenario('fixtures/scenarios/held.yaml');

describe('the cost of a run', () => {
  it('is in the journal: the calls the meter counted, the action-minutes FIS reported, and their price', async () => {
    const meter: ApiMeter = {
      calls: () => ({
        'cloudwatch:GetMetricData': 40,
        'cloudwatch:PutMetricData': 30,
        'fis:GetExperiment': 60,
      }),
      metricsRequested: () => 80,
    };
    const scenario = held();
    // 100 s of fault: FIS bills it as 2 action-minutes (rounded to the nearest minute).
    scenario.injector.actionDuration = 100_000;
    const { result } = await simulate(scenario, { deps: () => ({ meter }) });
    const cost = result.journal.cost!;
    expect(cost.calls['fis:GetExperiment']).toBe(60);
    expect(cost.fisActionMinutes).toBe(2);
    const fis = cost.lines.find((l) => l.item === 'FIS actions')!;
    expect(fis.usd).toBeCloseTo(cost.fisActionMinutes * PRICES.fisActionMinute, 6);
    expect(cost.lines.find((l) => l.item === 'CloudWatch GetMetricData')?.quantity).toBe(80);
    // PutMetricData is a request; GetMetricData is billed per metric, never as a request too.
    expect(cost.lines.find((l) => l.item === 'CloudWatch other API requests')?.quantity).toBe(30);
    expect(cost.totalUsd).toBeCloseTo(
      cost.lines.reduce((s, l) => s + l.usd, 0),
      6,
    );
    const md = renderSummary(result.journal);
    expect(md).toContain('### Estimated AWS cost');
    expect(md).toContain(`$${cost.totalUsd.toFixed(2)}`);
    expect(md).toContain(PRICES.asOf);
  });

  it('bills each action from its start to its end rounded to the nearest minute', () => {
    expect(
      actionMinutes(
        {
          a: { status: 'completed', startTime: 0, endTime: 89_000 },
          b: { status: 'completed', startTime: 0, endTime: 91_000 },
          c: { status: 'pending' },
        },
        1e9,
      ),
    ).toBe(3);
  });

  it('prices a PT1M gated run: one action-minute is $0.10 of it', () => {
    const c = estimateCost({ calls: {}, metricsRequested: 0, fisActionMinutes: 1, leaseMs: 3_600_000 });
    expect(c.lines.map((l) => l.item)).toEqual([
      'FIS actions',
      'CloudWatch high-resolution lease alarm',
      'CloudWatch lease heartbeat metric',
    ]);
    expect(c.totalUsd).toBeCloseTo(0.1 + 0.3 / 730 + 0.3 / 730, 6);
  });
});
