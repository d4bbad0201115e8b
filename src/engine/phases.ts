/**
 * The measured phases around the fault: the steady state before the start (measured on, one interval at a
 * time, until the injector allows the start, with the readiness check polled beside the ticks) and the
 * recovery after it (measured until every SLI is back within its steady bound, or `recovery.within` ran
 * out). The fault phase itself is observe.ts; the state machine that strings them together is run.ts.
 */
import type { Clock } from '../clock/clock.js';
import { InjectorRefusal, type Injector } from '../injector/injector.js';
import { formatSeconds } from '../journal/format.js';
import type { Bound } from '../plan/schema.js';
import { breachText, sliBound } from './bounds.js';
import { CALL_DEADLINES, within } from './deadline.js';
import { errorMessage, refusalOf } from './errors.js';
import type { Measurer } from './measure.js';
import type { RunShared } from './run.js';

/** How long the run keeps measuring the steady state past its duration while the start is not allowed yet. */
export const READINESS_WAIT_MS = 30_000;

function sleepUntil(run: RunShared, at: number, signal?: AbortSignal): Promise<void> {
  return sleepOn(run.clock, at - run.clock.now(), signal);
}

/**
 * Measures the steady state for its duration, then keeps measuring, one interval at a time, until the
 * injector allows the start (stop-condition alarms OK). Returns the time of the last measurement —
 * the start follows it at once — or undefined when the run must not go on (journaled).
 */
export async function measureSteadyState(run: RunShared, measurer: Measurer): Promise<number | undefined> {
  const interval = run.plan.hypothesis.interval;
  const duration = run.plan.hypothesis.steadyState.duration;
  const ticks = Math.max(1, Math.ceil(duration / interval));
  await measurer.prime(interval);
  // After priming, which is retried when a scrape fails: the first window starts at the last scrape.
  const start = run.clock.now();
  const readiness = new ReadinessPoll(run.clock, run.deps.injector, Math.min(interval, 1000));
  readiness.start();
  // The first window is the first interval of the steady state, from the last priming scrape.
  let prev = start;
  let waitingNoted: string | undefined;
  try {
    for (let k = 1; ; k++) {
      const due = start + k * interval;
      await sleepUntil(run, due, run.deps.signal);
      if (run.cancelled()) {
        run.event('not-run', `cancelled by ${run.cancelReason()} during the steady state, before injection`);
        return undefined;
      }
      const m = await measurer.measure('steady', prev, due + interval);
      prev = m.at;
      run.record(m);
      const bad = Object.entries(m.slis).find(([, v]) => v.status !== 'ok');
      if (bad) {
        const [name, v] = bad;
        const what =
          v.status === 'breach'
            ? `${name} ${breachText(steadyBound(run, name), v.value ?? NaN)} (steady-state bound)`
            : `${name} had no data (${v.error ?? v.status})`;
        run.event(
          'not-run',
          `steady state broken before injection: ${what} at ${formatSeconds(m.at - start)} into the steady state`,
          { sli: name, status: v.status },
        );
        return undefined;
      }
      if (k < ticks) continue;
      const r = readiness.latest();
      if (r.refusal) throw r.refusal;
      if (r.ready) {
        run.event(
          'steady-state',
          `steady state held for ${formatSeconds(m.at - start)} (${k} measurements)`,
          { measurements: k, lastAt: m.at },
        );
        return m.at;
      }
      const waiting = r.waiting ?? 'the injector to allow the start';
      if (run.clock.now() - (start + ticks * interval) >= READINESS_WAIT_MS) {
        throw new InjectorRefusal(
          `the experiment could not start within ${formatSeconds(READINESS_WAIT_MS)} after the steady state: still waiting for ${waiting}`,
          'fis.stopConditions',
        );
      }
      if (waitingNoted !== waiting) {
        waitingNoted = waiting;
        run.event('preflight', `steady state measured on while waiting for ${waiting}`, { waiting });
      }
    }
  } finally {
    readiness.stop();
  }
}

