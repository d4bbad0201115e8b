/**
 * Which test files share a worker's modules and which get fresh ones. Most of the suite's CPU outside the
 * sandboxes went to importing: with vitest's default isolation every file re-imports vitest, the helpers
 * and the sources it tests (transformed once, evaluated again per file). A file that starts no process —
 * no sandbox child, no `chaos-gate` or action child, no Prometheus, Chromium or moto — only calls the
 * sources in its own process, and those files run unisolated: one worker imports a module once for all
 * the files it runs. Files that start processes keep isolation (their time is the processes', and they
 * set up servers and environment a later file must not inherit).
 *
 * The split is read from the files themselves, so a new test lands on the right side without a list to
 * keep: a file that names one of {@link STARTS_PROCESSES} runs isolated. Files that change process-wide
 * state (process.env, the redactor's registrations) restore it in their own hooks, as they must anyway.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** What a test file calls when it starts a process or a sandbox (test/helpers and node:child_process). */
export const STARTS_PROCESSES =
  /\b(startSandbox\w*|startE2E|useLifecycleSandbox|brokenTest|startPrometheus\w*|chromium\w*|moto\w*|runCli|cliArgs|nodeArgs|bundledEntry|spawn\w*|execFile\w*|exec|fork)\b/i;

/** Test files under `dir` (relative to `root`, `/`-separated), recursively. */
function testFiles(root: string, dir: string): string[] {
  return readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = `${dir}/${e.name}`;
    if (e.isDirectory()) return testFiles(root, rel);
    return e.name.endsWith('.test.ts') ? [rel] : [];
  });
}

/** The suite's test files, split into those that start processes and those that do not. */
export function splitTestFiles(root: string): { inProcess: string[]; startsProcesses: string[] } {
  const inProcess: string[] = [];
  const startsProcesses: string[] = [];
  for (const file of testFiles(root, 'test')) {
    (STARTS_PROCESSES.test(readFileSync(path.join(root, file), 'utf8')) ? startsProcesses : inProcess).push(
      file,
    );
  }
  return { inProcess, startsProcesses };
}
