/** Live progress: one line per measurement (`+12.0s fault  success_ratio 0.9991 ok  p95 0.142 ok  req 812`). */
import type { JournalEvent, Measurement } from '../journal/types.js';
import { formatValue } from '../journal/format.js';

/** Events worth a line of their own while a run goes. */
const LOUD_EVENTS = new Set([
  'steady-state',
  'inject',
  'expectation-observed',
  'first-breach',
  'abort',
  'stop-requested',
  'stop-verified',
  'stop-failed',
  'fault-ended',
  'recovery',
  'refused',
  'not-run',
  'error',
]);

/** One measurement as a single terminal line. */
export function formatTick(m: Measurement): string {
  const t = m.t ?? 0;
  const parts = [`${t < 0 ? '-' : '+'}${Math.abs(t).toFixed(1)}s`.padStart(8), m.phase.padEnd(8)];
  for (const [name, v] of Object.entries(m.slis)) parts.push(`${name} ${formatValue(v.value)} ${v.status}`);
  for (const [name, v] of Object.entries(m.expect ?? {}))
    parts.push(`${name} ${formatValue(v.value)}${v.status === 'ok' ? ' seen' : ''}`);
  if (m.requests !== null) parts.push(`req ${formatValue(m.requests)}`);
  return parts.join('  ');
}

/** An event as a progress line, or undefined for quiet ones. */
export function formatEvent(e: JournalEvent): string | undefined {
  if (!LOUD_EVENTS.has(e.type)) return undefined;
  return `         » ${e.type}: ${e.message}`;
}

/** Prints ticks and notable events; in the steady state only every `steadyEveryMs` (a long steady state stays short). */
export function progressPrinter(
  out: (line: string) => void,
  options: { steadyEveryMs?: number } = {},
): { onTick: (m: Measurement) => void; onEvent: (e: JournalEvent) => void } {
  let lastSteady = -Infinity;
  return {
    onTick(m) {
      if (m.phase === 'steady' && options.steadyEveryMs !== undefined) {
        if (m.at - lastSteady < options.steadyEveryMs) return;
        lastSteady = m.at;
      }
      out(formatTick(m));
    },
    onEvent(e) {
      const line = formatEvent(e);
      if (line !== undefined) out(line);
    },
  };
}
