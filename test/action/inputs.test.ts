import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { INPUT_DEFAULTS, InputError, parseHeaders, parseInputs } from '../../src/action/inputs.js';
import { redact, secrets } from '../../src/security/redact.js';

function inputs(values: Record<string, string>) {
  return (name: string): string => values[name] ?? '';
}

describe('action inputs', () => {
  it('applies the defaults when only the plan is given', () => {
    expect(parseInputs(inputs({ plan: 'chaos/p.yaml' }))).toEqual({
      plan: 'chaos/p.yaml',
      command: 'run',
      policy: undefined,
      githubToken: undefined,
      prometheusUrl: undefined,
      prometheusHeaders: {},
      alertmanagerUrl: undefined,
      awsRegion: undefined,
      prComment: true,
      checkRun: true,
      findings: 'none',
      inconclusiveConclusion: 'failure',
      notRunConclusion: 'failure',
      journalPath: 'chaos-gate/journal.json',
      reportPath: 'chaos-gate/report.html',
      queueTimeoutMs: 600_000,
      notify: [],
      deploymentId: undefined,
      environment: undefined,
      attestSubject: undefined,
      attestationPath: 'chaos-gate/attestation.intoto.json',
    });
  });

  it('reads the deployment and the attestation subject, refusing a malformed id or digest by name', () => {
    const digest = `sha256:${'ab'.repeat(32)}`;
    const parsed = parseInputs(
      inputs({
        plan: 'p',
        'deployment-id': '4242',
        environment: 'staging',
        'attest-subject-name': 'ghcr.io/acme/checkout',
        'attest-subject-digest': digest,
      }),
    );
    expect(parsed).toMatchObject({
      deploymentId: 4242,
      environment: 'staging',
      attestSubject: { name: 'ghcr.io/acme/checkout', digest: { sha256: 'ab'.repeat(32) } },
    });
    const refused = (values: Record<string, string>): InputError => {
      try {
        parseInputs(inputs({ plan: 'p', ...values }));
      } catch (err) {
        return err as InputError;
      }
      throw new Error('accepted');
    };
    expect(refused({ 'deployment-id': '12abc' })).toMatchObject({
      input: 'deployment-id',
      message: expect.stringContaining('"12abc": expected the numeric id'),
    });
    expect(refused({ 'attest-subject-name': 'app' })).toMatchObject({ input: 'attest-subject-digest' });
    expect(
      refused({ 'attest-subject-name': 'app', 'attest-subject-digest': `sha512:${'a'.repeat(64)}` }),
    ).toMatchObject({ input: 'attest-subject-digest', message: expect.stringContaining('64 lowercase hex') });
    expect(refused({ environment: 'a\nb' })).toMatchObject({ input: 'environment' });
  });

  it('parses every input given explicitly', () => {
    const parsed = parseInputs(
      inputs({
        plan: 'p.yaml',
        command: 'plan',
        policy: 'policy.yaml',
        'github-token': 'ghs_x',
        'prometheus-url': 'https://prom.example.com/',
        'prometheus-headers': 'Authorization: Bearer abc\n# comment\n\nX-Scope-OrgID: team-a',
        'aws-region': 'eu-west-1',
        'pr-comment': 'False',
        'check-run': 'TRUE',
        findings: 'issue',
        'inconclusive-conclusion': 'neutral',
        'not-run-conclusion': 'skipped',
        'journal-path': 'out/j.json',
        'report-path': 'out/r.html',
        'queue-timeout': '90s',
      }),
    );
    expect(parsed).toMatchObject({
      command: 'plan',
      policy: 'policy.yaml',
      githubToken: 'ghs_x',
      prometheusHeaders: { Authorization: 'Bearer abc', 'X-Scope-OrgID': 'team-a' },
      prComment: false,
      checkRun: true,
      findings: 'issue',
      inconclusiveConclusion: 'neutral',
      notRunConclusion: 'skipped',
      queueTimeoutMs: 90_000,
    });
  });

  const bad: [string, Record<string, string>, string][] = [
    ['plan', {}, 'Input "plan" is required'],
    ['command', { command: 'apply' }, 'Input "command" is "apply": expected one of run, plan, validate.'],
    ['pr-comment', { 'pr-comment': 'yes' }, 'Input "pr-comment" is "yes": expected true or false.'],
    ['check-run', { 'check-run': '1' }, 'Input "check-run" is "1": expected true or false.'],
    ['findings', { findings: 'issues' }, 'Input "findings" is "issues": expected one of none, issue.'],
    [
      'inconclusive-conclusion',
      { 'inconclusive-conclusion': 'success' },
      'expected one of failure, neutral (an inconclusive run is never a success).',
    ],
    [
      'not-run-conclusion',
      { 'not-run-conclusion': 'success' },
      'Input "not-run-conclusion" is "success": expected one of failure, neutral, skipped.',
    ],
    [
      'queue-timeout',
      { 'queue-timeout': '5 minutes' },
      'Input "queue-timeout" is "5 minutes": expected a duration such as 500ms, 5s, 2m, 1h or 30d.',
    ],
    [
      'prometheus-url',
      { 'prometheus-url': 'prom:9090' },
      'Input "prometheus-url" is "prom:9090": its scheme is prom, not http or https; expected an http(s) URL',
    ],
    [
      'alertmanager-url',
      { 'alertmanager-url': 'ftp://am:9093' },
      'Input "alertmanager-url" is "ftp://am:9093": its scheme is ftp, not http or https; expected an http(s) URL',
    ],
    [
      'aws-region',
      { 'aws-region': 'Frankfurt' },
      'Input "aws-region" is "Frankfurt": expected an AWS Region name such as eu-west-1.',
    ],
    [
      'prometheus-headers',
      { 'prometheus-headers': 'Authorization Bearer abc' },
      'Input "prometheus-headers" line 1: expected "Name: value"',
    ],
  ];
  for (const [name, values, message] of bad) {
    it(`rejects a bad ${name} naming the input and the expected form`, () => {
      const run = () =>
        parseInputs(inputs({ plan: 'p.yaml', ...values, ...(name === 'plan' ? { plan: '' } : {}) }));
      expect(run).toThrow(InputError);
      expect(run).toThrow(message);
      try {
        run();
      } catch (err) {
        expect((err as InputError).input).toBe(name);
      }
    });
  }

  it('reads notify one KIND=URL per line, masks the Slack URL path, and names the input for a bad kind', () => {
    const slack = 'https://hooks.slack.com/services/T000/B000/XXXXXXXXXXXXXXXX';
    try {
      const parsed = parseInputs(
        inputs({ plan: 'p', notify: `slack=${slack}\n\ncdevents=https://hooks.example.com/ce\n` }),
      );
      expect(parsed.notify.map((t) => t.kind)).toEqual(['slack', 'cdevents']);
      expect(parsed.notify[0]?.display).toBe('slack https://hooks.slack.com/***');
      expect(redact(`posting to ${slack}`)).not.toContain('XXXXXXXXXXXXXXXX');
      let error: unknown;
      try {
        parseInputs(inputs({ plan: 'p', notify: 'teams=https://example.com/hook' }));
      } catch (err) {
        error = err;
      }
      expect(error).toBeInstanceOf(InputError);
      expect((error as InputError).input).toBe('notify');
      expect((error as Error).message).toMatch(
        /Input "notify" entry 1: 'teams' is not a notification kind; expected KIND=URL/,
      );
    } finally {
      secrets.clear();
    }
  });

  it('masks the token and header values, and never quotes a header value in an error', () => {
    const masked: string[] = [];
    parseInputs(
      inputs({
        plan: 'p',
        'github-token': 'ghs_secret',
        'prometheus-headers': 'Authorization: Bearer s3cret',
      }),
      (s) => masked.push(s),
    );
    expect(masked).toEqual(['ghs_secret', 'Bearer s3cret']);
    const leaked: string[] = [];
    expect(() => parseHeaders('Good: one\nbad header: Bearer t0p', (s) => leaked.push(s))).toThrow(/line 2/);
    try {
      parseHeaders('bad header: Bearer t0p');
    } catch (err) {
      expect((err as Error).message).not.toContain('t0p');
    }
    expect(leaked).toContain('Bearer t0p');
  });

  it('keeps action.yml in step with the parser: every input described, defaults equal, every output listed', () => {
    const action = parse(readFileSync(new URL('../../action.yml', import.meta.url), 'utf8')) as {
      inputs: Record<string, { description: string; default?: string; required?: boolean }>;
      outputs: Record<string, { description: string }>;
      runs: Record<string, string>;
    };
    expect(action.runs).toEqual({ using: 'node24', main: 'dist/action.js', post: 'dist/post.js' });
    const names = [
      'plan',
      'command',
      'policy',
      'github-token',
      'prometheus-url',
      'prometheus-headers',
      'alertmanager-url',
      'aws-region',
      'pr-comment',
      'check-run',
      'findings',
      'inconclusive-conclusion',
      'not-run-conclusion',
      'journal-path',
      'report-path',
      'queue-timeout',
      'notify',
      'deployment-id',
      'environment',
      'attest-subject-name',
      'attest-subject-digest',
      'attestation-path',
      'history',
    ];
    expect(Object.keys(action.inputs).sort()).toEqual([...names].sort());
    for (const [name, spec] of Object.entries(action.inputs)) {
      expect(spec.description.length, name).toBeGreaterThan(10);
      if (name !== 'plan') expect(spec.default, name).toBeDefined();
    }
    for (const [name, value] of Object.entries(INPUT_DEFAULTS))
      expect(action.inputs[name]?.default, name).toBe(value);
    expect(Object.keys(action.outputs).sort()).toEqual([
      'abort-latency-ms',
      'attestation',
      'attestation-id',
      'attestation-url',
      'budget-remaining',
      'experiment-id',
      'journal',
      'reason',
      'report',
      'verdict',
    ]);
  });
});
