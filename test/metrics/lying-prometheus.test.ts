/**
 * The Prometheus source against a lying Prometheus on loopback (test/helpers/lying-prometheus.ts): every
 * answer that is not fresh, finite and whole evidence — ±Inf, NaN, an answer stamped an hour ahead or
 * behind, a sample time that stops advancing, a partial answer with warnings, malformed data — is a
 * `no-data` reading that says why, never `ok`; a 200 MB answer is abandoned at the cap as an `error`.
 * The same server telling the truth gives `ok` readings, so each refusal is the lie's doing.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { incidentOpen } from '../../src/metrics/incidents.js';
import { MAX_ANSWER_BYTES, PrometheusSource } from '../../src/metrics/prometheus/source.js';
import { MAX_REASON_CHARS, type Query, type Reading } from '../../src/metrics/source.js';
import {
  HUGE_BYTES,
  LieState,
  PARTIAL_WARNING,
  startLyingPrometheus,
  type Lie,
  type LyingPrometheus,
} from '../helpers/lying-prometheus.js';

const S = 1000;
const q: Query = { name: 'error_ratio', spec: { prometheus: 'sum(rate(errors[$window]))' } };

let stand: LyingPrometheus;
beforeAll(async () => {
  stand = await startLyingPrometheus({ lie: () => 'truth' });
});
afterAll(async () => {
  await stand.close();
});
beforeEach(() => {
  stand.state = new LieState();
});

/** Tells `lie` from now on, with the truthful value `0.001`. */
function tell(lie: Lie): void {
  stand.script = { lie: () => lie, value: () => '0.001' };
}

/** A whole second a little before now, so a truthful answer is never ahead of the runner's clock. */
const now = (): number => Math.floor(Date.now() / S) * S - S;

async function readAt(source: PrometheusSource, at: number, windowMs = S): Promise<Reading> {
  const [r] = await source.read([q], at, Math.max(windowMs, 2 * S));
  return r as Reading;
}

const fresh = (): PrometheusSource => new PrometheusSource({ url: stand.url, timeoutMs: 5_000 });

describe('a truthful answer', () => {
  it('is an ok reading, tick after tick, stamped the time asked for', async () => {
    tell('truth');
    const source = fresh();
    const at = now();
    expect(await readAt(source, at)).toMatchObject({ status: 'ok', value: 0.001 });
    expect(await readAt(source, at + S)).toMatchObject({ status: 'ok', value: 0.001 });
  });
});

describe('non-finite values', () => {
  it.each([
    ['-Inf', '-Inf'],
    ['+Inf', '+Inf'],
    ['NaN', 'NaN'],
  ] as const)('%s is no-data that names the value, not ok', async (lie, text) => {
    tell(lie);
    expect(await readAt(fresh(), now())).toEqual({
      name: 'error_ratio',
      value: null,
      status: 'no-data',
      query: 'sum(rate(errors[2s]))',
      error: `the query's value is ${text}, not a finite number`,
    });
  });
});

describe('answers for another time', () => {
  it('is no-data "from the future" with the figures when stamped an hour after the time asked for', async () => {
    tell('future');
    const at = now();
    const r = await readAt(fresh(), at);
    expect(r).toMatchObject({ status: 'no-data', value: null });
    expect(r.error).toBe(
      `from the future: the sample time ${new Date(at + 3600 * S).toISOString()} is 3600.0 s after the time asked for (${new Date(at).toISOString()}); tolerance 1.0 s`,
    );
  });

  it('is no-data "stale" with the figures when stamped an hour before (a stuck cache)', async () => {
    tell('stale');
    const at = now();
    const r = await readAt(fresh(), at);
    expect(r).toMatchObject({ status: 'no-data', value: null });
    expect(r.error).toBe(
      `stale: the sample time ${new Date(at - 3600 * S).toISOString()} is 3600.0 s before the time asked for (${new Date(at).toISOString()}), older than the reading's 2.0 s window; tolerance 1.0 s`,
    );
  });

  it('is no-data "frozen" once the sample time stops advancing, even within the tolerance', async () => {
    tell('frozen');
    const source = fresh();
    const at = now() - 5 * S;
    // The first answer is for the time asked for: nothing to tell it from a true one yet.
    expect(await readAt(source, at)).toMatchObject({ status: 'ok', value: 0.001 });
    // Half a second later (within the 1 s tolerance) the same sample time: frozen.
    const second = await readAt(source, at + 500);
    expect(second).toMatchObject({ status: 'no-data', value: null });
    expect(second.error).toBe(
      `frozen: the answer is stamped ${new Date(at).toISOString()} again, as at the read for ${new Date(at).toISOString()}, though this read asked for 0.5 s later`,
    );
    // And every later read while it stays frozen.
    expect((await readAt(source, at + 3 * S)).error).toMatch(/^frozen: /);
    // A source of its own (another run) has nothing to compare with, and the staleness rule catches it.
    expect((await readAt(fresh(), at + 3 * S)).error).toMatch(/^stale: /);
  });
});

