/**
 * The bundled action under the runner lifecycle (./world.ts) with a plan whose title, service,
 * environment and owner carry workflow commands, mentions, HTML and Markdown blocks: the step's stdout,
 * read as the runner reads it, issues only chaos-gate's own commands, and the job summary and the check
 * run have exactly the layout of the same run with ordinary text.
 */
import { describe, expect, it } from 'vitest';
import {
  checkRunsOf,
  newCase,
  logOf,
  FORBIDDEN_PLAN,
  CASE_TIMEOUT_MS,
  useLifecycleSandbox,
} from './world.js';
import {
  MENTION,
  PAYLOADS,
  RAW_HTML,
  markdownShape,
  outsideCode,
  parseRunnerLine,
  runnerLines,
} from '../security/hostile.js';

useLifecycleSandbox();

const HOSTILE = PAYLOADS.join('\n');

/** The refused plan with `text` in every free-text field (a JSON string is a YAML double-quoted one). */
function planWith(text: string): string {
  const quoted = (prefix: string): string => JSON.stringify(`${prefix}${text}`);
  return FORBIDDEN_PLAN.replace(/^title: .*$/m, `title: ${quoted('A partition ')}`)
    .replace(/^service: .*$/m, `service: ${quoted('')}`)
    .replace(/^environment: .*$/m, `environment: ${quoted('')}`)
    .replace(/^owner: .*$/m, `owner: ${quoted('')}`);
}

/** What chaos-gate itself writes as commands through `@actions/core`. */
const OURS = new Set(['group', 'endgroup', 'error', 'warning', 'notice', 'add-mask']);

async function refusedRun(name: string, text: string) {
  const c = await newCase(name, 'push', { plan: planWith(text) });
  const main = await c.job.runMain();
  expect(main.code, logOf(main)).toBe(2);
  const runs = await checkRunsOf(c);
  expect(runs).toHaveLength(1);
  return { main, summary: c.job.summary(), check: runs[0]!.output };
}

describe.sequential('the bundled action with hostile plan text (sandbox)', () => {
  it(
    'issues only its own workflow commands and keeps the layout of the job summary and the check run',
    async () => {
      const plain = await refusedRun('untrusted-plain', 'ordinary');
      const hostile = await refusedRun('untrusted-hostile', HOSTILE);

      const commands = runnerLines(hostile.main.stdout).flatMap((l) => parseRunnerLine(l) ?? []);
      expect(
        commands.filter((c) => !OURS.has(c.command)),
        logOf(hostile.main),
      ).toEqual([]);
      // The masks are the token's (registered secrets), none of the plan's text.
      for (const mask of commands.filter((c) => c.command === 'add-mask'))
        expect(mask.data).not.toMatch(/hunter2/);
      expect(commands.filter((c) => c.command === 'error')).toHaveLength(1);

      for (const [what, md, base] of [
        ['job summary', hostile.summary, plain.summary],
        ['check-run summary', hostile.check.summary ?? '', plain.check.summary ?? ''],
        ['check-run text', hostile.check.text ?? '', plain.check.text ?? ''],
      ] as const) {
        if (what !== 'check-run text') expect(md, what).toContain('hunter2');
        expect(markdownShape(md), what).toEqual(markdownShape(base));
        const text = outsideCode(md);
        expect(text.match(RAW_HTML)?.length ?? 0, what).toBe(outsideCode(base).match(RAW_HTML)?.length ?? 0);
        expect(text.match(MENTION), what).toBeNull();
      }
    },
    2 * CASE_TIMEOUT_MS,
  );

  it(
    'quotes an invalid plan value in its refusal without the runner reading a legacy command in it',
    async () => {
      const plan = FORBIDDEN_PLAN.replace(
        /^id: .*$/m,
        `id: ${JSON.stringify('x ##[add-mask]hunter2 ##[set-output name=verdict]held')}`,
      );
      const c = await newCase('untrusted-id', 'push', { plan });
      const main = await c.job.runMain();
      expect(main.code, logOf(main)).toBe(2);
      // The refusal names the value (the reader needs it), in the log and the annotation.
      expect(main.stdout.replaceAll('\u200b', '')).toContain('##[add-mask]hunter2');
      const commands = runnerLines(main.stdout).flatMap((l) => parseRunnerLine(l) ?? []);
      expect(
        commands.filter((c) => !OURS.has(c.command)),
        logOf(main),
      ).toEqual([]);
      for (const mask of commands.filter((c) => c.command === 'add-mask'))
        expect(mask.data).not.toMatch(/hunter2/);
      expect(c.job.outputs().verdict).toBe('refused');
    },
    CASE_TIMEOUT_MS,
  );
});
