/**
 * The action's lifecycle as the GitHub runner drives it (./world.ts). An aborted run on push and on
 * pull_request: exit 1, FIS really stopped, the failure check run annotated on the plan lines, the PR
 * comment.
 */
import { describe, expect, it } from 'vitest';
import { commentMarker } from '../../src/report/common.js';
import {
  awsRequests,
  rejectedRequests,
  liveExperiments,
  newCase,
  checkRunsOf,
  commentsOf,
  recordColdStart,
  fisStatus,
  fisActions,
  linesOf,
  logOf,
  PLAN,
  CASE_TIMEOUT_MS,
  sandbox,
  type Event,
  useLifecycleSandbox,
} from './world.js';

useLifecycleSandbox();

describe.sequential('the bundled action aborted, under the runner lifecycle (sandbox)', () => {
  const aborted = (event: Event) => async () => {
    // Fallback off: the partition shows as 503s, which trip the error-ratio abort rule.
    await sandbox().admin.send('PUT', '/canary', { fallback: false });
    try {
      const c = await newCase('aborted', event);
      const main = await c.job.runMain();
      expect(main.code, logOf(main)).toBe(1);
      await recordColdStart(`aborted/${event}`, c, main);

      const out = c.job.outputs();
      expect(out.verdict).toBe('aborted');
      expect(out.reason).toMatch(/error_ratio/);
      expect(out['abort-latency-ms']).toMatch(/^\d+$/);
      const id = out['experiment-id'] ?? '';
      expect(id).toMatch(/^EXP\w+$/);

      // FIS really stopped: the stand-in received StopExperiment and the action ended `stopped`.
      const stops = (await awsRequests(c.since)).filter((r) => r.operation === 'StopExperiment');
      expect(stops.map((r) => r.path)).toContain(`/experiments/${id}`);
      expect((await fisActions(id)).map((a) => a.endedAs)).toEqual(['stopped']);
      expect(await fisStatus(id)).toBe('stopped');

      const runs = await checkRunsOf(c);
      expect(runs).toHaveLength(1);
      expect(runs[0]).toMatchObject({ head_sha: c.checkSha, status: 'completed', conclusion: 'failure' });
      const annotations = runs[0]?.annotations ?? [];
      expect(annotations.every((a) => a.path === c.planPath)).toBe(true);
      const rule = annotations.find((a) => a.title === 'abort rule tripped: error_ratio');
      expect(rule?.start_line).toBe(linesOf(PLAN, '- sli: error_ratio')[0]);
      const breach = annotations.find((a) => a.title?.startsWith('error_ratio outside'));
      expect(linesOf(PLAN, 'max: 0.002')).toContain(breach?.start_line);

      if (event === 'pull_request') {
        const comments = await commentsOf(c);
        expect(comments).toHaveLength(1);
        expect(comments[0]?.body).toContain(commentMarker('lifecycle-partition'));
        expect(comments[0]?.body).toMatch(/aborted/);
      }

      const post = await c.job.runPost();
      expect(post.code, logOf(post)).toBe(0);
      expect(post.stdout).toContain('nothing to clean up');
      expect((await checkRunsOf(c))[0]).toMatchObject({ conclusion: 'failure' });
      expect(await liveExperiments()).toEqual([]);
      expect(await rejectedRequests()).toEqual([]);
    } finally {
      await sandbox().admin.send('PUT', '/canary', { fallback: true });
    }
  };

  it(
    'aborted on push: exit 1, failure check run annotated on the plan lines, FIS stopped',
    aborted('push'),
    CASE_TIMEOUT_MS,
  );

  it(
    'aborted on pull_request: the failure lands on the PR head and the PR comment says aborted',
    aborted('pull_request'),
    CASE_TIMEOUT_MS,
  );
});
