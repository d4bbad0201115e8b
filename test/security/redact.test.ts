/**
 * The one redactor (issue 14.2, docs/design/principles.md#security): what a registered secret covers, and the writers that apply
 * it — the journal writer, the GitHub payload builders (check run, PR comment, findings issue) and the
 * action's outputs and summary.
 */
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { redactingCore, type ActionCore } from '../../src/action/run.js';
import { MemoryJournalWriter } from '../../src/journal/writer.js';
import type { Journal } from '../../src/journal/types.js';
import { checkRunPayload, annotationBatches } from '../../src/report/check-run.js';
import { prComment } from '../../src/report/comment.js';
import { findingsComment, findingsIssue, heldComment } from '../../src/report/findings.js';
import { renderSummary } from '../../src/report/markdown.js';
import { registerEnvironmentSecrets } from '../../src/security/environment.js';
import { displayUrl, REDACTED, SecretRegistry, secrets } from '../../src/security/redact.js';

afterEach(() => secrets.clear());

describe('SecretRegistry', () => {
  it('masks a header value whole and the token after its scheme (a server may echo either)', () => {
    const r = new SecretRegistry();
    r.addHeader('Bearer tok-123456');
    expect(r.redact('got "Bearer tok-123456"; token tok-123456 is invalid')).toBe(
      'got "***"; token *** is invalid',
    );
  });

  it('masks Basic credentials: the base64, the decoded user:password and the password', () => {
    const r = new SecretRegistry();
    const b64 = Buffer.from('alice:pa55word!').toString('base64');
    r.addHeader(`Basic ${b64}`);
    expect(r.redact(`Basic ${b64} | alice:pa55word! | password pa55word! wrong`)).toBe(
      '*** | *** | password *** wrong',
    );
    expect(r.redact('alice is fine')).toBe('alice is fine');
  });

  it('masks URL userinfo even in a URL that does not parse, raw and decoded', () => {
    const r = new SecretRegistry();
    r.addUrl('http://alice:p%40ss-w0rd@prom.example:99999');
    expect(r.redact('p%40ss-w0rd and p@ss-w0rd')).toBe('*** and ***');
    expect(displayUrl('http://alice:whatever@host:1/x')).toBe('http://***@host:1/x');
  });

  it('masks the forms a secret takes when written: percent-encoded, JSON-escaped, HTML-escaped', () => {
    const r = new SecretRegistry();
    r.add('a/b+c"d<e-f');
    expect(r.redact(encodeURIComponent('a/b+c"d<e-f'))).toBe(REDACTED);
    expect(r.redact(JSON.stringify({ v: 'a/b+c"d<e-f' }))).toBe('{"v":"***"}');
    expect(r.redact('a/b+c&quot;d&lt;e-f')).toBe(REDACTED);
  });

  it('masks the longest secret first and leaves values shorter than 8 characters alone', () => {
    const r = new SecretRegistry();
    for (const s of ['abc12345', 'abc12345678', 'sandbox', '']) r.add(s);
    expect(r.redact('abc12345678 abc12345 sandbox-redis-partition')).toBe('*** *** sandbox-redis-partition');
  });

  it('redacts every string of a structure, keys included, leaving numbers alone', () => {
    const r = new SecretRegistry();
    r.add('s3cr3t-value');
    expect(r.redactDeep({ a: ['x s3cr3t-value y', 42, null], 's3cr3t-value': true })).toEqual({
      a: ['x *** y', 42, null],
      '***': true,
    });
  });

  it('hands every secret form to a listener (core.setSecret), also those registered before', () => {
    const r = new SecretRegistry();
    r.add('early-secret');
    const seen: string[] = [];
    r.onSecret((s) => seen.push(s));
    r.addHeader('Bearer late-secret');
    expect(seen).toEqual(expect.arrayContaining(['early-secret', 'Bearer late-secret', 'late-secret']));
  });

  it('registers the AWS keys and the GitHub and Actions tokens a process inherits', () => {
    registerEnvironmentSecrets({
      AWS_ACCESS_KEY_ID: 'AKIAEXAMPLE123',
      AWS_SECRET_ACCESS_KEY: 'wJalrXUtnFEMI/K7MDENG',
      AWS_SESSION_TOKEN: 'session-token-xyz',
      GITHUB_TOKEN: 'ghs_abcdef123',
      HOME: '/home/runner',
    });
    expect(
      secrets.redact('AKIAEXAMPLE123 wJalrXUtnFEMI/K7MDENG session-token-xyz ghs_abcdef123 /home/runner'),
    ).toBe('*** *** *** *** /home/runner');
  });
});

describe('the writers apply the one redactor', () => {
  const fixture = (name: string): Journal =>
    JSON.parse(
      readFileSync(new URL(`../../fixtures/github/journals/${name}.json`, import.meta.url), 'utf8'),
    ) as Journal;
  const SECRET = 'leaked-token-9f8e7d';
  const leaky = (name: string): Journal => {
    const j = fixture(name);
    j.reason = `${j.reason ?? ''} (Prometheus said: token ${SECRET} is invalid)`;
    const m = j.measurements[0];
    const first = m && Object.values(m.slis)[0];
    if (first) first.error = `GET http://x/metrics?access_token=${SECRET}: HTTP 401`;
    return j;
  };

  it('the journal writer masks every record and the final JSON', async () => {
    secrets.add(SECRET);
    const w = new MemoryJournalWriter();
    const j = leaky('aborted');
    w.begin({ ...j, startedAt: j.startedAt });
    for (const m of j.measurements) w.measurement(m);
    const final = await w.finish({ verdict: 'aborted', reason: j.reason ?? '', exitCode: 1 });
    expect(w.lines.join('')).not.toContain(SECRET);
    expect(w.text()).not.toContain(SECRET);
    expect(final.reason).toContain('token *** is invalid');
    expect(renderSummary(final)).not.toContain(SECRET);
  });

  it('the check run, PR comment and findings issue payloads carry no secret', () => {
    secrets.add(SECRET);
    const j = leaky('aborted');
    const opts = { headSha: 'a'.repeat(40), planPath: 'chaos/plan.yaml' };
    const bodies = [
      JSON.stringify(checkRunPayload(j, opts)),
      JSON.stringify(annotationBatches(j, opts)),
      prComment(j),
      JSON.stringify(findingsIssue(j)),
      findingsComment(j),
      heldComment(leaky('held')),
    ];
    for (const body of bodies) expect(body).not.toContain(SECRET);
    expect(JSON.stringify(checkRunPayload(j, opts))).toContain('token *** is invalid');
  });

  it('the action’s outputs, summary and log lines pass the redactor', async () => {
    secrets.add(SECRET);
    const written: string[] = [];
    const sink: ActionCore = {
      info: (m) => void written.push(m),
      warning: (m) => void written.push(m),
      notice: (m) => void written.push(m),
      setOutput: (n, v) => void written.push(`${n}=${v}`),
      saveState: () => undefined,
      writeSummary: async (md) => void written.push(md),
    };
    const core = redactingCore(sink);
    core.info(`a ${SECRET}`);
    core.warning(`b ${SECRET}`);
    core.notice(`c ${SECRET}`);
    core.setOutput('reason', `d ${SECRET}`);
    await core.writeSummary(`e ${SECRET}`);
    expect(written).toEqual(['a ***', 'b ***', 'c ***', 'reason=d ***', 'e ***']);
  });
});
