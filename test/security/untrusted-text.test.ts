/**
 * The two neutralisers on every hostile string (test/security/hostile.ts): `forLog`/`logLines` leave the
 * runner nothing to execute, `mdText`/`mdCell`/`mdCode`/`mdCodeBlock` leave Markdown nothing to render but
 * the text. The readers are checked first on the raw payloads, so an assertion that they find nothing
 * later means something.
 */
import { describe, expect, it } from 'vitest';
import { forLog, isWorkflowCommand, logLines } from '../../src/security/log-text.js';
import { mdCell, mdCode, mdCodeBlock, mdText } from '../../src/security/markdown-text.js';
import {
  MENTION,
  PAYLOADS,
  RAW_HTML,
  REFERENCE,
  cellSeparators,
  hostileStrings,
  markdownShape,
  parseRunnerLine,
  runnerLines,
} from './hostile.js';

const HOSTILE = hostileStrings();

describe('the readers find what the raw payloads would do', () => {
  it('parses the raw workflow commands as the runner would, at a line start and (legacy) anywhere', () => {
    const commands = HOSTILE.flatMap(runnerLines).flatMap((l) => parseRunnerLine(l) ?? []);
    const names = new Set(commands.map((c) => c.command));
    for (const name of ['add-mask', 'error', 'stop-commands', 'warning', 'notice', 'set-output'])
      expect(names, name).toContain(name);
    expect(isWorkflowCommand('  ::add-mask::x')).toBe(true);
    expect(isWorkflowCommand('\u0085::add-mask::x')).toBe(true);
    expect(isWorkflowCommand('a ##[error]b')).toBe(true);
  });

  it('sees raw HTML, mentions, references and extra table cells in the raw payloads', () => {
    const all = PAYLOADS.join('\n');
    expect(all.match(RAW_HTML)?.length).toBeGreaterThan(5);
    expect(all.match(MENTION)?.length).toBeGreaterThanOrEqual(2);
    expect(all.match(REFERENCE)?.length).toBeGreaterThanOrEqual(1);
    expect(cellSeparators('| a | b \\| c |')).toBe(3);
    expect(markdownShape(`| x | ${'a | b'} |`)).toEqual(['row4']);
  });
});

describe('forLog: an untrusted value inside one of our log lines', () => {
  it('stays on its line and carries no workflow command, wherever in the line it is placed', () => {
    for (const h of HOSTILE) {
      for (const line of [forLog(h), `  ${forLog(h)}`, `chaos-gate: aborted — ${forLog(h)}`]) {
        const lines = runnerLines(line);
        expect(lines, JSON.stringify(h)).toHaveLength(1);
        expect(parseRunnerLine(line), JSON.stringify(h)).toBeUndefined();
        // eslint-disable-next-line no-control-regex
        expect(line).not.toMatch(/[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u2028\u2029]/);
      }
    }
  });

  it('keeps the text readable: line breaks spelled out, ordinary text unchanged', () => {
    expect(forLog('server returned HTTP 503: upstream timeout')).toBe(
      'server returned HTTP 503: upstream timeout',
    );
    expect(forLog('a\nb\r\nc\rd')).toBe('a\\nb\\r\\nc\\rd');
    expect(forLog('\u001b[31mred')).toBe('\\u001b[31mred');
    // The marker is broken by an invisible character; what a reader sees is the text as sent.
    expect(forLog('::add-mask::x').replaceAll('\u200b', '')).toBe('::add-mask::x');
  });
});

describe('logLines: whatever reaches stdout', () => {
  it('keeps every line of the text but no line issues a command', () => {
    for (const h of HOSTILE) {
      const out = logLines(h);
      expect(runnerLines(out), JSON.stringify(h)).toHaveLength(runnerLines(h).length);
      for (const line of runnerLines(out))
        expect(parseRunnerLine(line), JSON.stringify(line)).toBeUndefined();
      expect(out.replaceAll('\u200b', '')).toBe(h);
    }
  });

  it('leaves our own lines as they are', () => {
    const ours =
      '               » abort: p95_latency_s 0.52 > 0.5 for 3 measurements\nchaos-gate: aborted — why';
    expect(logLines(ours)).toBe(ours);
  });
});

