/**
 * No timer in `src/` can overflow. Node holds a timer's delay in 32 bits: past 2³¹−1 ms it warns
 * (`TimeoutOverflowWarning`) and fires after 1 ms, which once turned every 30-day budget read into an
 * instant timeout. This reads every source file and fails on a raw `setTimeout`, `setInterval` or
 * `AbortSignal.timeout` whose delay is computed — neither a number nor a CONSTANT_NAME — unless the
 * delay is clamped (`clampTimerMs(…)`) or the file is listed below with why its delays stay small.
 * Long waits go through src/net/timer.ts (`longTimeout`, `sleepFor`), which chains timers.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');
const SRC = join(ROOT, 'src');

/** Files whose computed delays are bounded by their callers, each with the reason. */
const BOUNDED: Record<string, string> = {
  'src/net/timer.ts': 'the helper itself: every delay it arms is cut to MAX_TIMER_MS',
  'src/action/post-wiring.ts': 'its sleep is called with STOP_POLL_MS only',
  'src/injector/fis/kill-switch.ts': 'its default sleep is called with KILL_POLL_MS only',
};

const CALL = /\b(setTimeout|setInterval|AbortSignal\.timeout)\s*\(/g;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** The top-level arguments of the call whose `(` is at `open`. */
function argumentsAt(text: string, open: number): string[] {
  const args: string[] = [];
  let depth = 0;
  let current = '';
  for (let i = open + 1; i < text.length; i++) {
    const c = text[i] as string;
    if ('([{'.includes(c)) depth++;
    if (')]}'.includes(c)) {
      if (depth === 0) {
        args.push(current.trim());
        return args;
      }
      depth--;
    }
    if (c === ',' && depth === 0) {
      args.push(current.trim());
      current = '';
    } else current += c;
  }
  return args;
}

/** A delay that cannot overflow: a literal number, a CONSTANT, or a clamped expression. */
function safeDelay(delay: string | undefined): boolean {
  if (delay === undefined || delay === '') return true;
  return /^[\d_]+$/.test(delay) || /^[A-Z][A-Z0-9_]*$/.test(delay) || /^clampTimerMs\(/.test(delay);
}

function findings(): { file: string; line: number; call: string; delay: string }[] {
  const out: { file: string; line: number; call: string; delay: string }[] = [];
  for (const path of sources(SRC)) {
    const file = relative(ROOT, path);
    const text = readFileSync(path, 'utf8');
    for (const m of text.matchAll(CALL)) {
      const fn = m[1] as string;
      const args = argumentsAt(text, (m.index ?? 0) + m[0].length - 1);
      const delay = fn === 'AbortSignal.timeout' ? args[0] : args[1];
      if (safeDelay(delay)) continue;
      out.push({ file, line: text.slice(0, m.index).split('\n').length, call: fn, delay: delay ?? '' });
    }
  }
  return out;
}

describe('timers in src/', () => {
  it('no raw timer has a computed delay that could pass 2^31-1 ms', () => {
    const unsafe = findings().filter((f) => !(f.file in BOUNDED));
    expect(unsafe.map((f) => `${f.file}:${f.line}: ${f.call}(…, ${f.delay})`)).toEqual([]);
  });

  it('every file listed as bounded still has such a timer (the list does not go stale)', () => {
    const files = new Set(findings().map((f) => f.file));
    expect(Object.keys(BOUNDED).filter((f) => !files.has(f))).toEqual([]);
  });

  it('recognises a computed delay, and accepts literals, constants and clamped delays', () => {
    expect(safeDelay('ms')).toBe(false);
    expect(safeDelay('budget.window')).toBe(false);
    expect(safeDelay('Math.max(1, timeoutMs)')).toBe(false);
    expect(safeDelay('5_000')).toBe(true);
    expect(safeDelay('POLL_MS')).toBe(true);
    expect(safeDelay('clampTimerMs(ms)')).toBe(true);
  });
});
