/**
 * The action's lifecycle as the GitHub runner drives it (./world.ts). A refused run (a forbidden tag, a
 * policy narrower than the plan) on push and on pull_request: exit 2, not one AWS request, the refusal
 * annotated on the plan line. A misconfigured run (a Prometheus SLI, no prometheus-url): `failed`, exit 2,
 * the reason naming the setting, not one AWS request.
 */
import { describe, expect, it } from 'vitest';
import {
  awsRequests,
  rejectedRequests,
  newCase,
  checkRunsOf,
  linesOf,
  logOf,
  PLAN,
  FORBIDDEN_PLAN,
  NARROW_POLICY,
  CASE_TIMEOUT_MS,
  type Event,
  useLifecycleSandbox,
} from './world.js';

useLifecycleSandbox();

describe.sequential('the bundled action refused, under the runner lifecycle (sandbox)', () => {
  const refused = (event: Event, why: 'forbidden-tag' | 'policy') => async () => {
    const c = await newCase(
      `refused-${why}`,
      event,
      why === 'forbidden-tag' ? { plan: FORBIDDEN_PLAN } : { policy: NARROW_POLICY },
    );
    const main = await c.job.runMain();
    expect(main.code, logOf(main)).toBe(2);

    const out = c.job.outputs();
    expect(out.verdict).toBe('refused');
    expect(out['experiment-id']).toBe('');
    expect(out.reason).toMatch(why === 'forbidden-tag' ? /Environment=production/ : /maxActionDuration/);

    // A statically refused plan sends no AWS request at all, not even the kill-switch read (it waits
    // for the static stage: src/compose/run.ts). Counted from the sandbox's own request log.
    expect(await awsRequests(c.since)).toEqual([]);
    expect(c.job.savedState()['experiment-id']).toBeUndefined();

    const runs = await checkRunsOf(c);
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ head_sha: c.checkSha, status: 'completed', conclusion: 'failure' });
    const plan = why === 'forbidden-tag' ? FORBIDDEN_PLAN : PLAN;
    const expectedLine =
      why === 'forbidden-tag'
        ? linesOf(plan, 'Environment: production')[0]
        : linesOf(plan, 'maxActionDuration: 2m')[0];
    expect(runs[0]?.annotations.map((a) => [a.path, a.start_line])).toContainEqual([
      c.planPath,
      expectedLine,
    ]);

    const post = await c.job.runPost();
    expect(post.code, logOf(post)).toBe(0);
    expect(post.stdout).toContain('nothing to clean up');
    expect(await rejectedRequests()).toEqual([]);
  };

  it(
    'refused on push (forbidden tag): exit 2, annotated failure, no AWS change',
    refused('push', 'forbidden-tag'),
    CASE_TIMEOUT_MS,
  );
  it(
    'refused on pull_request (forbidden tag): the refusal lands on the PR head',
    refused('pull_request', 'forbidden-tag'),
    CASE_TIMEOUT_MS,
  );
  it(
    'refused on push (policy input narrower than the plan): exit 2, nothing started',
    refused('push', 'policy'),
    CASE_TIMEOUT_MS,
  );
  it(
    'refused on pull_request (policy input narrower than the plan)',
    refused('pull_request', 'policy'),
    CASE_TIMEOUT_MS,
  );

  it(
    'misconfigured (a Prometheus SLI and no prometheus-url): failed, exit 2, naming the input, no AWS request',
    async () => {
      const plan = PLAN.replace(
        '  slis:\n',
        '  slis:\n    - name: prom_error_ratio\n      prometheus: sum(rate(http_requests_total{status="503"}[1m]))\n      max: 0.02\n',
      );
      expect(plan).toContain('prom_error_ratio');
      const c = await newCase('misconfigured', 'push', { plan });
      const main = await c.job.runMain();
      expect(main.code, logOf(main)).toBe(2);
      const out = c.job.outputs();
      expect(out.verdict).toBe('failed');
      expect(out.reason).toContain('hypothesis.slis[0] (prom_error_ratio) reads Prometheus');
      expect(out.reason).toContain('the action input prometheus-url');
      expect(out.reason).toContain('--prometheus-url');
      expect(await awsRequests(c.since)).toEqual([]);
      const runs = await checkRunsOf(c);
      expect(runs[0]).toMatchObject({ status: 'completed', conclusion: 'failure' });
      const post = await c.job.runPost();
      expect(post.code, logOf(post)).toBe(0);
    },
    CASE_TIMEOUT_MS,
  );
});
