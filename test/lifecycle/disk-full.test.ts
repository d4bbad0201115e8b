/**
 * The disk fills mid-fault (issue 26 item 7), under the runner lifecycle (./world.ts): the bundled main
 * step runs with a file-size limit (RLIMIT_FSIZE, SIGXFSZ ignored, so a write past it fails with EFBIG as
 * a full disk fails with ENOSPC — and, unlike a read-only directory, it binds root too). The journal's
 * writes fail once it outgrows the limit while the fault is on. The run must stop the fault itself —
 * the sandbox's request log shows the runner's StopExperiment and FIS's state says it was stopped, not by
 * the lease — end `failed` naming the journal, and the post step then finds nothing left to stop.
 */
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { readJournal } from '../../src/journal/read.js';
import { describe, expect, it } from 'vitest';
import {
  awsRequests,
  checkRunsOf,
  CASE_TIMEOUT_MS,
  fisStatus,
  logOf,
  newCase,
  sandbox,
  useLifecycleSandbox,
} from './world.js';

useLifecycleSandbox();

/** Bytes a file of the main step may grow to: past the header and the steady state, inside the fault. */
const FILE_LIMIT_BYTES = Number(process.env.CHAOS_GATE_DISK_FULL_BYTES ?? 13 * 1024);

describe.sequential('the bundled action when the disk fills mid-fault (sandbox)', () => {
  it(
    'stops the fault itself, ends failed naming the journal, and leaves the post step nothing to stop',
    async () => {
      await sandbox().admin.send('PUT', '/canary', { fallback: true });
      const dir = mkdtempSync(path.join(tmpdir(), 'chaos-gate-disk-full-'));
      const wrapper = path.join(dir, 'node-with-file-limit');
      // Not a shell script: sh drops the `INPUT_GITHUB-TOKEN`-style variables the runner passes.
      writeFileSync(
        wrapper,
        [
          '#!/usr/bin/env python3',
          'import os, resource, signal, sys',
          'signal.signal(signal.SIGXFSZ, signal.SIG_IGN)',
          `resource.setrlimit(resource.RLIMIT_FSIZE, (${FILE_LIMIT_BYTES}, ${FILE_LIMIT_BYTES}))`,
          `os.execv(${JSON.stringify(process.execPath)}, [${JSON.stringify(process.execPath)}] + sys.argv[1:])`,
          '',
        ].join('\n'),
      );
      chmodSync(wrapper, 0o755);
      const c = await newCase('disk-full', 'push', { node: wrapper });
      const main = await c.job.runMain();
      const log = logOf(main);
      expect(main.code, log).toBe(1);
      const out = c.job.outputs();
      expect(out.verdict, log).toBe('failed');
      expect(out.reason).toContain('cannot write the journal');
      const id = out['experiment-id'] ?? '';
      expect(id).toMatch(/^EXP\w+$/);
      // The runner's own StopExperiment ended it, and FIS says so (not the lease's stop condition).
      const stops = (await awsRequests(c.since)).filter((r) => r.operation === 'StopExperiment');
      expect(stops.map((r) => [r.path, r.status])).toContainEqual([`/experiments/${id}`, 200]);
      expect(await fisStatus(id)).toBe('stopped');
      const runs = await checkRunsOf(c);
      expect(
        runs.map((r) => [r.status, r.conclusion]),
        log
          .split('\n')
          .filter((l) => /check run|GitHub/i.test(l))
          .join('\n'),
      ).toEqual([['completed', 'failure']]);
      // The fault was on when the journal filled: the abort names the journal, before the stop request.
      expect(log).toMatch(/» abort: cannot write the journal .*: stopping the fault \(\+\d/);
      // The whole journal did not fit either: the file keeps the readable prefix (header, the fault's
      // ticks up to the limit), and the step log says where the journal could not be written.
      const onDisk = readJournal(out.journal ?? '');
      expect(onDisk.complete).toBe(false);
      expect(onDisk.experimentId).toBe(id);
      expect(log).toMatch(/the journal could not be written to \S+journal\.json \(.*file too large/);
      const post = await c.job.runPost();
      expect(post.code, logOf(post)).toBe(0);
    },
    CASE_TIMEOUT_MS,
  );
});