/** Measures until every SLI is back within its bound, up to `recovery.within` after the fault ended. */
export async function measureRecovery(run: RunShared, measurer: Measurer): Promise<void> {
  const interval = run.plan.hypothesis.interval;
  const withinMs = run.plan.hypothesis.recovery.within;
  const faultEnd = run.timings.stoppedAt ?? run.clock.now();
  const deadline = faultEnd + withinMs;
  let prev = faultEnd;
  let next = run.clock.now() + interval;
  let problem = 'no measurement';
  let blind = false;
  for (;;) {
    await sleepUntil(run, next, run.deps.signal);
    if (run.cancelled()) {
      const reason = `cancelled by ${run.cancelReason()} during recovery${run.offset()}`;
      run.event('signal', reason, { signal: run.cancelReason() });
      run.event('abort', reason, { cause: 'cancelled', verdict: 'aborted' });
      return;
    }
    const m = await measurer.measure('recovery', prev, next + interval);
    prev = m.at;
    run.record(m);
    const bad = Object.entries(m.slis).filter(([, v]) => v.status !== 'ok');
    if (bad.length === 0) {
      run.timing({ recoveredAt: m.at });
      run.event(
        'recovery',
        `recovered ${formatSeconds(m.at - faultEnd)} after the fault ended${run.offset(m.at)}`,
        {
          recovered: true,
          afterMs: m.at - faultEnd,
        },
      );
      return;
    }
    blind = bad.every(([, v]) => v.status !== 'breach');
    problem = bad
      .map(([n, v]) =>
        v.status === 'breach'
          ? `${n} ${breachText(steadyBound(run, n), v.value ?? NaN)} (steady-state bound)`
          : `${n} no data (${v.error ?? v.status})`,
      )
      .join(', ');
    problem += run.offset(m.at);
    if (run.clock.now() >= deadline) break;
    next = Math.min(Math.max(next + interval, run.clock.now()), deadline);
  }
  run.event('recovery', `not recovered within ${formatSeconds(withinMs)} after the fault ended: ${problem}`, {
    recovered: false,
    blind,
  });
}

function steadyBound(run: RunShared, name: string): Bound {
  const s = run.plan.hypothesis.slis.find((x) => x.name === name);
  return s ? (s.steady ?? sliBound(s)) : {};
}

/**
 * Sleeps on the clock, waking early when `signal` aborts. Each sleep gets its own short-lived signal so
 * a long run does not pile one abort listener per tick onto the caller's signal.
 */
export async function sleepOn(clock: Clock, ms: number, signal?: AbortSignal): Promise<void> {
  if (ms <= 0 || signal?.aborted) return;
  if (!signal) return clock.sleep(ms);
  const ctl = new AbortController();
  const wake = (): void => ctl.abort();
  signal.addEventListener('abort', wake, { once: true });
  try {
    await clock.sleep(ms, ctl.signal);
  } finally {
    signal.removeEventListener('abort', wake);
  }
}

/**
 * Asks the injector, beside the steady-state ticks, whether the start is allowed yet, so that the
 * answer is at hand when the last measurement is taken and the start follows it without a call between.
 */
/**
 * How often the stop-condition alarms are read again during the steady state once they were all OK
 * (DescribeAlarms: an account quota of 9 TPS shared by every run; docs/fis.md, "AWS demand").
 */
export const READINESS_RECHECK_MS = 5_000;
/** How often while the lease alarm is still turning OK (it is evaluated every 10 s). */
export const READINESS_WAITING_MS = 2_000;

class ReadinessPoll {
  private result: { ready: boolean; waiting?: string; refusal?: InjectorRefusal } = {
    ready: false,
    waiting: 'the first readiness check',
  };
  private readonly ctl = new AbortController();

  constructor(
    private readonly clock: Clock,
    private readonly injector: Injector,
    private readonly everyMs: number,
  ) {
    if (!injector.readiness) this.result = { ready: true };
  }

  start(): void {
    const ask = this.injector.readiness?.bind(this.injector);
    if (!ask) return;
    const signal = this.ctl.signal;
    void (async () => {
      while (!signal.aborted) {
        try {
          const waiting = await within(
            this.clock,
            CALL_DEADLINES.readinessMs,
            'checking the stop-condition alarms',
            (s) => ask(s),
            signal,
          );
          this.result = waiting === null ? { ready: true } : { ready: false, waiting };
        } catch (error) {
          if (signal.aborted) break;
          const refusal = refusalOf(error);
          this.result = refusal
            ? { ready: false, refusal }
            : { ready: false, waiting: `a readable answer (${errorMessage(error)})` };
          if (refusal) break;
        }
        // Once the alarms are OK it only needs to notice a change: every few seconds is enough, since
        // the injector reads them once more right before StartExperiment. Waiting for the lease alarm to
        // turn OK (CloudWatch evaluates it every 10 s), every 2 s, so the start follows the OK closely.
        await this.clock.sleep(
          Math.max(this.everyMs, this.result.ready ? READINESS_RECHECK_MS : READINESS_WAITING_MS),
          signal,
        );
      }
    })();
  }

  latest(): { ready: boolean; waiting?: string; refusal?: InjectorRefusal } {
    return this.result;
  }

  stop(): void {
    this.ctl.abort();
  }
}
