/**
 * The action's lifecycle as the GitHub runner drives it (./world.ts). A refused run (a forbidden tag, a
 * policy narrower than the plan) on push and on pull_request: exit 2, no AWS change, the refusal annotated
 * on the plan line.
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
  /** Operations that change something in AWS: a refused run must send none of them. */
  const MUTATING = /^(Create|Update|Delete|Start|Stop|Tag|Untag|Put|Set)/;

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

    const sent = await awsRequests(c.since);
    expect(sent.filter((r) => MUTATING.test(r.operation ?? ''))).toEqual([]);
    // The kill switch is read before the plan is even loaded (src/compose/early.ts): a read, first.
    expect(sent[0]).toMatchObject({ service: 'cloudwatch', operation: 'DescribeAlarms' });
    expect(JSON.stringify(sent[0]?.body)).toContain('chaos-gate-kill-switch');
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
});
