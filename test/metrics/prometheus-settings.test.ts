/**
 * The Prometheus settings a front door turns into a source: the URL check (scheme, port, percent-escapes
 * in the userinfo, never quoting the password), the credentials SigV4 signs with, the signature itself,
 * and the options read from flags and the environment.
 */
import { SignatureV4 } from '@smithy/signature-v4';
import { Sha256 } from '@aws-crypto/sha256-js';
import { HttpRequest } from '@smithy/protocol-http';
import { describe, expect, it } from 'vitest';
import { BadInputError } from '../../src/errors/bad-input.js';
import {
  createMetricSources,
  parseHeaderLine,
  PROMETHEUS_ENV,
  prometheusOptionsFrom,
  readAll,
  type MetricSources,
} from '../../src/metrics/index.js';
import { PrometheusSource } from '../../src/metrics/prometheus/source.js';
import { credentialsFromEnv, signRequest } from '../../src/metrics/prometheus/sigv4.js';
import { parsePrometheusUrl, prometheusUrlProblem } from '../../src/metrics/prometheus/url.js';
import { ScrapeMetricSource } from '../../src/metrics/scrape/source.js';
import type { MetricSource, Query } from '../../src/metrics/source.js';
import { redact } from '../../src/security/redact.js';

const EXPECTED = 'expected an http(s) URL such as http://prometheus:9090';

function badInput(fn: () => unknown): BadInputError {
  try {
    fn();
  } catch (error) {
    if (error instanceof BadInputError) return error;
    throw error;
  }
  throw new Error('expected a BadInputError');
}

describe('the Prometheus URL', () => {
  it('accepts http and https URLs', () => {
    expect(prometheusUrlProblem('http://prometheus:9090')).toBeUndefined();
    expect(
      prometheusUrlProblem('https://aps-workspaces.eu-west-1.amazonaws.com/workspaces/ws-1'),
    ).toBeUndefined();
  });

  it.each([
    ['ftp://prometheus', 'its scheme is ftp, not http or https'],
    ['prometheus:9090', 'its scheme is prometheus, not http or https'],
    ['not a url', 'it is not a valid URL (check the host and port)'],
    ['http://prometheus:99999', 'it is not a valid URL (check the host and port)'],
    [
      'http://reader:%zzsecret@prometheus',
      'the password in it has a bad percent-escape (expected %XX with two hex digits)',
    ],
    [
      'http://%zzreader:pw@prometheus',
      'the user name in it has a bad percent-escape (expected %XX with two hex digits)',
    ],
  ])('says why %j is not usable', (raw, why) => {
    expect(prometheusUrlProblem(raw)).toBe(why);
  });

  it('splits user:password@ off the base, percent-decoded', () => {
    const parsed = parsePrometheusUrl('http://team%40corp:p%2Fw%3Aord@prometheus:9090/prom/');
    expect(parsed.basic).toEqual({ username: 'team@corp', password: 'p/w:ord' });
    expect(parsed.base.href).toBe('http://prometheus:9090/prom/');
    expect(parsePrometheusUrl('http://reader@prometheus').basic).toEqual({
      username: 'reader',
      password: '',
    });
    expect(parsePrometheusUrl('http://prometheus:9090').basic).toBeUndefined();
  });

  it('registers the password before anything can print it', () => {
    parsePrometheusUrl('http://reader:registered-pw-4711@prometheus:9090');
    expect(redact('password registered-pw-4711 leaked')).toBe('password *** leaked');
  });

  it('registers the password of a URL it refuses, and the decoded form of an escaped one', () => {
    expect(() => parsePrometheusUrl('http://u:refused-pass-777@prometheus:99999')).toThrow(BadInputError);
    expect(redact('refused-pass-777')).toBe('***');
    parsePrometheusUrl('http://u:escaped%2Fsecret-99@prometheus');
    expect(redact('escaped/secret-99')).toBe('***');
  });

  it('names the setting, masks the userinfo and says what is expected', () => {
    const error = badInput(() => parsePrometheusUrl('ftp://reader:masked-pw-0815@prometheus'));
    expect(error.message).toBe(
      `prometheus-url 'ftp://***@prometheus': its scheme is ftp, not http or https; ${EXPECTED}`,
    );
    const named = badInput(() => parsePrometheusUrl('http://prometheus:99999', PROMETHEUS_ENV.url));
    expect(named.message).toBe(
      `${PROMETHEUS_ENV.url} 'http://prometheus:99999': it is not a valid URL (check the host and port); ${EXPECTED}`,
    );
    const escape = badInput(() => parsePrometheusUrl('http://reader:%zz-unparsed-pw@prometheus'));
    expect(escape.message).not.toContain('unparsed-pw');
    expect(escape.message).toContain('the password in it has a bad percent-escape');
  });
});

