/**
 * The CloudWatch source against a lying CloudWatch on loopback (test/helpers/lying-cloudwatch.ts),
 * through the real SDK client: a result that is not whole (PartialData, messages on the result or the
 * call), a datapoint stamped after the tick beyond the tolerance, only datapoints older than the window,
 * a non-finite value, values that do not pair with timestamps — each is a `no-data` reading that says
 * why; an answer past the size cap fails the call before the SDK has parsed it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CloudWatchSourceImpl, MAX_GET_METRIC_DATA_BYTES } from '../../src/metrics/cloudwatch/index.js';
import type { Query, Reading } from '../../src/metrics/source.js';
import { startLyingCloudWatch, type LyingCloudWatch, type WireResult } from '../helpers/lying-cloudwatch.js';

const S = 1000;
const T0 = Date.UTC(2026, 1, 1, 10, 0, 0);
/** The tick: a 5 s Sum with the default 5 s allowance reads [T0 + 20 s, T0 + 25 s). */
const AT = T0 + 30 * S;
const FROM = T0 + 20 * S;
const END = T0 + 25 * S;
const sec = (ms: number): number => ms / 1000;

const requests: Query = {
  name: '__requests',
  spec: {
    cloudwatch: {
      namespace: 'Shop/Checkout',
      metricName: 'RequestCount',
      dimensions: { Service: 'checkout' },
      stat: 'Sum',
      period: 5 * S,
    },
  } as Query['spec'],
};

let cw: LyingCloudWatch;
beforeAll(async () => {
  cw = await startLyingCloudWatch();
});
afterAll(async () => {
  await cw.close();
});

/** Reads the request count once with CloudWatch answering `result` (its Id filled in). */
async function readWith(result: Omit<WireResult, 'Id'>, messages?: WireResult['Messages']): Promise<Reading> {
  cw.answer = () => ({ results: [{ Id: 'q0_result', ...result }], ...(messages ? { messages } : {}) });
  const [r] = await new CloudWatchSourceImpl(cw.client).read([requests], AT, 5 * S);
  return r as Reading;
}

const window = `[${new Date(FROM).toISOString()}, ${new Date(END).toISOString()})`;

describe('a truthful CloudWatch', () => {
  it('is an ok reading of the datapoint in the window (the baseline of the lies below)', async () => {
    expect(await readWith({ StatusCode: 'Complete', Timestamps: [sec(FROM)], Values: [480] })).toMatchObject({
      status: 'ok',
      value: 480,
    });
  });
});

describe('results that are not whole', () => {
  it('is no-data on PartialData', async () => {
    expect(
      await readWith({ StatusCode: 'PartialData', Timestamps: [sec(FROM)], Values: [480] }),
    ).toMatchObject({
      status: 'no-data',
      value: null,
      error: 'GetMetricData returned PartialData: the window holds more datapoints than one call returns',
    });
  });

  it('is no-data with the messages when the result carries any', async () => {
    const r = await readWith({
      StatusCode: 'Complete',
      Timestamps: [sec(FROM)],
      Values: [480],
      Messages: [{ Code: 'ArithmeticError', Value: 'One or more datapoints were dropped: division by zero' }],
    });
    expect(r).toMatchObject({
      status: 'no-data',
      value: null,
      error:
        'GetMetricData answered Complete with messages: ArithmeticError: One or more datapoints were dropped: division by zero',
    });
  });

  it('is no-data when the call itself carries a message', async () => {
    const r = await readWith({ StatusCode: 'Complete', Timestamps: [sec(FROM)], Values: [480] }, [
      { Code: 'MaxMetricsExceeded', Value: 'Maximum number of allowed metrics exceeded' },
    ]);
    expect(r).toMatchObject({
      status: 'no-data',
      error:
        'GetMetricData answered with messages: MaxMetricsExceeded: Maximum number of allowed metrics exceeded',
    });
  });

  it('is no-data when values and timestamps do not pair up', async () => {
    expect(
      await readWith({ StatusCode: 'Complete', Timestamps: [sec(FROM)], Values: [480, 5] }),
    ).toMatchObject({
      status: 'no-data',
      error: 'malformed answer: 2 values for 1 timestamps',
    });
  });
});

describe('datapoints out of time', () => {
  it('is no-data "from the future" when a datapoint is stamped an hour after the tick', async () => {
    const future = AT + 3600 * S;
    const r = await readWith({
      StatusCode: 'Complete',
      Timestamps: [sec(future), sec(FROM)],
      Values: [1, 480],
    });
    expect(r).toMatchObject({
      status: 'no-data',
      value: null,
      error: `from the future: a datapoint is stamped ${new Date(future).toISOString()}, 3600.0 s after the tick (${new Date(AT).toISOString()}); tolerance 1.0 s`,
    });
  });

  it('is no-data "stale" when the only datapoints are older than the window', async () => {
    const old = FROM - 3600 * S;
    const r = await readWith({ StatusCode: 'Complete', Timestamps: [sec(old)], Values: [480] });
    expect(r).toMatchObject({
      status: 'no-data',
      value: null,
      error: `stale: the newest datapoint (${new Date(old).toISOString()}) is older than the window ${window}`,
    });
  });
});

describe('non-finite values', () => {
  it.each([
    ['Infinity', '+Inf'],
    ['-Infinity', '-Inf'],
    ['NaN', 'NaN'],
  ])('is no-data when a datapoint in the window is %s', async (wire, text) => {
    const r = await readWith({ StatusCode: 'Complete', Timestamps: [sec(FROM)], Values: [wire] });
    expect(r).toMatchObject({
      status: 'no-data',
      value: null,
      error: `the datapoint at ${new Date(FROM).toISOString()} is ${text}, not a finite number`,
    });
  });
});

describe('a huge answer', () => {
  it('fails the call past the cap while streaming, before the SDK parses it', async () => {
    expect(MAX_GET_METRIC_DATA_BYTES).toBe(16 * 1024 * 1024);
    cw.answer = () => ({ huge: 200 * 1024 * 1024 });
    cw.bytesSent = 0;
    const [r] = await new CloudWatchSourceImpl(cw.client, 1024 * 1024).read([requests], AT, 5 * S);
    expect(r).toMatchObject({ status: 'error', value: null });
    expect(r?.error).toMatch(/^GetMetricData failed: .*answer larger than 1048576 bytes/);
    await expect.poll(() => cw.bytesSent, { timeout: 2_000 }).toBeGreaterThan(1024 * 1024);
    expect(cw.bytesSent).toBeLessThan(50 * 1024 * 1024);
  });

  it('fails the call at once when the answer declares a length past the cap', async () => {
    cw.answer = () => ({ huge: 2 * 1024 * 1024, declare: true });
    const [r] = await new CloudWatchSourceImpl(cw.client, 1024 * 1024).read([requests], AT, 5 * S);
    expect(r?.status).toBe('error');
    expect(r?.error).toMatch(/^GetMetricData failed: .*answer larger than 1048576 bytes/);
  });
});
