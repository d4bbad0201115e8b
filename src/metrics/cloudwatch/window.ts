/**
 * Which span of time a CloudWatch reading covers (issue 12.4). A tick at `at` must not read the period
 * that is still filling: CloudWatch only shows a datapoint once its publisher has sent it and CloudWatch
 * has ingested it, so the newest period is empty or partial, and a partial request count makes a healthy
 * service look starved (`minRequests`). The reading therefore covers whole periods that ended at least an
 * ingestion allowance before `at`, on the grid CloudWatch itself lays its periods on.
 */

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/**
 * Default allowance for sub-minute (high-resolution) periods. Only custom metrics are stored at high
 * resolution, and their publisher calls PutMetricData itself, typically once a second or so; AWS
 * documents no visibility latency for it, and in practice such data can be read within a few seconds.
 * 5 s covers a publisher that flushes every second plus the round trip, while adding only 5 s to
 * detection. Publishers that batch longer (the CloudWatch agent flushes every 60 s unless
 * `force_flush_interval` is lowered; embedded metric format goes through CloudWatch Logs first) need
 * `ingestionDelay` raised to their flush interval.
 */
export const HIGH_RESOLUTION_INGESTION_ALLOWANCE_MS = 5 * SECOND;

/**
 * Default allowance for periods of a minute or more, which is what AWS service metrics (`AWS/…`) are
 * read at. Those are aggregated by the publishing service and delivered some time after their minute
 * ends; AWS documents no figure, and the delay commonly observed for one-minute service metrics is
 * about two minutes, so a shorter default would regularly read a minute that is not complete yet.
 */
export const STANDARD_INGESTION_ALLOWANCE_MS = 2 * MINUTE;

/** CloudWatch keeps sub-minute (high-resolution) datapoints for 3 hours only (docs/design/cloudwatch.md#getmetricdata). */
export const HIGH_RESOLUTION_RETENTION_MS = 3 * HOUR;

/**
 * Why CloudWatch would answer a window with no datapoints for this period, or undefined when it can
 * answer. Older data is only kept rolled up (docs/design/cloudwatch.md#getmetricdata: sub-minute data 3 hours, one-minute data
 * 15 days, five-minute data 63 days), and a period finer than what is kept returns nothing at all —
 * which would read as "no traffic" (or a short sum) instead of as the plan mistake it is.
 */
export function retentionProblem(periodMs: number, startAgeMs: number): string | undefined {
  const tiers: Array<[age: number, multiple: number, kept: string]> = [
    [63 * DAY, HOUR, 'data older than 63 days only as 1-hour'],
    [15 * DAY, 5 * MINUTE, 'data older than 15 days only as 5-minute'],
    [HIGH_RESOLUTION_RETENTION_MS, MINUTE, 'sub-minute data only 3 hours; older data as 1-minute'],
  ];
  for (const [age, multiple, kept] of tiers) {
    if (startAgeMs > age && periodMs % multiple !== 0) {
      return `CloudWatch keeps ${kept} datapoints, so a period of ${periodMs / SECOND} s cannot read a window that starts ${Math.round(startAgeMs / SECOND)} s back; use a multiple of ${multiple / SECOND} s`;
    }
  }
  return undefined;
}

/** The ingestion allowance a query of this period gets unless its spec sets `ingestionDelay`. */
export function defaultIngestionAllowanceMs(periodMs: number): number {
  return periodMs < MINUTE ? HIGH_RESOLUTION_INGESTION_ALLOWANCE_MS : STANDARD_INGESTION_ALLOWANCE_MS;
}

/**
 * The unit GetMetricData rounds StartTime down to, and so the grid its periods are laid on (docs/design/cloudwatch.md#getmetricdata): a sub-minute period's own length (5 s periods start at :00, :05, …); otherwise the minute,
 * five minutes once StartTime is 15 days old, the hour once it is 63 days old.
 */
export function startRoundingMs(periodMs: number, startAgeMs: number): number {
  if (periodMs < MINUTE) return periodMs;
  if (startAgeMs < 15 * DAY) return MINUTE;
  if (startAgeMs < 63 * DAY) return 5 * MINUTE;
  return HOUR;
}

function gcd(a: number, b: number): number {
  let x = a;
  let y = b;
  while (y !== 0) [x, y] = [y, x % y];
  return x;
}

function lcm(values: readonly number[]): number {
  return values.reduce((acc, v) => (acc / gcd(acc, v)) * v, 1);
}

/** What {@link completePeriodsWindow} needs. */
export interface WindowRequest {
  /** The tick's time (ms since the epoch). */
  at: number;
  /** The tick's window (the plan's interval, or a budget window). */
  windowMs: number;
  /** The period of every query sent in the same GetMetricData call (ms, whole seconds). */
  periodsMs: readonly number[];
  /** How long after a period ends its data may still be arriving (ms). */
  allowanceMs: number;
}

/** `[startMs, endMs)`: GetMetricData's StartTime (inclusive) and EndTime (exclusive). */
export interface CompletePeriodsWindow {
  startMs: number;
  endMs: number;
  /** The grid both ends lie on. */
  gridMs: number;
}

/**
 * The newest window of whole periods that has been complete for at least `allowanceMs` at `at`:
 * - it ends on the period grid, at the last grid point at or before `at − allowanceMs` (a grid point
 *   exactly there counts: its allowance has fully passed);
 * - it is a whole number of every query's periods (all queries of a tick share one call and so one
 *   StartTime/EndTime) and at least `windowMs` long; a window shorter than a period is one period;
 * - its start lies on the grid too, so CloudWatch's own StartTime rounding moves nothing.
 */
export function completePeriodsWindow(req: WindowRequest): CompletePeriodsWindow {
  const periods = req.periodsMs.length > 0 ? req.periodsMs : [MINUTE];
  for (const p of periods) {
    if (!(p >= SECOND && p % SECOND === 0))
      throw new RangeError(`a CloudWatch period is a whole number of seconds, got ${p} ms`);
  }
  const latest = req.at - Math.max(0, req.allowanceMs);
  // The grid starts at what a fresh window needs; an old start (a 28-day budget window) coarsens
  // CloudWatch's rounding, which can only move the window further back, so this settles in ≤ 3 rounds.
  let grid = lcm(periods.map((p) => startRoundingMs(p, 0)));
  for (;;) {
    const span = lcm([grid, ...periods]);
    const endMs = Math.floor(latest / grid) * grid;
    const startMs = endMs - Math.max(1, Math.ceil(req.windowMs / span)) * span;
    const needed = lcm([grid, ...periods.map((p) => startRoundingMs(p, req.at - startMs))]);
    if (needed === grid) return { startMs, endMs, gridMs: grid };
    grid = needed;
  }
}

/** `[2025-01-01T00:00:05.000Z, 2025-01-01T00:00:10.000Z)`: how a window is written in a reading. */
export function formatWindow(startMs: number, endMs: number): string {
  return `[${new Date(startMs).toISOString()}, ${new Date(endMs).toISOString()})`;
}
