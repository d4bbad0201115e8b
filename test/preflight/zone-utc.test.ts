/**
 * UTC, the zone a schedule defaults to, is computed from the UTC clock without a formatter (a first
 * `Intl.DateTimeFormat` with a time zone loads ICU's zone data). The fast path must agree with what the
 * formatter says for every instant, and other zones must still go through the formatter.
 */
import { describe, expect, it } from 'vitest';
import { formatLocal, isValidTimeZone, localTimeOf, offsetAt } from '../../src/preflight/zone.js';

/** What `Intl.DateTimeFormat` says the wall clock in `timeZone` shows at `ms`. */
function intlLocal(ms: number, timeZone: string): Record<string, number | string> {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    weekday: 'short',
  }).formatToParts(new Date(ms));
  const get = (t: string): string => parts.find((p) => p.type === t)?.value ?? '';
  return {
    year: Number(get('year')),
    month: Number(get('month')),
    day: Number(get('day')),
    hour: Number(get('hour')),
    minute: Number(get('minute')),
    second: Number(get('second')),
    weekday: get('weekday'),
  };
}

describe('UTC without a formatter', () => {
  it('accepts UTC and Etc/UTC as zones, and still refuses a name the runtime does not know', () => {
    expect(isValidTimeZone('UTC')).toBe(true);
    expect(isValidTimeZone('Etc/UTC')).toBe(true);
    expect(isValidTimeZone('Mars/Olympus_Mons')).toBe(false);
  });

  for (const zone of ['UTC', 'Etc/UTC']) {
    it(`${zone}: the local time of every instant is the one Intl reports, the weekday included`, () => {
      // Instants across leap days, year ends and a century, spaced by a prime number of seconds.
      const start = Date.UTC(1999, 11, 31, 22, 0, 0);
      for (let i = 0; i < 3000; i++) {
        const ms = start + i * 1_000_003_017 + (i % 1000);
        const { millisecond, ...fields } = localTimeOf(ms, zone);
        expect(fields, new Date(ms).toISOString()).toEqual(intlLocal(ms, zone));
        expect(millisecond).toBe(new Date(ms).getUTCMilliseconds());
        expect(offsetAt(ms, zone)).toBe(0);
      }
    });
  }

  it('renders a UTC time with a +00:00 offset, and a zone with DST through the formatter', () => {
    const ms = Date.UTC(2026, 2, 27, 15, 0, 0);
    expect(formatLocal(ms, 'UTC')).toBe('Fri 2026-03-27 15:00 +00:00');
    expect(formatLocal(ms, 'Europe/Berlin')).toBe('Fri 2026-03-27 16:00 +01:00');
    expect(formatLocal(Date.UTC(2026, 6, 1, 12, 0, 0), 'Europe/Berlin')).toBe('Wed 2026-07-01 14:00 +02:00');
  });
});
