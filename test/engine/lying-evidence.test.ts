/**
 * A run whose every fault-phase reading is a lie is never `held`. The simulated world's checkout plan
 * reads its SLIs through the real Prometheus source, whose answers come from the lying Prometheus
 * (test/helpers/lying-prometheus.ts, served in memory so the virtual clock cannot run ahead of them):
 * the truth through the steady state, then one lie for every query from the injection on. Each lie
 * becomes no-data (or, for a huge answer, error) readings that say why; they count toward
 * `abort.blindAfter`, the run stops blind, and the verdict is `inconclusive`.
 *
 * The second half proves the engine's own last line: a source that breaks its contract and hands the
 * engine `ok` readings carrying ±Inf or NaN still gets no health from them.
 */
import { describe, expect, it } from 'vitest';
import type { Measurement } from '../../src/journal/types.js';
import { PrometheusSource } from '../../src/metrics/prometheus/source.js';
import { loadScenario, type Scenario } from '../../src/sim/scenario.js';
import type { SimWorld } from '../../src/sim/world.js';
import { LIES, lyingFetch, type Lie } from '../helpers/lying-prometheus.js';
import { simulate } from '../sim/helpers.js';
import { scriptedSource } from '../sim/scripted.js';

const held = (): Scenario => loadScenario('fixtures/scenarios/held.yaml');

/** What a truthful Prometheus answers for the checkout plan's queries (fixtures/sim-plans/checkout.yaml). */
function truthOf(query: string): string {
  if (query.startsWith('sum(increase(http_requests_total')) return '800';
  if (query.startsWith('sum(rate(http_requests_total')) return '0.9997';
  if (query.startsWith('histogram_quantile')) return '0.09';
  if (query.startsWith('max(redis_breaker_open')) return '1';
  return 'NaN';
}

/** The world's sources with Prometheus replaced by the real source reading from a server that tells `lie` from the injection on. */
function lyingFrom(lie: Lie) {
  return (world: SimWorld) => {
    const fetch = lyingFetch({
      lie: (_query, time) => {
        const start = world.injector.startedAt;
        return start !== undefined && time * 1000 > start ? lie : 'truth';
      },
      value: (query) => truthOf(query),
    });
    const prometheus = new PrometheusSource({
      url: 'http://lying-prometheus.test:9090',
      fetch,
      clock: world.clock,
    });
    return { sources: { ...world.sources, prometheus } };
  };
}

const faultPhase = (ms: readonly Measurement[]) => ms.filter((m) => m.phase === 'fault');

describe('a fault phase read from a lying Prometheus', () => {
  it.each(LIES)(
    'is never held when every answer is %s: blind after blindAfter readings, each saying why',
    async (lie) => {
      const { result } = await simulate(held(), { deps: lyingFrom(lie) });
      const journal = result.journal;
      // The steady state was read from the truth and passed: the lie is what the verdict is about.
      expect(
        journal.measurements
          .filter((m) => m.phase === 'steady')
          .every((m) => Object.values(m.slis).every((v) => v.status === 'ok')),
      ).toBe(true);
      expect(result.verdict).not.toBe('held');
      expect(result.verdict).toBe('inconclusive');
      const abort = journal.events.find((e) => e.type === 'abort');
      expect(abort?.data).toMatchObject({ cause: 'blind', verdict: 'inconclusive', count: 3 });
      // No lie counted as health: after the first read of a frozen answer (which is the truth for its
      // time), every fault reading is blind and carries its reason.
      const fault = faultPhase(journal.measurements).slice(lie === 'frozen' ? 1 : 0);
      expect(fault.length).toBeGreaterThanOrEqual(3);
      for (const m of fault) {
        for (const v of [...Object.values(m.slis), ...Object.values(m.expect ?? {})]) {
          expect(['no-data', 'error'], `${lie}: ${JSON.stringify(v)}`).toContain(v.status);
          expect(v.value).toBeNull();
          expect(v.error, `${lie}: ${JSON.stringify(v)}`).toMatch(/\S/);
        }
      }
      const reason = {
        '-Inf': /-Inf, not a finite number/,
        '+Inf': /\+Inf, not a finite number/,
        NaN: /NaN, not a finite number/,
        frozen: /frozen: the answer is stamped .* again/,
        future: /from the future: the sample time/,
        stale: /stale: the sample time/,
        warnings: /partial answer: Prometheus warned: partial response/,
        malformed: /malformed answer: Prometheus said success/,
        huge: /Prometheus answer larger than 1048576 bytes/,
      }[lie];
      expect(abort?.message).toMatch(reason);
    },
  );
});

describe("the engine's last line against a source that leaks a non-finite value", () => {
  it.each([
    ['-Inf', -Infinity],
    ['+Inf', Infinity],
    ['NaN', NaN],
  ] as const)('reads an ok %s as no-data: never within a bound, never held', async (text, value) => {
    const { result } = await simulate(held(), {
      deps: (w) => ({
        sources: {
          ...w.sources,
          prometheus: scriptedSource(w, 'prometheus', {
            success_ratio: () => value,
            p95_latency_s: () => value,
            breaker_open: () => value,
          }),
        },
      }),
    });
    expect(result.verdict).toBe('inconclusive');
    const fault = faultPhase(result.journal.measurements);
    expect(fault.length).toBeGreaterThanOrEqual(3);
    for (const m of fault) {
      expect(m.slis['p95_latency_s']).toMatchObject({
        status: 'no-data',
        value: null,
        error: `the source's value is ${text}, not a finite number`,
      });
    }
    expect(result.journal.events.find((e) => e.type === 'abort')?.data).toMatchObject({ cause: 'blind' });
  });
});
