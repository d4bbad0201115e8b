/**
 * `abort.alarms`: existing CloudWatch alarms (metric or composite) the team already trusts. Before the
 * start every one must exist (a name CloudWatch does not know is a plan mistake: `refused`) and none may
 * be in ALARM (`not-run`: the time is wrong); alarms that cannot be read are `not-run` too, never a pass.
 * While the fault is on, one that goes to ALARM aborts the run, naming the alarm and CloudWatch's reason;
 * `abort.blindAfter` failed reads in a row end the run `inconclusive` (observe.ts).
 */
import type { Gate, MidRunCheck } from '../engine/gates.js';
import { errorMessage } from '../errors/message.js';
import { rethrowSetupError } from './setup-error.js';

/** Reads the named alarms' states; `missing` for a name CloudWatch does not list. */
export interface AlarmWatchProbe {
  states(
    names: readonly string[],
    signal?: AbortSignal,
  ): Promise<Map<string, { state: string; reason: string }>>;
}

/** CloudWatch's StateReason is long; a reason quotes this much of it. */
const MAX_REASON = 200;

function clip(s: string): string {
  return s.length > MAX_REASON ? `${s.slice(0, MAX_REASON - 1)}…` : s;
}

function inAlarm(states: Map<string, { state: string; reason: string }>): string[] {
  return [...states]
    .filter(([, s]) => s.state === 'ALARM')
    .map(([n, s]) => `${n}${s.reason ? ` (${clip(s.reason)})` : ''}`);
}

export function alarmsGate(probe: AlarmWatchProbe, names: readonly string[]): Gate {
  return {
    name: 'alarms',
    stage: 'before-targets',
    async check(ctx) {
      let states: Map<string, { state: string; reason: string }>;
      try {
        states = await probe.states(names, ctx.signal);
      } catch (error) {
        rethrowSetupError(error, 'cannot read the abort.alarms alarms');
        return {
          pass: false,
          verdict: 'not-run',
          reason: `cannot read the alarms of abort.alarms (${errorMessage(error)}); refusing to start blind to them`,
          field: 'abort.alarms',
        };
      }
      const missing = [...states].filter(([, s]) => s.state === 'missing').map(([n]) => n);
      if (missing.length > 0)
        return {
          pass: false,
          verdict: 'refused',
          reason: `abort.alarms names ${missing.length === 1 ? 'an alarm' : 'alarms'} CloudWatch does not have: ${missing.join(', ')}; expected existing metric or composite alarms`,
          field: 'abort.alarms.names',
        };
      const alarming = inAlarm(states);
      if (alarming.length > 0)
        return {
          pass: false,
          verdict: 'not-run',
          reason: `abort.alarms: already in ALARM before the start: ${alarming.join('; ')}`,
          field: 'abort.alarms.names',
        };
      const summary = [...states].map(([n, s]) => `${n} ${s.state}`).join(', ');
      return { pass: true, note: `abort.alarms: ${summary}` };
    },
  };
}

/** While the fault is on: an alarm that goes to ALARM aborts the run. */
export function alarmsMidRunCheck(probe: AlarmWatchProbe, names: readonly string[]): MidRunCheck {
  return {
    name: 'alarms',
    blind: true,
    async check(_now, signal) {
      const states = await probe.states(names, signal);
      const missing = [...states].filter(([, s]) => s.state === 'missing').map(([n]) => n);
      // An alarm deleted mid-run can no longer say anything: a miss, not a pass.
      if (missing.length > 0) throw new Error(`CloudWatch no longer lists ${missing.join(', ')}`);
      const alarming = inAlarm(states);
      return alarming.length > 0 ? `CloudWatch alarm in ALARM: ${alarming.join('; ')}` : null;
    },
  };
}
