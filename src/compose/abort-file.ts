/**
 * The abort file: a human's stop button (`--abort-file`, the action's `ABORT` beside the journal). Its
 * appearance aborts the run on the next tick. The front door supplies it as a mid-run check, so the
 * engine asks a question and never looks at a disk.
 */
import { existsSync } from 'node:fs';
import type { MidRunCheck } from '../engine/gates.js';

/** A `tick` mid-run check that finds `path` once it exists; journaled with the cause `abort-file`. */
export function abortFileCheck(path: string): MidRunCheck {
  return {
    name: 'abort-file',
    cadence: 'tick',
    async check() {
      return existsSync(path) ? `abort file ${path} found` : null;
    },
  };
}

/** The mid-run checks of a run with an optional abort file: the file's check first, then `checks`. */
export function withAbortFile(path: string | undefined, checks: readonly MidRunCheck[] = []): MidRunCheck[] {
  return path === undefined ? [...checks] : [abortFileCheck(path), ...checks];
}