describe('SigV4 credentials and signature', () => {
  it('reads the key pair and session token from the environment', async () => {
    await expect(
      credentialsFromEnv({ AWS_ACCESS_KEY_ID: 'AKIAENV', AWS_SECRET_ACCESS_KEY: 'env-secret' })(),
    ).resolves.toEqual({ accessKeyId: 'AKIAENV', secretAccessKey: 'env-secret' });
    await expect(
      credentialsFromEnv({
        AWS_ACCESS_KEY_ID: 'AKIAENV',
        AWS_SECRET_ACCESS_KEY: 'env-secret',
        AWS_SESSION_TOKEN: 'env-token',
      })(),
    ).resolves.toEqual({ accessKeyId: 'AKIAENV', secretAccessKey: 'env-secret', sessionToken: 'env-token' });
  });

  it.each([
    [{ AWS_SECRET_ACCESS_KEY: 'env-secret' }],
    [{ AWS_ACCESS_KEY_ID: 'AKIAENV' }],
    [{ AWS_ACCESS_KEY_ID: '', AWS_SECRET_ACCESS_KEY: 'env-secret' }],
  ])('refuses an environment without both keys, saying which variables to set: %j', async (env) => {
    await expect(credentialsFromEnv(env)()).rejects.toThrow(
      'SigV4: no AWS credentials (set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, e.g. with configure-aws-credentials)',
    );
  });

  const credentials = {
    accessKeyId: 'AKIDEXAMPLE',
    secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
  };
  const signingDate = new Date(Date.UTC(2025, 0, 2, 3, 4, 5));

  /** The same request signed directly with the SDK's signer, as AMP verifies it. */
  async function expectedAuthorization(
    query: Record<string, string | string[]>,
    extra: { port?: number; body?: string; sessionToken?: string } = {},
  ): Promise<string> {
    const signer = new SignatureV4({
      service: 'aps',
      region: 'eu-west-1',
      credentials: extra.sessionToken ? { ...credentials, sessionToken: extra.sessionToken } : credentials,
      sha256: Sha256,
    });
    const host = extra.port ? `aps.example:${extra.port}` : 'aps.example';
    const signed = await signer.sign(
      new HttpRequest({
        method: extra.body === undefined ? 'GET' : 'POST',
        protocol: 'https:',
        hostname: 'aps.example',
        ...(extra.port ? { port: extra.port } : {}),
        path: '/workspaces/ws 1/api/v1/query',
        query,
        headers: { accept: 'application/json', host },
        ...(extra.body === undefined ? {} : { body: extra.body }),
      }),
      { signingDate },
    );
    return signed.headers['authorization'] ?? '';
  }

  it('signs the exact path, repeated query keys, port and body, and leaves host to fetch', async () => {
    const url = new URL('https://aps.example/workspaces/ws%201/api/v1/query?query=up&m=a&m=b&m=c');
    const headers = await signRequest(
      { method: 'GET', url, headers: { accept: 'application/json' } },
      { region: 'eu-west-1', service: 'aps', credentials, signingDate },
    );
    expect(headers['authorization']).toBe(await expectedAuthorization({ query: 'up', m: ['a', 'b', 'c'] }));
    expect(headers['authorization']).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/20250102\/eu-west-1\/aps\/aws4_request, /,
    );
    expect(headers['x-amz-date']).toBe('20250102T030405Z');
    expect(headers['accept']).toBe('application/json');
    expect(Object.keys(headers).map((k) => k.toLowerCase())).not.toContain('host');
    expect(headers['x-amz-security-token']).toBeUndefined();

    const twoKeys = await signRequest(
      {
        method: 'GET',
        url: new URL('https://aps.example/workspaces/ws%201/api/v1/query?m=a&m=b'),
        headers: { accept: 'application/json' },
      },
      { region: 'eu-west-1', service: 'aps', credentials, signingDate },
    );
    expect(twoKeys['authorization']).toBe(await expectedAuthorization({ m: ['a', 'b'] }));

    const posted = await signRequest(
      {
        method: 'POST',
        url: new URL('https://aps.example:8443/workspaces/ws%201/api/v1/query'),
        headers: { accept: 'application/json' },
        body: 'query=up',
      },
      {
        region: 'eu-west-1',
        service: 'aps',
        credentials: { ...credentials, sessionToken: 'tok-1' },
        signingDate,
      },
    );
    expect(posted['authorization']).toBe(
      await expectedAuthorization({}, { port: 8443, body: 'query=up', sessionToken: 'tok-1' }),
    );
    expect(posted['x-amz-security-token']).toBe('tok-1');
  });
});

