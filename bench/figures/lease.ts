/**
 * Runner SIGKILLed → FIS stopped by the lease: a `chaos-gate run` child is SIGKILLed while its fault is
 * running, so nothing can send StopExperiment; the figure is the time until the stand-in reports the
 * experiment stopped, and only stops caused by the plan's lease alarm count.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { leaseAlarmName } from '../../src/injector/fis/alarms.js';
import { parseJournal } from '../../src/journal/read.js';
import type { RunningSandbox } from '../../test/helpers/sandbox.js';
import { measured, notMeasured, type FigureResult } from '../lib/stats.js';
import {
  actionsOf,
  experimentRecord,
  fisClient,
  pollFor,
  startRun,
  tempDir,
  writePlan,
} from '../lib/world.js';

/** docs/design/targets.md, docs/design/run.md#the-lease: the lease stops a dead runner's fault within 30 s. */
export const LEASE_TARGET_MS = 30_000;
/** How long to wait for the run to reach a running fault (start, steady state, lease warm-up). */
const REACH_FAULT_MS = 60_000;
/** How long to wait for the lease to stop the fault: twice the target, so a slow stop is still measured. */
const WAIT_STOP_MS = 2 * LEASE_TARGET_MS;

function experimentIdOf(journalPath: string): string | undefined {
  if (!existsSync(journalPath)) return undefined;
  try {
    return parseJournal(readFileSync(journalPath, 'utf8'), journalPath).experimentId;
  } catch {
    return undefined;
  }
}

/** `repetitions` runs SIGKILLed during the fault. */
export async function benchLease(
  sandbox: RunningSandbox,
  repetitions: number,
  log: (line: string) => void,
): Promise<FigureResult> {
  const base = {
    id: 'sigkill-to-lease-stop',
    figure: 'runner SIGKILLed → FIS stopped by the lease',
    unit: 'ms',
    method:
      'chaos-gate run child SIGKILLed while the FIS action runs → experiment endTime in the stand-in, stopped by the lease alarm',
  };
  const target = { max: LEASE_TARGET_MS, text: `≤ ${LEASE_TARGET_MS / 1000} s` };
  const samples: number[] = [];
  const problems: string[] = [];
  const fis = fisClient(sandbox.urls);
  const dir = tempDir();
  try {
    for (let i = 0; i < repetitions; i++) {
      const id = `bench-lease-${Date.now().toString(36)}-${i}`;
      const plan = writePlan(dir, {
        id,
        steady: '5s',
        actionDuration: 'PT120S',
        maxActionDuration: '120s',
        maxRunDuration: '10m',
      });
      const journalPath = path.join(dir, `${id}.journal.json`);
      const run = startRun(plan, sandbox.urls, { journalPath });
      try {
        const experimentId = await pollFor(
          async () => {
            const eid = experimentIdOf(journalPath);
            if (!eid) return undefined;
            const running = (await actionsOf(sandbox.admin, eid)).some((a) => a.endTime === null);
            return running ? eid : undefined;
          },
          REACH_FAULT_MS,
          50,
        );
        if (!experimentId) {
          problems.push(`run ${i + 1}: the fault was not running within ${REACH_FAULT_MS / 1000} s`);
          continue;
        }
        const killedAt = Date.now();
        run.kill('SIGKILL');
        await run.done;
        const record = await pollFor(
          async () => {
            const r = await experimentRecord(fis, experimentId);
            return r.endTime !== undefined ? r : undefined;
          },
          WAIT_STOP_MS,
          250,
        );
        if (!record?.endTime) {
          problems.push(
            `run ${i + 1}: experiment ${experimentId} still not stopped ${WAIT_STOP_MS / 1000} s after SIGKILL`,
          );
          continue;
        }
        if (record.status !== 'stopped' || !record.reason.includes(leaseAlarmName(id))) {
          problems.push(
            `run ${i + 1}: experiment ended ${record.status} (${record.reason}), not by the lease`,
          );
          continue;
        }
        samples.push(record.endTime - killedAt);
        log(
          `  run ${i + 1}/${repetitions}: SIGKILL → stopped by the lease in ${(samples.at(-1)! / 1000).toFixed(1)} s`,
        );
      } finally {
        run.kill('SIGKILL');
        await run.done;
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return samples.length > 0
    ? measured({ ...base, details: { problems } }, samples, target)
    : notMeasured(base, target.text, problems.join('; ') || 'no run reached its fault');
}
