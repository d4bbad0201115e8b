/**
 * One tick's measurement (src/engine/measure.ts), with a table for a source: which SLIs each phase reads,
 * which bound each phase judges them by, when a window is a gap, how too little traffic masks the SLIs
 * (and not the expectations), how a reading without a value counts, and what a late, missing or throwing
 * source becomes.
 */
import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../src/clock/clock.js';
import { gapText, Measurer, REQUESTS_QUERY } from '../../src/engine/measure.js';
import type { Phase } from '../../src/journal/types.js';
import type { MetricSource, Query, Reading } from '../../src/metrics/source.js';
import type { Plan, PlanInput } from '../../src/plan/schema.js';
import { planWith } from '../sim/helpers.js';

/** What the table source answers for a query: a value, a status without one, or nothing at all. */
type Cell = number | 'error' | 'no-data' | 'missing';

interface Call {
  names: string[];
  at: number;
  windowMs: number;
}

/** Healthy values of the checkout plan (fixtures/sim-plans/checkout.yaml). */
const HEALTHY: Record<string, Cell> = {
  success_ratio: 0.9999,
  p95_latency_s: 0.1,
  breaker_open: 1,
  [REQUESTS_QUERY]: 800,
};

function harness(options: { plan?: Plan; cells?: Record<string, Cell>; read?: MetricSource['read'] } = {}) {
  const clock = new VirtualClock();
  const calls: Call[] = [];
  const gaps: [number, number, Phase][] = [];
  const cells = { ...HEALTHY, ...options.cells };
  const source: MetricSource = {
    kind: 'prometheus',
    read:
      options.read ??
      (async (queries: readonly Query[], at: number, windowMs: number): Promise<Reading[]> => {
        calls.push({ names: queries.map((q) => q.name), at, windowMs });
        return queries.flatMap((q): Reading[] => {
          const cell = cells[q.name] ?? 'missing';
          if (cell === 'missing') return [];
          if (typeof cell === 'number') return [{ name: q.name, value: cell, status: 'ok', query: q.name }];
          return [
            { name: q.name, value: null, status: cell, query: q.name, error: `${cell} from the table` },
          ];
        });
      }),
  };
  const measurer = new Measurer({
    plan: options.plan ?? planWith(() => undefined),
    clock,
    sources: { prometheus: source },
    gap: (from, to, phase) => gaps.push([from, to, phase]),
  });
  return { clock, calls, gaps, measurer };
}

describe('which SLIs a phase reads', () => {
  const plan = planWith((p: PlanInput) => {
    for (const s of p.hypothesis.slis) (s as { during?: boolean }).during = false;
    p.hypothesis.slis.push({ name: 'queue_depth', prometheus: 'max(queue_depth)', max: 100 });
    p.abort.rules = [{ sli: 'p95_latency_s', above: 0.5, for: '3s' }];
  });
  const names = (phase: Phase) =>
    harness({ plan })
      .measurer.slisFor(phase)
      .map((s) => s.name);

  it('every SLI in the steady state', () => {
    expect(names('steady')).toEqual(['success_ratio', 'p95_latency_s', 'queue_depth']);
  });

  it('during the fault, those marked `during` and those an abort rule watches', () => {
    expect(names('fault')).toEqual(['p95_latency_s', 'queue_depth']);
  });

  it('in recovery, only those marked `during` (the default)', () => {
    expect(names('recovery')).toEqual(['queue_depth']);
  });

  it('reads the expectations during the fault only, and the request count in every phase', async () => {
    const h = harness();
    const t = h.clock.now();
    const fault = await h.measurer.measure('fault', t - 1000, t + 1000);
    const steady = await h.measurer.measure('steady', t - 1000, t + 1000);
    expect(h.calls.map((c) => c.names)).toEqual([
      ['success_ratio', 'p95_latency_s', 'breaker_open', REQUESTS_QUERY],
      ['success_ratio', 'p95_latency_s', REQUESTS_QUERY],
    ]);
    expect(fault.expect?.breaker_open?.status).toBe('ok');
    expect(steady.expect).toBeUndefined();
  });
});

describe('the bound each phase judges by', () => {
  // p95 0.15: inside the fault bound (max 0.18), outside the steady bound (max 0.11).
  const statusIn = async (phase: Phase) => {
    const h = harness({ cells: { p95_latency_s: 0.15 } });
    const t = h.clock.now();
    return (await h.measurer.measure(phase, t - 1000, t + 1000)).slis.p95_latency_s;
  };

  it('the fault bound during the fault', async () => {
    expect(await statusIn('fault')).toMatchObject({ status: 'ok', bound: '<= 0.18' });
  });

  it('the steady bound in the steady state and in recovery', async () => {
    expect(await statusIn('steady')).toMatchObject({ status: 'breach', bound: '<= 0.11' });
    expect(await statusIn('recovery')).toMatchObject({ status: 'breach', bound: '<= 0.11' });
  });
});