describe('Prometheus options from flags and the environment', () => {
  it('takes basic auth from the environment, even with only one of the two set', () => {
    const url = { [PROMETHEUS_ENV.url]: 'http://prom:9090' };
    expect(
      prometheusOptionsFrom(
        {},
        { ...url, [PROMETHEUS_ENV.username]: 'u', [PROMETHEUS_ENV.password]: 'env-pass-123' },
      )?.basicAuth,
    ).toEqual({ username: 'u', password: 'env-pass-123' });
    expect(prometheusOptionsFrom({}, { ...url, [PROMETHEUS_ENV.username]: 'u' })?.basicAuth).toEqual({
      username: 'u',
      password: '',
    });
    expect(
      prometheusOptionsFrom({}, { ...url, [PROMETHEUS_ENV.password]: 'only-pass-123' })?.basicAuth,
    ).toEqual({
      username: '',
      password: 'only-pass-123',
    });
    expect(prometheusOptionsFrom({}, url)).toEqual({ url: 'http://prom:9090' });
  });

  it('lets flags win over the environment and carries the timeout', () => {
    const env = {
      [PROMETHEUS_ENV.url]: 'http://env:9090',
      [PROMETHEUS_ENV.bearerToken]: 'env-token-123',
      [PROMETHEUS_ENV.sigv4Region]: 'us-east-1',
    };
    const options = prometheusOptionsFrom(
      { url: 'http://flag:9090', bearerToken: 'flag-token-123', sigv4Region: 'eu-west-1', timeoutMs: 1234 },
      env,
    );
    expect(options).toEqual({
      url: 'http://flag:9090',
      bearerToken: 'flag-token-123',
      sigv4: { region: 'eu-west-1', service: 'aps' },
      timeoutMs: 1234,
    });
  });

  it('treats an empty URL as none, but still registers the secrets it was given', () => {
    expect(
      prometheusOptionsFrom(
        { url: '', bearerToken: 'unused-token-31337' },
        { [PROMETHEUS_ENV.password]: 'unused-pass-31337' },
      ),
    ).toBeUndefined();
    expect(redact('unused-token-31337 unused-pass-31337')).toBe('*** ***');
  });

  it('ignores an empty bearer token rather than sending "Bearer " alone', () => {
    expect(prometheusOptionsFrom({ bearerToken: '' }, { [PROMETHEUS_ENV.url]: 'http://prom' })).toEqual({
      url: 'http://prom',
    });
  });

  it('refuses a header line that starts with its colon as having no name', () => {
    expect(() => parseHeaderLine(': value')).toThrow(
      "Prometheus header '(no name)' is not 'Name: value'; expected an HTTP header name, a colon and the value",
    );
  });

  it('skips blank header lines and keeps the last value of a repeated header', () => {
    const options = prometheusOptionsFrom(
      { headers: ['X-Tenant: b', '   '] },
      { [PROMETHEUS_ENV.url]: 'http://prom', [PROMETHEUS_ENV.headers]: 'X-Tenant: a\n\nX-Other: c' },
    );
    expect(options?.headers).toEqual({ 'X-Tenant': 'b', 'X-Other': 'c' });
  });
});

describe('createMetricSources and readAll', () => {
  it('always builds a scrape source, and Prometheus and CloudWatch only when configured', () => {
    const none = createMetricSources({});
    expect(Object.keys(none)).toEqual(['scrape']);
    expect(none.scrape).toBeInstanceOf(ScrapeMetricSource);
    const cloudwatch: MetricSource = { kind: 'cloudwatch', read: () => Promise.resolve([]) };
    const all = createMetricSources({ prometheus: { url: 'http://prom:9090' }, cloudwatch });
    expect(all.prometheus).toBeInstanceOf(PrometheusSource);
    expect(all.cloudwatch).toBe(cloudwatch);
  });

  it('names the kind without a source, and a reading a source failed to return', async () => {
    const short: MetricSource = {
      kind: 'scrape',
      read: (queries) =>
        Promise.resolve(
          queries.slice(0, 1).map((q) => ({ name: q.name, value: 1, status: 'ok' as const, query: 's' })),
        ),
    };
    const sources: MetricSources = { scrape: short };
    const queries: Query[] = [
      { name: 'a', spec: { scrape: { url: 'u', gauge: 'g' } } },
      { name: 'b', spec: { scrape: { url: 'u', gauge: 'h' } } },
      {
        name: 'c',
        spec: { cloudwatch: { namespace: 'N', metricName: 'M', stat: 'Sum', period: 60_000 } as never },
      },
    ];
    const readings = await readAll(sources, queries, 0, 1000);
    expect(readings).toEqual([
      { name: 'a', value: 1, status: 'ok', query: 's' },
      { name: 'b', value: null, status: 'error', query: '', error: 'the scrape source returned no reading' },
      { name: 'c', value: null, status: 'error', query: '', error: 'no cloudwatch source configured' },
    ]);
  });
});
