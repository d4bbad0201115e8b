/**
 * One held run of the bundled action under the runner lifecycle (./world.ts), for held.test.ts and
 * held-node24.test.ts: every output, the job summary, a success check run on the right commit, the PR
 * comment on pull_request, and a post step with nothing to do.
 */
import { readFileSync } from 'node:fs';
import { expect } from 'vitest';
import { commentMarker } from '../../src/report/common.js';
import {
  rejectedRequests,
  liveExperiments,
  newCase,
  checkRunsOf,
  commentsOf,
  recordColdStart,
  logOf,
  OUTPUT_NAMES,
  type Event,
} from './world.js';

/** The held case on `event`, run by the Node at `node` (the test's own Node when absent). */
export const held = (event: Event, node?: string) => async (): Promise<void> => {
  const label = `held/${event}${node ? '/node24' : ''}`;
  const c = await newCase(node ? 'held24' : 'held', event, node ? { node } : {});
  const main = await c.job.runMain();
  expect(main.code, logOf(main)).toBe(0);
  await recordColdStart(label, c, main);

  const out = c.job.outputs();
  expect(Object.keys(out).sort()).toEqual([...OUTPUT_NAMES].sort());
  expect(out.verdict).toBe('held');
  expect(out.reason).toMatch(/within its bound/);
  expect(out['experiment-id']).toMatch(/^EXP\w+$/);
  // No abort rule tripped and the plan has no budget: both documented as empty.
  expect(out['abort-latency-ms']).toBe('');
  expect(out['budget-remaining']).toBe('');
  const journal = JSON.parse(readFileSync(out.journal ?? '', 'utf8')) as {
    verdict: string;
    experimentId: string;
  };
  expect(journal).toMatchObject({ verdict: 'held', experimentId: out['experiment-id'] });
  expect(readFileSync(out.report ?? '', 'utf8')).toMatch(/^<!doctype html>/i);

  const summary = c.job.summary();
  expect(summary).toMatch(/held/);
  expect(summary).toContain('```mermaid');
  expect(summary).toContain(out['experiment-id']);

  const runs = await checkRunsOf(c);
  expect(runs).toHaveLength(1);
  expect(runs[0]).toMatchObject({
    name: 'chaos-gate / lifecycle-partition',
    head_sha: c.checkSha,
    status: 'completed',
    conclusion: 'success',
  });

  const comments = await commentsOf(c);
  if (event === 'pull_request') {
    expect(comments).toHaveLength(1);
    expect(comments[0]).toMatchObject({ issue: c.pr, user: { login: 'github-actions[bot]' } });
    expect(comments[0]?.body).toContain(commentMarker('lifecycle-partition'));
    expect(comments[0]?.body).toMatch(/held/);
  } else {
    expect(comments).toEqual([]);
  }

  const post = await c.job.runPost();
  expect(post.code, logOf(post)).toBe(0);
  expect(post.stdout).toContain('nothing to clean up');
  expect((await checkRunsOf(c))[0]).toMatchObject({ conclusion: 'success' });
  expect(await liveExperiments()).toEqual([]);
  expect(await rejectedRequests()).toEqual([]);
};
