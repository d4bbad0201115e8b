/**
 * Priming the scrape source before the steady state (src/engine/measure.ts `prime`): a scrape SLI is the
 * difference of two scrapes, so a failed first scrape would leave the first steady-state reading without
 * a window — no data, and the run `not-run` for the tool's own warm-up. A failed priming is tried again,
 * a bounded number of times; a successful one is not repeated; an aborted run stops trying.
 */
import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../src/clock/clock.js';
import { Measurer, PRIME_ATTEMPTS } from '../../src/engine/measure.js';
import type { MetricSource, Query, Reading } from '../../src/metrics/source.js';
import type { PlanInput } from '../../src/plan/schema.js';
import { planWith } from '../sim/helpers.js';

const URL = 'http://127.0.0.1:9/metrics';

/** The checkout plan with one scrape SLI (a ratio) and a scrape request count. */
const plan = planWith((p: PlanInput) => {
  const h = p.hypothesis as Record<string, unknown>;
  h.requests = { scrape: { url: URL, increase: 'http_requests_total' } };
  h.slis = [
    {
      name: 'error_ratio',
      scrape: {
        url: URL,
        ratio: { numerator: 'http_requests_total{status="503"}', denominator: 'http_requests_total' },
      },
      max: 0.01,
    },
  ];
  h.expect = [];
  (p.abort as Record<string, unknown>).rules = [{ sli: 'error_ratio', above: 0.5, for: '3s' }];
});

/** A scrape source whose n-th read answers `outcomes[n]`: an error reading, a first-scrape no-data, or a hang. */
function source(outcomes: ('error' | 'primed' | 'hang')[]) {
  const reads: number[] = [];
  const s: MetricSource = {
    kind: 'scrape',
    read: (queries: readonly Query[], at: number, _w: number, signal?: AbortSignal): Promise<Reading[]> => {
      reads.push(at);
      const outcome = outcomes[reads.length - 1] ?? 'primed';
      if (outcome === 'hang')
        return new Promise((_, reject) => signal?.addEventListener('abort', () => reject(signal.reason)));
      return Promise.resolve(
        queries.map((q) =>
          outcome === 'error'
            ? {
                name: q.name,
                value: null,
                status: 'error' as const,
                query: q.name,
                error: 'connect ECONNREFUSED',
              }
            : { name: q.name, value: null, status: 'no-data' as const, query: q.name, error: 'first scrape' },
        ),
      );
    },
  };
  return { s, reads };
}

function measurer(s: MetricSource, clock: VirtualClock, signal?: AbortSignal): Measurer {
  return new Measurer({ plan, clock, sources: { scrape: s }, signal, gap: () => undefined });
}

describe('priming the scrape source', () => {
  it('scrapes once when the first scrape opens every window', async () => {
    const clock = new VirtualClock();
    const { s, reads } = source(['primed']);
    await measurer(s, clock).prime(1000);
    expect(reads).toHaveLength(1);
  });

  it('tries again after a failed scrape, and stops at the first that succeeds', async () => {
    const clock = new VirtualClock();
    const { s, reads } = source(['error', 'primed', 'primed']);
    await measurer(s, clock).prime(1000);
    expect(reads).toHaveLength(2);
  });

  it('tries again after a scrape that is not back within the interval', async () => {
    const clock = new VirtualClock();
    const { s, reads } = source(['hang', 'primed']);
    const done = measurer(s, clock).prime(1000);
    await clock.advance(1000);
    await done;
    expect(reads.map((at) => at - reads[0]!)).toEqual([0, 1000]);
  });

  it(`gives up after ${PRIME_ATTEMPTS} failed scrapes, leaving the steady state to judge what it reads`, async () => {
    const clock = new VirtualClock();
    const { s, reads } = source(Array(10).fill('error'));
    await measurer(s, clock).prime(1000);
    expect(reads).toHaveLength(PRIME_ATTEMPTS);
    expect(PRIME_ATTEMPTS).toBeGreaterThan(1);
  });

  it('stops trying once the run is aborted', async () => {
    const clock = new VirtualClock();
    const ctl = new AbortController();
    ctl.abort(new Error('cancelled'));
    const { s, reads } = source(['error', 'error', 'error']);
    await measurer(s, clock, ctl.signal).prime(1000);
    expect(reads).toHaveLength(0);
  });
});
