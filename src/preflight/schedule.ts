/**
 * Schedule windows (docs/design/gates.md#schedule-and-incidents): when a run may start. A window is either a cron expression that opens it
 * plus a duration, or a date range; both are read in the plan's IANA time zone. The decision is a pure
 * function of the schedule, the start time and the planned run length, so every boundary is table-tested.
 *
 * This file holds the gates; schedule-windows.ts compiles the windows and schedule-decision.ts decides a
 * time against them.
 *
 * Semantics (documented in docs/preflight.md):
 * - every window is half-open, [start, end): a run may start at the very instant a deny window ends;
 * - a cron window's `duration` is wall-clock time in the zone, so `0 16 * * FRI` for 64h ends at Monday
 *   08:00 local even when the clocks change over that weekend;
 * - a bare `to` date includes that whole local day; a date-time without an offset is local to the zone;
 * - a run [start, start + planned) must not touch any deny window, and when allow windows exist it must
 *   lie inside one (adjacent or overlapping allow occurrences count as one).
 */
import type { Gate, GateRefusal } from '../engine/gates.js';
import type { Plan } from '../plan/schema.js';
import { formatDuration } from '../plan/duration.js';
import { planRunDurationMs } from '../plan/refusals.js';
import {
  allowNeedsEnumeration,
  allowWindowsTooShort,
  scheduleDecision,
  type ScheduleDecision,
} from './schedule-decision.js';
import {
  isPlainCron,
  loadCronParser,
  ScheduleError,
  scheduleIssues,
  type ScheduleSpec,
} from './schedule-windows.js';

export {
  compileSchedule,
  cronFieldProblem,
  isPlainCron,
  loadCronParser,
  MAX_OCCURRENCES_PER_DECISION,
  OccurrenceBudget,
  ScheduleError,
  scheduleIssues,
  type CompiledSchedule,
  type CompiledWindow,
  type Occurrence,
  type ScheduleIssue,
  type ScheduleSpec,
} from './schedule-windows.js';
export {
  allowWindowsTooShort,
  nextAllowedStart,
  NEXT_START_HORIZON_MS,
  scheduleDecision,
  type ScheduleDecision,
  type WindowRef,
} from './schedule-decision.js';

/** True when judging or enumerating `schedule` for a run of `plannedRunMs` needs cron-parser. */
function needsCronParser(schedule: ScheduleSpec, plannedRunMs?: number): boolean {
  const crons = [...schedule.allow, ...schedule.deny].flatMap((w) => ('cron' in w ? [w.cron] : []));
  if (crons.length === 0) return false;
  // Deciding a time enumerates occurrences; checking the windows enumerates only when no allow window
  // is long enough on its own (`allowWindowsTooShort`).
  if (plannedRunMs === undefined) return true;
  return crons.some((c) => !isPlainCron(c)) || allowNeedsEnumeration(schedule, plannedRunMs);
}

/**
 * What a run refuses about the schedule before it reads the clock's verdict: an unknown time zone, a cron
 * expression or date that does not parse, a window that ends before it starts, and allow windows that can
 * never hold the planned run. The same findings for `run`, `plan` and `validate` (the static stage).
 */
export function scheduleRefusals(schedule: ScheduleSpec, plannedRunMs: number): GateRefusal[] {
  const issues = scheduleIssues(schedule);
  const tooShort = issues.length === 0 ? allowWindowsTooShort(schedule, plannedRunMs) : undefined;
  return [
    ...issues.map((i) => ({ rule: 'schedule-invalid', ...i, message: `${i.field}: ${i.message}` })),
    ...(tooShort
      ? [{ rule: 'schedule-never-fits', ...tooShort, message: `${tooShort.field}: ${tooShort.message}` }]
      : []),
  ];
}

/** The schedule's validity as a `static` gate (no clock involved beyond the plan): see `scheduleRefusals`. */
export function scheduleValidityGate(options: ScheduleGateOptions = {}): Gate {
  const findings = async (plan: Plan): Promise<GateRefusal[]> => {
    const planned = options.plannedRunMs ?? planRunDurationMs(plan);
    if (needsCronParser(plan.schedule, planned)) await loadCronParser();
    return scheduleRefusals(plan.schedule, planned);
  };
  return {
    name: 'schedule-windows',
    stage: 'static',
    async refusals(ctx) {
      return findings(ctx.plan);
    },
    async check(ctx) {
      const refusals = await findings(ctx.plan);
      const first = refusals[0];
      if (!first) return { pass: true };
      for (const r of refusals) {
        ctx.record({
          type: 'preflight',
          message: r.message,
          data: { gate: 'schedule-windows', rule: r.rule, field: r.field, value: r.value },
        });
      }
      const more = refusals.length > 1 ? ` (and ${refusals.length - 1} more)` : '';
      return { pass: false, verdict: 'refused', reason: `${first.message}${more}`, field: first.field };
    },
  };
}

export interface ScheduleGateOptions {
  /** The planned run length; defaults to `planRunDurationMs(plan)`. */
  plannedRunMs?: number | undefined;
}

/**
 * The schedule as a gate: an unusable schedule is `refused` (the plan is wrong), a wrong time is `not-run`
 * with the window and the next allowed start.
 */
export function scheduleGate(options: ScheduleGateOptions = {}): Gate {
  return {
    name: 'schedule',
    stage: 'before-targets',
    async check(ctx) {
      const planned = options.plannedRunMs ?? planRunDurationMs(ctx.plan);
      if (needsCronParser(ctx.plan.schedule)) await loadCronParser();
      let decision: ScheduleDecision;
      try {
        decision = scheduleDecision(ctx.plan.schedule, ctx.now, planned);
      } catch (error) {
        if (!(error instanceof ScheduleError)) throw error;
        const first = error.issues[0];
        return {
          pass: false,
          verdict: 'refused',
          reason: error.issues.map((i) => `${i.field}: ${i.message}`).join('; '),
          ...(first ? { field: first.field } : {}),
        };
      }
      if (decision.ok) return { pass: true, note: `schedule allows a ${formatDuration(planned)} run now` };
      ctx.record({
        type: 'preflight',
        message: `schedule: ${decision.reason}`,
        data: {
          gate: 'schedule',
          window: decision.window,
          nextAllowedStart: decision.nextAllowedStart,
          plannedRunMs: planned,
        },
      });
      return { pass: false, verdict: 'not-run', reason: decision.reason, field: decision.window.field };
    },
  };
}
