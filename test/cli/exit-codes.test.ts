/**
 * One exit-code table: the README's, each command's `--help`, and docs/github.md for the action's
 * commands all say what `src/cli/exit-codes.ts` says.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commands } from '../../src/cli/commands/index.js';
import { COMMAND_EXIT_CODES, exitCodesHelp, usageMeaning, type ExitCodes } from '../../src/cli/exit-codes.js';

const ROOT = join(import.meta.dirname, '../..');

/** The rows of the first Markdown table after `heading`, as cells. */
function tableAfter(file: string, heading: RegExp): string[][] {
  const lines = readFileSync(join(ROOT, file), 'utf8').split('\n');
  const start = lines.findIndex((l) => heading.test(l));
  expect(start, `${file}: ${heading}`).toBeGreaterThanOrEqual(0);
  const first = lines.findIndex((l, i) => i > start && l.startsWith('|'));
  const rows: string[][] = [];
  for (let i = first + 2; i < lines.length && lines[i]?.startsWith('|'); i++) {
    rows.push(
      (lines[i] ?? '')
        .split('|')
        .slice(1, -1)
        .map((c) => c.trim()),
    );
  }
  return rows;
}

function expectedCells(codes: ExitCodes): string[] {
  return [codes[0], codes[1] ?? '–', usageMeaning(codes)];
}

describe('exit codes', () => {
  it('has a row for every command the CLI lists, and none for a command it does not', () => {
    expect(Object.keys(COMMAND_EXIT_CODES).sort()).toEqual(commands.map((c) => c.name).sort());
  });

  it("matches the README's exit-code table, row for row", () => {
    const rows = tableAfter('README.md', /^## Exit codes$/);
    expect(rows.map((r) => r[0])).toEqual(Object.keys(COMMAND_EXIT_CODES).map((n) => `\`${n}\``));
    for (const [name, codes] of Object.entries(COMMAND_EXIT_CODES) as [string, ExitCodes][]) {
      expect(rows.find((r) => r[0] === `\`${name}\``)?.slice(1), name).toEqual(expectedCells(codes));
    }
  });

  it("ends every command's --help with its row", async () => {
    for (const entry of commands) {
      const command = await entry.load();
      expect(command.usage, entry.name).toContain(
        exitCodesHelp(entry.name as keyof typeof COMMAND_EXIT_CODES),
      );
      expect(command.usage.match(/Exit code/g), entry.name).toHaveLength(1);
    }
  });

  it("gives the action's commands the CLI's codes in docs/github.md", () => {
    const rows = tableAfter('docs/github.md', /^## Commands$/);
    for (const name of ['run', 'plan', 'validate'] as const) {
      const row = rows.find((r) => r[0]?.startsWith(`\`${name}\``));
      expect(row?.slice(3), name).toEqual(expectedCells(COMMAND_EXIT_CODES[name]));
    }
  });

  it('wraps a long row at 100 columns', () => {
    for (const line of exitCodesHelp('kill').split('\n')) expect(line.length).toBeLessThanOrEqual(100);
    expect(exitCodesHelp('report')).toBe('Exit codes: 0 rendered; 2 an unreadable journal, or bad usage.');
  });
});