describe('sample times a lie can hide in', () => {
  /** A source whose answers are stamped by `stamp(time asked for)`, with the runner's clock at `clock`. */
  const stamped = (stamp: (t: number) => number, clock?: () => number) =>
    new PrometheusSource({
      url: stand.url,
      ...(clock ? { now: clock } : {}),
      fetch: (input) => {
        const t = Number(new URL(String(input)).searchParams.get('time'));
        const body = { status: 'success', data: { resultType: 'scalar', result: [stamp(t), '0.001'] } };
        return Promise.resolve(new Response(JSON.stringify(body)));
      },
    });

  it('is no-data "frozen" when the sample time goes back, even within the tolerance', async () => {
    const at = now() - 5 * S;
    let first = true;
    // The first answer is for the time asked for; the next, half a second later, is stamped 300 ms before the first.
    const source = stamped((t) => (first ? ((first = false), t) : t - 0.8));
    expect(await readAt(source, at)).toMatchObject({ status: 'ok' });
    const r = await readAt(source, at + 500);
    expect(r).toMatchObject({ status: 'no-data', value: null });
    expect(r.error).toBe(
      `frozen: the answer is stamped ${new Date(at - 300).toISOString()}, before the previous answer's ${new Date(at).toISOString()}, though this read asked for 0.5 s later`,
    );
  });

  it('is no-data "from the future" when the answer is ahead of the runner\'s clock, even if it is for the time asked for', async () => {
    const at = now();
    const r = await readAt(
      stamped(
        (t) => t,
        () => at - 5 * S,
      ),
      at,
    );
    expect(r).toMatchObject({ status: 'no-data', value: null });
    expect(r.error).toBe(
      `from the future: the sample time ${new Date(at).toISOString()} is 5.0 s ahead of the runner's clock (${new Date(at - 5 * S).toISOString()}); tolerance 1.0 s`,
    );
  });

  it('reads the truth again as soon as a lie from the future stops: the lie is not remembered', async () => {
    const at = now() - 5 * S;
    let lying = true;
    const source = stamped((t) => (lying ? t + 3600 : t));
    expect((await readAt(source, at)).error).toMatch(/^from the future: /);
    lying = false;
    expect(await readAt(source, at + S)).toMatchObject({ status: 'ok', value: 0.001 });
  });

  it('takes an answer stamped within the tolerance of the time asked for (a proxy rounding to the second)', async () => {
    const at = now() + 400;
    expect(
      await readAt(
        stamped((t) => Math.floor(t)),
        at,
      ),
    ).toMatchObject({ status: 'ok', value: 0.001 });
  });
});

describe('answers that are not whole', () => {
  it('is no-data with the warning as the reason when the answer carries warnings (a partial answer)', async () => {
    tell('warnings');
    expect(await readAt(fresh(), now())).toMatchObject({
      status: 'no-data',
      value: null,
      error: `partial answer: Prometheus warned: ${PARTIAL_WARNING}`,
    });
  });

  it('caps a long warning, keeping its start as data', async () => {
    const long = `::error file=x::${'w'.repeat(5_000)}`;
    stand.script = { lie: () => 'warnings', warning: long };
    const r = await readAt(fresh(), now());
    expect(r.status).toBe('no-data');
    expect(r.error?.startsWith('partial answer: Prometheus warned: ::error file=x::www')).toBe(true);
    expect(r.error).toMatch(/… \(\d+ more characters\)$/);
    expect(r.error?.length).toBeLessThan(MAX_REASON_CHARS + 40);
  });

  it('is no-data when a success answer has malformed data', async () => {
    tell('malformed');
    expect(await readAt(fresh(), now())).toMatchObject({
      status: 'no-data',
      value: null,
      error:
        'malformed answer: Prometheus said success, but series 1 of the vector result is not {metric, value: [time, "value"]}',
    });
  });

  it('fails an incident check closed on a partial answer: an empty set with warnings is not proven empty', async () => {
    tell('warnings');
    const status = await incidentOpen('ALERTS{alertstate="firing"}', fresh(), now());
    expect(status.open).toBe(true);
    expect(status.error).toBe(`partial answer: Prometheus warned: ${PARTIAL_WARNING}`);
  });
});

describe('a huge answer', () => {
  it(`is an error past ${MAX_ANSWER_BYTES} bytes, read no further than the cap and the socket buffers`, async () => {
    tell('huge');
    const r = await readAt(fresh(), now());
    expect(r).toMatchObject({
      status: 'error',
      value: null,
      error: `Prometheus answer larger than ${MAX_ANSWER_BYTES} bytes`,
    });
    // Not retried: the same query would get the same answer.
    expect(stand.state.requests).toBe(1);
    // The server stops writing once the source walks away; kernel buffers hold a few MB at most.
    await expect.poll(() => stand.state.bytesSent, { timeout: 2_000 }).toBeGreaterThan(MAX_ANSWER_BYTES);
    expect(stand.state.bytesSent).toBeLessThan(HUGE_BYTES / 4);
  });

  it('is an error at once when the answer declares a length past the cap', async () => {
    const declared = new PrometheusSource({
      url: stand.url,
      maxAnswerBytes: 100,
      fetch: () =>
        Promise.resolve(
          new Response(
            JSON.stringify({
              status: 'success',
              data: { resultType: 'vector', result: [] },
              pad: 'x'.repeat(200),
            }),
            {
              headers: { 'content-length': '260' },
            },
          ),
        ),
    });
    expect(await readAt(declared, now())).toMatchObject({
      status: 'error',
      error: 'Prometheus answer larger than 100 bytes',
    });
  });
});
