import { describe, expect, it } from 'vitest';
import { JOB_SUMMARY_LIMIT_BYTES, trimToLimit } from '../../src/report/limits.js';
import { jobSummary } from '../../src/action/run.js';

describe('trimming to GitHub limits', () => {
  it('leaves text that fits unchanged', () => {
    expect(trimToLimit('a\nb\n', 10, 'x')).toBe('a\nb\n');
  });

  it('cuts on a line boundary and says how much was cut', () => {
    const text = Array.from({ length: 100 }, (_, i) => `line ${i}`).join('\n');
    const out = trimToLimit(text, 400, 'check-run text');
    expect(out.length).toBeLessThanOrEqual(400);
    expect(out).toMatch(
      /line \d+\n\n---\n> ✂️ \*\*Trimmed:\*\* this check-run text was cut to GitHub's limit of 400 characters; \d+ characters are omitted/,
    );
    const kept = out.slice(0, out.indexOf('\n\n---'));
    expect(text.startsWith(kept)).toBe(true);
    expect(Number(/; ([\d,]+) characters/.exec(out)?.[1]?.replace(',', ''))).toBe(text.length - kept.length);
  });

  it('keeps a job summary of multi-byte text within 1 MiB of UTF-8', () => {
    const row = '| ✅ held | 0.9997 | ⚠ über |\n';
    const report = row.repeat(Math.ceil((JOB_SUMMARY_LIMIT_BYTES * 1.5) / Buffer.byteLength(row)));
    const out = jobSummary(report, [{ what: 'PR comment', notice: '> notice' }]);
    expect(Buffer.byteLength(out, 'utf8')).toBeLessThanOrEqual(JOB_SUMMARY_LIMIT_BYTES);
    expect(out.startsWith('> notice')).toBe(true);
    expect(out).toContain("this job summary was cut to GitHub's limit of 1,048,576 bytes");
    expect(out).not.toContain('\uFFFD');
  });
});
