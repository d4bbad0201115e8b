/**
 * The fault loop. Ticks follow the clock from the injection; each tick's readings must be back by the
 * end of the tick (a late one is an `error` reading, which blindness counts). The experiment-state poll
 * runs beside the ticks, never in front of them: a slow GetExperiment cannot delay a tripwire. The
 * loop reports progress to the lease after every tick, so only a loop that advances keeps it alive.
 *
 * Abort rules hold in measured time: a rule `for: 3s` trips once breaching readings cover 3 s of
 * windows in a row. A reading without data (`no-data`, `error`) inside a breach neither adds to it nor
 * resets it — it is not evidence of health — and blindness (`abort.blindAfter`) bounds how long such
 * readings may go on.
 */
import type { ExperimentState } from '../injector/injector.js';
import type { Measurement } from '../journal/types.js';
import type { Plan } from '../plan/schema.js';
import { formatSeconds, formatValue } from '../journal/format.js';
import { breachText, ruleBreached, ruleText, sliBound } from './bounds.js';
import { within } from './deadline.js';
import { errorMessage } from './errors.js';
import type { MidRunCheck } from './gates.js';
import type { Measurer } from './measure.js';
import type { RunShared } from './run.js';

/** Why the observe loop ended. */
export type FaultEnd =
  | { kind: 'completed'; state: ExperimentState }
  | { kind: 'terminal'; status: string; state: ExperimentState }
  | { kind: 'stop'; reason: string };

/**
 * A rule's `for` is met when the breaching windows add up to it, less this share of an interval: ticks
 * jitter by milliseconds, and three 999 ms windows are three seconds of breach for a 1 s interval.
 */
const FOR_TOLERANCE_INTERVALS = 0.1;

export interface ObserveDeps {
  experimentId: string;
  measurer: Measurer;
  /** One state read under its deadline; rejects when it fails or is late. */
  readState(signal: AbortSignal): Promise<ExperimentState>;
  noteState(s: ExperimentState): boolean;
  midRun: MidRunCheck[];
}

interface RuleProgress {
  rule: Plan['abort']['rules'][number];
  /** Measured breach time in the current streak, ms. */
  breachMs: number;
  count: number;
}

/**
 * Asks one question on a cadence beside the ticks (the experiment state, a mid-run check) so that a slow
 * answer delays no tick: the loop reads `done`, `failures` and `lastError` when it needs them.
 */
class Poll<T> {
  /** Set once `settle` accepted an answer as final (a terminal state, a check that found something). */
  done: T | undefined;
  failures = 0;
  lastError = '';
  private readonly ctl = new AbortController();
  private loop: Promise<void> | undefined;

  constructor(
    private readonly clock: RunShared['clock'],
    private readonly everyMs: number,
    private readonly ask: (signal: AbortSignal, at: number) => Promise<T>,
    /** True when the answer ends the poll. */
    private readonly settle: (answer: T) => boolean,
    private readonly onError: (message: string) => void,
    private readonly wake: () => void,
  ) {}

  start(): void {
    const signal = this.ctl.signal;
    this.loop = (async () => {
      while (!signal.aborted && this.done === undefined) {
        const asked = this.clock.now();
        try {
          const answer = await this.ask(signal, asked);
          if (signal.aborted) break;
          this.failures = 0;
          if (this.settle(answer)) {
            this.done = answer;
            this.wake();
            break;
          }
        } catch (error) {
          if (signal.aborted) break;
          this.failures++;
          this.lastError = errorMessage(error);
          this.onError(this.lastError);
        }
        await this.clock.sleep(Math.max(0, asked + this.everyMs - this.clock.now()), signal);
      }
    })();
  }

  async stop(): Promise<void> {
    this.ctl.abort();
    await this.loop;
  }
}

/** How long one mid-run check may take (an incident query, the kill-switch alarm). */
const MID_RUN_CHECK_DEADLINE_MS = 5_000;

/**
 * One answer of a `tick` mid-run check. A failure is journaled and counts like a polled check's: blindAfter
 * in a row fail the run closed, since the run can no longer see what the check guards.
 */
async function askOnTick(
  run: RunShared,
  check: MidRunCheck,
  failures: Map<string, number>,
  blindAfter: number,
): Promise<string | null> {
  try {
    const at = run.clock.now();
    const found = await within(run.clock, MID_RUN_CHECK_DEADLINE_MS, `mid-run check ${check.name}`, (s) =>
      check.check(at, s),
    );
    failures.set(check.name, 0);
    return found;
  } catch (error) {
    const count = (failures.get(check.name) ?? 0) + 1;
    failures.set(check.name, count);
    const message = errorMessage(error);
    if (count >= blindAfter) {
      throw new Error(
        `mid-run check ${check.name} failed ${count} times in a row: ${message}${run.offset()}`,
      );
    }
    run.event('error', `mid-run check ${check.name}: ${message}${run.offset()}`, { check: check.name });
    return null;
  }
}

