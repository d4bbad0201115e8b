/**
 * Two decisions of the metric sources that other tests leave open. CloudWatch: a `SampleCount`, like a
 * `Sum`, is added up over every period of the window (a count of samples in the window is the sum of the
 * per-period counts), while `Minimum`/`Maximum` take the lowest/highest and an `Average` reads only the
 * newest period. Prometheus: every credential the source is given — header values, a bearer token, basic
 * auth (its password and the encoded header), SigV4 keys once they are fetched — is registered with the
 * one process-wide redactor, so any text about the source is masked, and listed by `secrets()`.
 * Fast: a fake CloudWatch client and a stubbed `fetch`, no server.
 */
import type { CloudWatchClient, GetMetricDataCommand } from '@aws-sdk/client-cloudwatch';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CloudWatchSourceImpl } from '../../src/metrics/cloudwatch/index.js';
import { PrometheusSource } from '../../src/metrics/prometheus/source.js';
import type { Query } from '../../src/metrics/source.js';
import type { CloudWatchSource } from '../../src/plan/schema.js';
import { redact } from '../../src/security/redact.js';

const S = 1000;
/** A whole minute, so 5 s periods start on it. */
const T0 = Date.UTC(2026, 1, 1, 10, 0, 0);

describe('CloudWatch: how the periods of a window become one value', () => {
  /**
   * A client that answers every GetMetricData with one datapoint per period of the requested window,
   * newest first (as `ScanBy: TimestampDescending` asks), valued `perPeriod[k]` for the k-th oldest.
   */
  const clientWith = (perPeriod: number[], periodMs: number) => {
    const sent: GetMetricDataCommand['input'][] = [];
    const client = {
      send: (command: GetMetricDataCommand) => {
        const input = command.input;
        sent.push(input);
        const start = (input.StartTime as Date).getTime();
        const stamps = perPeriod.map((_, k) => new Date(start + k * periodMs));
        return Promise.resolve({
          MetricDataResults: (input.MetricDataQueries ?? [])
            .filter((q) => q.ReturnData)
            .map((q) => ({
              Id: q.Id,
              StatusCode: 'Complete',
              Timestamps: [...stamps].reverse(),
              Values: [...perPeriod].reverse(),
            })),
        });
      },
    };
    return { client: client as unknown as CloudWatchClient, sent };
  };
  const query = (stat: string): Query => ({
    name: stat,
    spec: {
      cloudwatch: {
        namespace: 'Shop/Checkout',
        metricName: 'Latency',
        dimensions: { Service: 'checkout' },
        stat,
        period: 5 * S,
      } as CloudWatchSource,
    },
  });

  it('adds up SampleCount and Sum over the three periods of a 15 s window', async () => {
    const { client, sent } = clientWith([3, 4, 5], 5 * S);
    const source = new CloudWatchSourceImpl(client);
    const [count, sum] = await source.read([query('SampleCount'), query('Sum')], T0 + 25 * S, 15 * S);
    // One call for both, over three whole 5 s periods.
    expect(sent).toHaveLength(1);
    const window = (sent[0]?.EndTime as Date).getTime() - (sent[0]?.StartTime as Date).getTime();
    expect(window).toBe(15 * S);
    expect(count).toMatchObject({ status: 'ok', value: 12 });
    expect(count?.query).toContain('3 periods added');
    expect(sum).toMatchObject({ status: 'ok', value: 12 });
  });

  it('takes the lowest and the highest period for Minimum and Maximum, and only the newest for Average', async () => {
    const { client } = clientWith([7, 2, 5], 5 * S);
    const source = new CloudWatchSourceImpl(client);
    const [min, max, avg] = await source.read(
      [query('Minimum'), query('Maximum'), query('Average')],
      T0 + 25 * S,
      15 * S,
    );
    expect(min?.value).toBe(2);
    expect(max?.value).toBe(7);
    expect(avg?.value).toBe(5);
    expect(avg?.query).toContain('newest of 3 periods (Average does not combine across periods)');
  });
});

describe('Prometheus: the credentials registered with the one redactor', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it('registers every extra header value, and lists it among its secrets', () => {
    const source = new PrometheusSource({
      url: 'http://prometheus:9090',
      headers: { 'X-Scope-OrgID': 'tenant-hdr-5521' },
    });
    expect(redact('org tenant-hdr-5521 refused')).toBe('org *** refused');
    expect(source.redact('tenant-hdr-5521')).toBe('***');
    expect(source.secrets()).toEqual(['tenant-hdr-5521']);
  });

  it('registers a bearer token, and lists it among its secrets', () => {
    const source = new PrometheusSource({ url: 'http://prometheus:9090', bearerToken: 'bearer-tok-6632' });
    expect(redact('Authorization: Bearer bearer-tok-6632')).toBe('Authorization: Bearer ***');
    expect(source.secrets()).toEqual(['bearer-tok-6632']);
  });

  it('registers basic auth as the password, the encoded header and the decoded user:password', () => {
    const source = new PrometheusSource({
      url: 'http://prometheus:9090',
      basicAuth: { username: 'reader', password: 'basic-pw-7743' },
    });
    const token = Buffer.from('reader:basic-pw-7743').toString('base64');
    expect(redact('password basic-pw-7743')).toBe('password ***');
    expect(redact(`Authorization: Basic ${token}`)).toBe('Authorization: ***');
    expect(redact(`sent as ${token}`)).toBe('sent as ***');
    expect(source.secrets()).toEqual(['basic-pw-7743', token]);
  });

  it('masks a credential in the error of a failed query', async () => {
    vi.stubGlobal('fetch', () => Promise.reject(new Error('proxy refused token bearer-tok-8854')));
    const source = new PrometheusSource({
      url: 'http://prometheus:9090',
      bearerToken: 'bearer-tok-8854',
      timeoutMs: 1000,
      clock: { now: () => Date.now(), sleep: () => Promise.resolve() },
    });
    const [reading] = await source.read([{ name: 'up', spec: { prometheus: 'up' } }], T0, 5 * S);
    expect(reading?.status).toBe('error');
    expect(reading?.error).toContain('proxy refused token ***');
    expect(reading?.error).not.toContain('bearer-tok-8854');
  });

  it('registers the SigV4 keys it signs with, once they are fetched', async () => {
    vi.stubGlobal('fetch', () =>
      Promise.resolve(
        new Response(JSON.stringify({ status: 'success', data: { resultType: 'vector', result: [] } }), {
          status: 200,
          headers: { 'content-type': 'application/json' },
        }),
      ),
    );
    const credentials = {
      accessKeyId: 'AKIDSIGV4KEY9965',
      secretAccessKey: 'sigv4-secret-9965',
      sessionToken: 'sigv4-session-9965',
    };
    const source = new PrometheusSource({
      url: 'https://aps-workspaces.eu-west-1.amazonaws.com/workspaces/ws-1/',
      sigv4: { region: 'eu-west-1', credentials: () => Promise.resolve(credentials) },
      timeoutMs: 1000,
    });
    expect(source.secrets()).toEqual([]);
    expect(redact('sigv4-secret-9965')).toBe('sigv4-secret-9965');
    await source.read([{ name: 'up', spec: { prometheus: 'up' } }], T0, 5 * S);
    expect(redact('AKIDSIGV4KEY9965 sigv4-secret-9965 sigv4-session-9965')).toBe('*** *** ***');
    expect(source.secrets()).toEqual(['sigv4-secret-9965', 'sigv4-session-9965']);
  });
});