describe('the window of a reading', () => {
  it('reads one interval for a window up to 1.5 intervals long, with no gap', async () => {
    const h = harness();
    const t = h.clock.now();
    const m = await h.measurer.measure('fault', t - 1500, t + 1000);
    expect(m.windowMs).toBe(1000);
    expect(h.calls[0]?.windowMs).toBe(1000);
    expect(h.gaps).toEqual([]);
  });

  it('journals what lies beyond one interval as a gap once the window is longer than 1.5 intervals', async () => {
    const h = harness();
    const t = h.clock.now();
    const m = await h.measurer.measure('fault', t - 1501, t + 1000);
    expect(h.gaps).toEqual([[t - 1501, t - 1000, 'fault']]);
    expect(m.windowMs).toBe(1000);
    expect(m.at).toBe(t);
  });
});

describe('too little traffic', () => {
  const measured = async (requests: Cell, minRequests = 100) => {
    const plan = planWith((p: PlanInput) => void (p.hypothesis.minRequests = minRequests));
    const h = harness({ plan, cells: { [REQUESTS_QUERY]: requests } });
    const t = h.clock.now();
    return h.measurer.measure('fault', t - 1000, t + 1000);
  };

  it('leaves the SLIs alone at exactly minRequests', async () => {
    const m = await measured(100);
    expect(m.requests).toBe(100);
    expect(m.slis.p95_latency_s?.status).toBe('ok');
  });

  it('masks every SLI as no-data below minRequests, but not the expectations', async () => {
    const m = await measured(99);
    expect(m.slis.p95_latency_s).toMatchObject({ status: 'no-data', error: '99 requests < minRequests 100' });
    expect(m.slis.success_ratio?.status).toBe('no-data');
    expect(m.expect?.breaker_open?.status).toBe('ok');
  });

  it('masks them too when the request count is unreadable, saying why', async () => {
    const m = await measured('error');
    expect(m.requests).toBeNull();
    expect(m.slis.p95_latency_s?.error).toBe(
      'request count unavailable (error from the table), minRequests 100',
    );
  });

  it('does not mask anything when minRequests is 0, even without a request count', async () => {
    const m = await measured('error', 0);
    expect(m.requests).toBeNull();
    expect(m.slis.p95_latency_s?.status).toBe('ok');
  });
});

describe('priming the scrape source', () => {
  const URL = 'http://127.0.0.1:9/metrics';
  /** A scrape source recording the query names of each read; the n-th read answers `errors(n)` errors. */
  function scrape(errorsOf: (n: number, name: string) => boolean = () => false) {
    const reads: string[][] = [];
    const source: MetricSource = {
      kind: 'scrape',
      read: async (queries) => {
        const n = reads.push(queries.map((q) => q.name)) - 1;
        return queries.map((q) =>
          errorsOf(n, q.name)
            ? { name: q.name, value: null, status: 'error' as const, query: q.name, error: 'refused' }
            : { name: q.name, value: null, status: 'no-data' as const, query: q.name, error: 'first scrape' },
        );
      },
    };
    return { source, reads };
  }
  const prime = async (plan: Plan, source: MetricSource) => {
    const clock = new VirtualClock();
    const m = new Measurer({ plan, clock, sources: { scrape: source }, gap: () => undefined });
    await m.prime(1000);
  };

  it('primes the request count when only it is scraped, and only the scraped queries', async () => {
    const plan = planWith((p: PlanInput) => {
      p.hypothesis.requests = { scrape: { url: URL, increase: 'http_requests_total' } };
    });
    const { source, reads } = scrape();
    await prime(plan, source);
    expect(reads).toHaveLength(1);
    expect(reads[0]).toHaveLength(1);
  });

  it('does not call the scrape source when nothing is scraped', async () => {
    const { source, reads } = scrape();
    await prime(
      planWith(() => undefined),
      source,
    );
    expect(reads).toEqual([]);
  });

  it('tries again when any one of the scraped queries failed, not only when all did', async () => {
    const plan = planWith((p: PlanInput) => {
      p.hypothesis.requests = { scrape: { url: URL, increase: 'http_requests_total' } };
      (p.hypothesis.slis as unknown[]).push({ name: 'up', scrape: { url: URL, gauge: 'up' }, min: 1 });
    });
    const { source, reads } = scrape((n, name) => n === 0 && name === reads[0]?.[0]);
    await prime(plan, source);
    expect(reads.map((r) => r.length)).toEqual([2, 2]);
  });
});

describe('a plan without a request count', () => {
  it('reads no request query and masks nothing, whatever minRequests says', async () => {
    const plan = planWith((p: PlanInput) => {
      delete p.hypothesis.requests;
      p.hypothesis.minRequests = 100;
    });
    const h = harness({ plan });
    const t = h.clock.now();
    const m = await h.measurer.measure('fault', t - 1000, t + 1000);
    expect(h.calls[0]?.names).toEqual(['success_ratio', 'p95_latency_s', 'breaker_open']);
    expect(m.requests).toBeNull();
    expect(m.slis.p95_latency_s?.status).toBe('ok');
  });
});

