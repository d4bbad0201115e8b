/**
 * The action's lifecycle as the GitHub runner drives it (./world.ts). A cancelled run (SIGINT handled;
 * StopExperiment hanging through the runner's escalation): the post step verifies the stop and completes
 * the check run as cancelled.
 */
import { describe, expect, it } from 'vitest';
import {
  awsRequests,
  rejectedRequests,
  liveExperiments,
  newCase,
  checkRunsOf,
  fisStatus,
  fisActions,
  logOf,
  CASE_TIMEOUT_MS,
  sandbox,
  type Event,
  useLifecycleSandbox,
} from './world.js';

useLifecycleSandbox();

describe.sequential('the bundled action cancelled, under the runner lifecycle (sandbox)', () => {
  /**
   * `graceful`: the main step handles SIGINT (the engine asks FIS to stop) and exits within 7.5 s.
   * `hung`: StopExperiment hangs in the stand-in, so the main step cannot stop FIS; the post step must.
   */
  const cancelled = (event: Event, mode: 'graceful' | 'hung') => async () => {
    const c = await newCase(`cancel-${mode}`, event);
    if (mode === 'hung')
      await sandbox().admin.send('POST', '/faults', {
        service: 'fis',
        operation: 'StopExperiment',
        kind: 'latency',
        latencyMs: 30_000,
        count: 1,
      });
    try {
      // Cancel mid-fault: the experiment id is saved and FIS is running the partition.
      const main = await c.job.runMainCancelled(async (s) => {
        const saved = s['experiment-id'];
        return saved !== undefined && (await fisActions(saved)).some((a) => a.endedAs === null);
      });
      const id = c.job.savedState()['experiment-id'] ?? '';
      expect(id).toMatch(/^EXP\w+$/);
      // A cancelled run is not a finished one: the post step must act.
      expect(c.job.savedState().finished).toBeUndefined();
      if (mode === 'graceful') {
        // The main step handled SIGINT itself: the engine stopped FIS and recorded why.
        expect(main.signalsSent, logOf(main)).toEqual(['SIGINT']);
        expect(main.signal).toBeNull();
        expect(c.job.outputs()).toMatchObject({ verdict: 'aborted', 'experiment-id': id });
        expect(c.job.outputs().reason).toMatch(/cancelled by SIGINT/);
      } else {
        // StopExperiment hangs, so the main step lives through SIGINT and SIGTERM and is killed. Within its
        // cancel budget it escalates (heartbeats withheld, the lease alarm forced), so FIS may already be
        // stopping the experiment by its stop condition; either way the post step must verify the stop.
        expect(main.signalsSent, logOf(main)).toEqual(['SIGINT', 'SIGTERM', 'SIGKILL']);
        expect(main.signal).toBe('SIGKILL');
      }
      // The main step created the check run before preflight and left its completion to the post step.
      expect(await checkRunsOf(c)).toEqual([
        expect.objectContaining({ head_sha: c.checkSha, status: 'in_progress', conclusion: null }),
      ]);
      const stopsBefore = (await awsRequests(c.since)).filter((r) => r.operation === 'StopExperiment').length;

      const post = await c.job.runPost();
      expect(post.code, logOf(post)).toBe(0);
      expect(post.stdout).toContain(`Experiment \`${id}\`: stop verified`);
      // The post step sent its own StopExperiment for the saved id.
      const stops = (await awsRequests(c.since)).filter((r) => r.operation === 'StopExperiment');
      expect(stops.length).toBeGreaterThan(stopsBefore);
      expect(stops.at(-1)?.path).toBe(`/experiments/${id}`);

      expect(await liveExperiments()).toEqual([]);
      expect(await fisStatus(id)).toBe('stopped');
      expect((await fisActions(id)).map((a) => a.endedAs)).toEqual(['stopped']);

      const runs = await checkRunsOf(c);
      expect(runs).toHaveLength(1);
      expect(runs[0]).toMatchObject({ head_sha: c.checkSha, status: 'completed', conclusion: 'cancelled' });
      expect(runs[0]?.output.summary).toContain('stop verified');
      expect(await rejectedRequests()).toEqual([]);
    } finally {
      await sandbox().admin.send('DELETE', '/faults');
    }
  };

  it(
    'cancelled on push: SIGINT mid-run, the post step verifies the stop and completes the check run as cancelled',
    cancelled('push', 'graceful'),
    CASE_TIMEOUT_MS,
  );
  it(
    'cancelled on pull_request: the cancelled check run is on the PR head',
    cancelled('pull_request', 'graceful'),
    CASE_TIMEOUT_MS,
  );
  it(
    'cancelled while StopExperiment hangs (push): the runner escalates and the post step stops the live experiment',
    cancelled('push', 'hung'),
    CASE_TIMEOUT_MS,
  );
  it(
    'cancelled while StopExperiment hangs (pull_request): same, check run cancelled on the PR head',
    cancelled('pull_request', 'hung'),
    CASE_TIMEOUT_MS,
  );
});