export async function observe(run: RunShared, d: ObserveDeps): Promise<FaultEnd> {
  const { plan, clock } = run;
  const intervalMs = plan.hypothesis.interval;
  const injectedAt = run.timings.injectedAt ?? clock.now();
  const rules: RuleProgress[] = plan.abort.rules.map((rule) => ({ rule, breachMs: 0, count: 0 }));
  const blindAfter = plan.abort.blindAfter;
  const maxRunMs = plan.blastRadius.maxRunDuration;
  const seen = { firstBreach: false, expectations: new Set<string>() };
  // The wake signal interrupts the tick's sleep when FIS reports the end.
  let wake = new AbortController();
  const pollEvery = Math.min(Math.max(intervalMs, 1_000), 5_000);
  const poll = new Poll<ExperimentState>(
    clock,
    pollEvery,
    (signal) => d.readState(signal),
    (s) => d.noteState(s),
    (message) => run.event('error', `reading the FIS experiment state failed: ${message}${run.offset()}`),
    () => wake.abort(),
  );
  poll.start();
  const tickChecks = d.midRun.filter((check) => check.cadence === 'tick');
  const tickFailures = new Map<string, number>();
  const checks = d.midRun
    .filter((check) => check.cadence !== 'tick')
    .map((check) => {
      const p = new Poll<string | null>(
        clock,
        Math.max(pollEvery, check.everyMs ?? 0),
        (signal, at) =>
          within(
            clock,
            MID_RUN_CHECK_DEADLINE_MS,
            `mid-run check ${check.name}`,
            (s) => check.check(at, s),
            signal,
          ),
        (found) => found !== null,
        (message) => run.event('error', `${message}${run.offset()}`, { check: check.name }),
        () => wake.abort(),
      );
      return { check, poll: p };
    });
  for (const c of checks) c.poll.start();
  let blindStreak = 0;
  let prev = injectedAt;
  let next = injectedAt + intervalMs;
  try {
    for (;;) {
      wake = new AbortController();
      if (!poll.done) await sleepUntil(run, next, wake.signal);
      if (run.cancelled()) {
        const reason = `cancelled by ${run.cancelReason()}${run.offset()}`;
        run.event('signal', reason, { signal: run.cancelReason() });
        run.event('abort', reason, { cause: 'cancelled', verdict: 'aborted' });
        return { kind: 'stop', reason };
      }
      if (poll.done) return terminalEnd(run, poll.done);
      for (const check of tickChecks) {
        const found = await askOnTick(run, check, tickFailures, blindAfter);
        if (found !== null) {
          const reason = `${found}${run.offset()}`;
          run.event('abort', reason, { cause: check.name, verdict: 'aborted' });
          return { kind: 'stop', reason };
        }
      }
      const m = await d.measurer.measure('fault', prev, next + intervalMs);
      prev = m.at;
      run.record(m);
      const end = evaluate(run, m, rules, blindStreak, intervalMs, seen);
      blindStreak = end.blindStreak;
      if (end.stop) return { kind: 'stop', reason: end.stop };
      if (poll.done) return terminalEnd(run, poll.done);
      if (poll.failures >= blindAfter) {
        const reason = `the FIS experiment state could not be read ${poll.failures} times in a row (${poll.lastError})${run.offset()}`;
        run.event('error', reason, { fatal: true });
        return { kind: 'stop', reason };
      }
      for (const { check, poll: c } of checks) {
        if (c.done) {
          const reason = `${check.name}: ${c.done}${run.offset()}`;
          run.event('abort', reason, { cause: 'mid-run', check: check.name, verdict: 'aborted' });
          return { kind: 'stop', reason };
        }
        // A check that cannot answer leaves the run unable to see what it guards: a few misses are
        // journaled; blindAfter in a row fail the run closed.
        if (c.failures >= blindAfter && check.blind === true) {
          const reason = `blind: ${check.name} could not be read ${c.failures} times in a row (${c.lastError})${run.offset()}`;
          run.event('abort', reason, {
            cause: 'blind',
            verdict: 'inconclusive',
            check: check.name,
            count: c.failures,
          });
          return { kind: 'stop', reason };
        }
        if (c.failures >= blindAfter) {
          throw new Error(
            `mid-run check ${check.name} failed ${c.failures} times in a row: ${c.lastError}${run.offset()}`,
          );
        }
      }
      const startedAt = run.timings.startedAt ?? injectedAt;
      if (clock.now() - startedAt >= maxRunMs) {
        const reason = `the run reached blastRadius.maxRunDuration ${formatSeconds(maxRunMs)}${run.offset()}`;
        run.event('abort', reason, { cause: 'max-run-duration', verdict: 'aborted' });
        return { kind: 'stop', reason };
      }
      next = Math.max(next + intervalMs, clock.now());
    }
  } finally {
    await Promise.all([poll.stop(), ...checks.map((c) => c.poll.stop())]);
  }
}