describe('a reading without a value', () => {
  const one = async (cell: Cell) => {
    const h = harness({ cells: { p95_latency_s: cell } });
    const t = h.clock.now();
    return (await h.measurer.measure('fault', t - 1000, t + 1000)).slis.p95_latency_s;
  };

  it('keeps error and no-data apart, with the source’s words', async () => {
    expect(await one('error')).toMatchObject({ status: 'error', error: 'error from the table' });
    expect(await one('no-data')).toMatchObject({ status: 'no-data', error: 'no-data from the table' });
  });

  it('trusts the status over the value: an error with a stale value is an error, ok without a value is no data', async () => {
    const read: (status: 'ok' | 'error', value: number | null) => Promise<string | undefined> = async (
      status,
      value,
    ) => {
      const h = harness({
        read: async (queries) =>
          queries.map((q) =>
            q.name === 'p95_latency_s'
              ? { name: q.name, value, status, query: q.name }
              : { name: q.name, value: HEALTHY[q.name] as number, status: 'ok' as const, query: q.name },
          ),
      });
      const t = h.clock.now();
      return (await h.measurer.measure('fault', t - 1000, t + 1000)).slis.p95_latency_s?.status;
    };
    expect(await read('error', 0.1)).toBe('error');
    expect(await read('ok', null)).toBe('no-data');
  });

  it('counts NaN as no data, not as a breach', async () => {
    expect((await one(Number.NaN))?.status).toBe('no-data');
  });

  it('counts a query the source did not answer as an error', async () => {
    expect(await one('missing')).toMatchObject({ status: 'error', error: 'the source returned no reading' });
  });
});

describe('a source that is late, absent or broken', () => {
  it('turns a read that misses the end of its tick into error readings, and gives a read at least 200 ms', async () => {
    const clock = new VirtualClock();
    let answeredAt: number | undefined;
    // The tick ends 50 ms from now, but a read always gets 200 ms: the 150 ms answer is in time.
    const inTime = new Measurer({
      plan: planWith(() => undefined),
      clock,
      sources: {
        prometheus: {
          kind: 'prometheus',
          read: async (queries) => {
            await clock.sleep(150);
            answeredAt = clock.now();
            return queries.map((q) => ({ name: q.name, value: 800, status: 'ok' as const, query: q.name }));
          },
        },
      },
      gap: () => undefined,
    });
    const t = clock.now();
    const m = await inTime.measure('fault', t - 1000, t + 50);
    expect(answeredAt).toBe(t + 150);
    expect(m.requests).toBe(800);

    const late = new Measurer({
      plan: planWith(() => undefined),
      clock,
      sources: {
        prometheus: {
          kind: 'prometheus',
          read: async (queries) => {
            await clock.sleep(1500);
            return queries.map((q) => ({ name: q.name, value: 800, status: 'ok' as const, query: q.name }));
          },
        },
      },
      gap: () => undefined,
    });
    const t2 = clock.now();
    const m2 = await late.measure('fault', t2 - 1000, t2 + 1000);
    expect(clock.now()).toBe(t2 + 1000);
    expect(m2.slis.p95_latency_s).toMatchObject({
      status: 'no-data',
      error: expect.stringMatching(
        /^request count unavailable \(the prometheus source did not answer within 1 s/,
      ),
    });
    expect(m2.expect?.breaker_open).toMatchObject({
      status: 'error',
      error:
        'the prometheus source did not answer within 1 s (a reading must be back by the end of its tick)',
    });
  });

  it('gives error readings naming the kind when no source of that kind is configured', async () => {
    const clock = new VirtualClock();
    const measurer = new Measurer({
      plan: planWith(() => undefined),
      clock,
      sources: {},
      gap: () => undefined,
    });
    const t = clock.now();
    const m = await measurer.measure('fault', t - 1000, t + 1000);
    expect(m.expect?.breaker_open).toEqual({
      value: null,
      status: 'error',
      bound: '>= 1',
      query: '',
      error: 'no prometheus source configured',
    });
  });

  it('gives error readings, not a failure, when the run was cancelled before the read', async () => {
    const clock = new VirtualClock();
    const cancel = new AbortController();
    cancel.abort('SIGINT');
    let read = false;
    const measurer = new Measurer({
      plan: planWith(() => undefined),
      clock,
      signal: cancel.signal,
      sources: {
        prometheus: {
          kind: 'prometheus',
          read: () => {
            read = true;
            return Promise.resolve([]);
          },
        },
      },
      gap: () => undefined,
    });
    const t = clock.now();
    const m = await measurer.measure('fault', t - 1000, t + 1000);
    expect(read).toBe(false);
    expect(m.expect?.breaker_open).toMatchObject({ status: 'error', error: 'cancelled' });
  });

  it('lets a source that throws fail the measurement, naming the source', async () => {
    const h = harness({ read: () => Promise.reject(new Error('bug in the source')) });
    const t = h.clock.now();
    const error = await h.measurer.measure('fault', t - 1000, t + 1000).catch((e: unknown) => e as Error);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toBe('prometheus source: bug in the source');
    expect(((error as Error).cause as Error).message).toBe('bug in the source');
  });

  it('words a gap as the seconds it covers', () => {
    expect(gapText(1000, 2500)).toBe('1.5 s');
  });
});
