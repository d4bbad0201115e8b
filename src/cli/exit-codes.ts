/**
 * What each command's exit code means: the one table the README prints ("Exit codes"), every `--help`
 * ends with, and docs/github.md repeats for the action's commands. A test keeps the three in step.
 * The codes follow the verdicts: 0 success, 1 the gate did not pass (or a check found a problem),
 * 2 refused, invalid or unreadable input — and always bad usage (an unknown option, a missing argument).
 */

/** One command's exit codes; 2 always also means bad usage. */
export interface ExitCodes {
  0: string;
  1?: string;
  2?: string;
}

export const COMMAND_EXIT_CODES = {
  run: {
    0: 'held',
    1: 'deviated, aborted, inconclusive, not-run or failed',
    2: 'refused; failed for a missing or unusable setting; or an invalid or unreadable plan or policy',
  },
  plan: {
    0: 'not refused (the review names when it may run)',
    2: 'refused, a missing or unusable setting (with --resolve), or an invalid or unreadable plan or policy',
  },
  validate: { 0: 'valid and nothing refused', 2: 'refused, or an invalid or unreadable plan or policy' },
  simulate: {
    0: 'held',
    1: 'deviated, aborted, inconclusive, not-run or failed',
    2: 'refused, or an invalid or unreadable plan or scenario',
  },
  report: { 0: 'rendered', 2: 'an unreadable journal' },
  history: { 0: 'rendered', 2: 'an unreadable journal, plan file or artifact' },
  demo: {
    0: 'both verdicts as expected (with --simulated: held)',
    1: "otherwise (with --simulated: the verdict's code)",
    2: 'an unreadable plan or scenario',
  },
  measure: {
    0: 'every SLI ok',
    1: 'a breach, no-data or an error reading',
    2: 'a missing or unusable setting (no Prometheus URL for its PromQL), or an invalid or unreadable plan',
  },
  scan: { 0: 'scanned', 2: 'an unreadable journal or request log' },
  model: { 0: 'the model predicts the gate passes', 1: 'it predicts the gate fails' },
  sandbox: { 0: 'stopped by SIGINT or SIGTERM', 1: 'it could not start', 2: 'an unreadable config' },
  init: { 0: 'written (or printed)', 2: 'an FIS action chaos-gate does not know, a name that is not a slug' },
  import: { 0: 'written', 2: 'an unreadable file, not a template, or no such template' },
  kill: {
    0: 'every live experiment verified stopped (--release: the switch released; --status: it is released)',
    1: 'an experiment not verified stopped (--release: not released; --status: it is engaged)',
  },
} as const satisfies Record<string, ExitCodes>;

export type CommandName = keyof typeof COMMAND_EXIT_CODES;

/** The meaning of code 2, bad usage included. */
export function usageMeaning(codes: ExitCodes): string {
  return codes[2] === undefined ? 'bad usage' : `${codes[2]}, or bad usage`;
}

/** The `Exit codes:` paragraph of a command's `--help`, wrapped at `width` columns. */
export function exitCodesHelp(name: CommandName, width = 100): string {
  const codes: ExitCodes = COMMAND_EXIT_CODES[name];
  const parts = [`0 ${codes[0]}`, ...(codes[1] ? [`1 ${codes[1]}`] : []), `2 ${usageMeaning(codes)}`];
  const words = `Exit codes: ${parts.join('; ')}.`.split(' ');
  const lines: string[] = [];
  let line = '';
  for (const word of words) {
    if (line !== '' && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  if (line !== '') lines.push(line);
  return lines.join('\n');
}