async function sleepUntil(run: RunShared, at: number, wake: AbortSignal): Promise<void> {
  const ms = at - run.clock.now();
  if (ms <= 0) return;
  const parent = run.deps.signal;
  const ctl = new AbortController();
  const onAbort = (): void => ctl.abort();
  parent?.addEventListener('abort', onAbort, { once: true });
  wake.addEventListener('abort', onAbort, { once: true });
  if (parent?.aborted || wake.aborted) ctl.abort();
  try {
    await run.clock.sleep(ms, ctl.signal);
  } finally {
    parent?.removeEventListener('abort', onAbort);
    wake.removeEventListener('abort', onAbort);
  }
}

function terminalEnd(run: RunShared, state: ExperimentState): FaultEnd {
  if (state.status === 'completed') return { kind: 'completed', state };
  if (state.status === 'stopped' || state.status === 'cancelled') {
    const by =
      state.status === 'cancelled'
        ? 'FIS cancelled the experiment (safety lever)'
        : 'FIS stopped the experiment';
    const detail = [state.reason, state.errorCode].filter(Boolean).join(', ');
    run.event('abort', `${by}${detail ? `: ${detail}` : ''}${run.offset()}`, {
      cause: `fis-${state.status}`,
      verdict: 'aborted',
    });
  }
  return { kind: 'terminal', status: state.status, state };
}

/** Applies one fault measurement to the abort rules, blindness, first breach and expectations. */
function evaluate(
  run: RunShared,
  m: Measurement,
  rules: RuleProgress[],
  blindStreak: number,
  intervalMs: number,
  seen: { firstBreach: boolean; expectations: Set<string> },
): { stop?: string; blindStreak: number } {
  const { plan } = run;
  const sliOf = (name: string) => plan.hypothesis.slis.find((s) => s.name === name);
  const duringNames = new Set(plan.hypothesis.slis.filter((s) => s.during).map((s) => s.name));
  if (!seen.firstBreach) {
    const breach = Object.entries(m.slis).find(([n, v]) => duringNames.has(n) && v.status === 'breach');
    if (breach) {
      seen.firstBreach = true;
      run.timing({ firstBreachAt: m.at });
      run.event(
        'first-breach',
        `${breach[0]} ${breachText(sliBound(sliOf(breach[0]) ?? {}), breach[1].value ?? NaN)}${run.offset(m.at)}`,
        { sli: breach[0], value: breach[1].value },
      );
    }
  }
  for (const [name, v] of Object.entries(m.expect ?? {})) {
    if (v.status === 'ok' && !seen.expectations.has(name)) {
      seen.expectations.add(name);
      run.event(
        'expectation-observed',
        `${name} ${formatValue(v.value)} ${v.bound ?? ''}${run.offset(m.at)}`,
        {
          expectation: name,
          value: v.value,
        },
      );
    }
  }
  const windowMs = m.windowMs ?? intervalMs;
  for (const r of rules) {
    const v = m.slis[r.rule.sli];
    // A gap (no-data/error) neither extends nor resets a streak: it is not evidence either way.
    if (!v || v.value === null || (v.status !== 'ok' && v.status !== 'breach')) continue;
    if (!ruleBreached(r.rule, v.value)) {
      r.breachMs = 0;
      r.count = 0;
      continue;
    }
    r.breachMs += windowMs;
    r.count++;
    if (r.breachMs >= r.rule.for - FOR_TOLERANCE_INTERVALS * intervalMs) {
      const reason = `${r.rule.sli} ${formatValue(v.value)} ${ruleText(r.rule)} for ${r.count} measurement${r.count === 1 ? '' : 's'} in a row, ${formatSeconds(r.breachMs)}${run.offset(m.at)}`;
      run.event('abort', reason, {
        cause: 'rule',
        verdict: 'aborted',
        sli: r.rule.sli,
        value: v.value,
        count: r.count,
        breachMs: r.breachMs,
      });
      return { stop: reason, blindStreak };
    }
  }
  const blind = Object.entries(m.slis).filter(([, v]) => v.status === 'no-data' || v.status === 'error');
  const streak = blind.length > 0 ? blindStreak + 1 : 0;
  if (streak >= plan.abort.blindAfter) {
    const what = blind.map(([n, v]) => `${n}: ${v.error ?? v.status}`).join('; ');
    const reason = `blind: ${streak} measurements in a row without data (${what})${run.offset(m.at)}`;
    run.event('abort', reason, { cause: 'blind', verdict: 'inconclusive', count: streak });
    return { stop: reason, blindStreak: streak };
  }
  return { blindStreak: streak };
}
