/**
 * The action's lifecycle as the GitHub runner drives it (./world.ts). A held run on push, on pull_request
 * and under Node 24: every output, the job summary, a success check run on the right commit, the PR
 * comment, and a post step with nothing to do.
 */
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { commentMarker } from '../../src/report/common.js';
import {
  rejectedRequests,
  liveExperiments,
  newCase,
  checkRunsOf,
  commentsOf,
  recordColdStart,
  logOf,
  NODE24,
  OUTPUT_NAMES,
  CASE_TIMEOUT_MS,
  type Event,
  useLifecycleSandbox,
} from './world.js';

useLifecycleSandbox();

describe.sequential('the bundled action held, under the runner lifecycle (sandbox)', () => {
  const held = (event: Event, node?: string) => async () => {
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

  it(
    'held on push: exit 0, every output, job summary, success check run on GITHUB_SHA, post has nothing to do',
    held('push'),
    CASE_TIMEOUT_MS,
  );

  it(
    'held on pull_request: success check run on the PR head (not the merge commit) and one marked PR comment',
    held('pull_request'),
    CASE_TIMEOUT_MS,
  );

  it.skipIf(!existsSync(NODE24))(
    `held on push under Node 24, as runs.using: node24 runs it${existsSync(NODE24) ? '' : ' (skipped: no Node 24 binary; set CHAOS_GATE_NODE24)'}`,
    held('push', NODE24),
    CASE_TIMEOUT_MS,
  );
});