describe('mdText, mdCell, mdCode: an untrusted value in Markdown', () => {
  it('adds no line, HTML, mention, reference or table cell, in a cell, a heading, a quote or a line start', () => {
    for (const h of HOSTILE) {
      const name = JSON.stringify(h);
      const rendered = [
        `## ✅ held — ${mdText(h)}`,
        '',
        `> ${mdText(h)}`,
        '',
        mdText(h),
        '',
        '<details><summary>Event trace</summary>',
        '',
        '| time | event | message |',
        '|---|---|---|',
        `| +1.0 s | error | ${mdCell(h)} |`,
        `| +2.0 s | error | ${mdCode(h)} |`,
        '',
        '</details>',
      ].join('\n');
      const benign = rendered
        .replaceAll(mdText(h), 'plain')
        .replaceAll(mdCell(h), 'plain')
        .replaceAll(mdCode(h), 'plain');
      expect(markdownShape(rendered), name).toEqual(markdownShape(benign));
      expect(markdownShape(rendered), name).toEqual([
        'heading2',
        'blank',
        'quote',
        'blank',
        'text',
        'blank',
        'html:<details',
        'blank',
        'row4',
        'row4',
        'row4',
        'row4',
        'blank',
        'html:</details',
      ]);
      for (const value of [mdText(h), mdCell(h)]) {
        expect(value.match(RAW_HTML), name).toBeNull();
        expect(value.match(MENTION), name).toBeNull();
        expect(value.match(REFERENCE), name).toBeNull();
        // Inline syntax: every backtick, star, tilde, bracket and dollar is escaped.
        expect(value.replace(/\\[\\`*~[\]$_#>+=.)-]/g, '')).not.toMatch(/[`*~[\]$\\]/);
      }
    }
  });

  it('renders ordinary text as written', () => {
    expect(mdText('Checkout survives a Redis primary partition')).toBe(
      'Checkout survives a Redis primary partition',
    );
    expect(mdCell('success_ratio <= 0.18')).toBe('success_ratio <= 0.18');
    expect(mdCell('>= 0.998')).toBe('>= 0.998');
    expect(mdText('>= 0.998')).toBe('\\>= 0.998');
    expect(mdCode('arn:aws:ec2:eu-west-1:123456789012:subnet/subnet-0a1b')).toBe(
      '`arn:aws:ec2:eu-west-1:123456789012:subnet/subnet-0a1b`',
    );
  });

  it('breaks mentions and references with a zero-width space, the text otherwise intact', () => {
    expect(mdText('@octo-org/sre')).toBe('@\u200bocto-org/sre');
    expect(mdText('fixes #12')).toBe('fixes #\u200b12');
    expect(mdText('#12 at a line start')).toBe('\\#\u200b12 at a line start');
    expect(mdText('mail a@b')).toBe('mail a@\u200bb');
  });

  it('writes a code span that no backtick in the value can end', () => {
    expect(mdCode('a ``b`` c')).toBe('```a ``b`` c```');
    expect(mdCode('`x`')).toBe('`` `x` ``');
    // A pipe cannot ride in a code span inside a table (GitHub splits the cell on it): escaped text instead.
    expect(mdCode('a|b')).toBe('a&#124;b');
  });

  it('fences a block with a fence longer than any in the text, so no line of it closes the block', () => {
    const text = 'line 1\n```\n</details>\n````';
    const block = mdCodeBlock(text);
    const fence = block.split('\n')[0]!;
    expect(fence).toBe('`````');
    expect(
      block
        .split('\n')
        .slice(1, -1)
        .some((l) => l.startsWith(fence)),
    ).toBe(false);
    expect(block.split('\n').at(-1)).toBe(fence);
  });
});
