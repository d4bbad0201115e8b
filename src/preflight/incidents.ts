/**
 * Incidents (docs/design/gates.md#schedule-and-incidents): an open incident means the time is wrong for chaos. Checked once before the
 * start (open → `not-run`) and every tick while the fault may be on (open → the engine aborts). The
 * query behind the probe (Prometheus, a CloudWatch alarm state) is the front door's business.
 */
import type { Gate, MidRunCheck } from '../engine/gates.js';
import type { IncidentProbe } from '../injector/ports.js';
import { rethrowSetupError } from './setup-error.js';
import { errorMessage } from '../errors/message.js';

export type { IncidentProbe } from '../injector/ports.js';

/**
 * Before the start: open, or a probe that cannot tell (fail closed), is `not-run`; a probe whose set-up is
 * broken (it throws a `SetupError`) ends the run `failed` instead.
 */
export function incidentGate(probe: IncidentProbe): Gate {
  return {
    name: 'incidents',
    stage: 'before-targets',
    async check(ctx) {
      let result: Awaited<ReturnType<IncidentProbe['open']>>;
      try {
        result = await probe.open(ctx.now, ctx.signal);
      } catch (error) {
        rethrowSetupError(error, 'cannot tell whether an incident is open');
        result = { open: false, detail: '', error: errorMessage(error) };
      }
      if (result.error !== undefined) {
        const reason = `cannot tell whether an incident is open (${result.error}); refusing to start blind`;
        ctx.record({
          type: 'preflight',
          message: `incidents: ${reason}`,
          data: { gate: 'incidents', error: result.error },
        });
        return { pass: false, verdict: 'not-run', reason, field: 'schedule.incidents' };
      }
      if (result.open) {
        return {
          pass: false,
          verdict: 'not-run',
          reason: `an incident is open: ${result.detail}`,
          field: 'schedule.incidents',
        };
      }
      return { pass: true, note: `no incident open (${result.detail})` };
    },
  };
}

export interface IncidentMidRunOptions {
  /**
   * Consecutive probe errors after which the run aborts: a watch that cannot see is no watch. The plan's
   * `abort.blindAfter` is the natural value; a single failed read does not abort.
   */
  errorsBeforeAbort: number;
}

/** Every tick: an incident that opened mid-run aborts the run at that tick. */
export function incidentMidRunCheck(probe: IncidentProbe, options: IncidentMidRunOptions): MidRunCheck {
  let consecutiveErrors = 0;
  return {
    name: 'incidents',
    async check(now, signal) {
      let result: Awaited<ReturnType<IncidentProbe['open']>>;
      try {
        result = await probe.open(now, signal);
      } catch (error) {
        result = { open: false, detail: '', error: errorMessage(error) };
      }
      if (result.error !== undefined) {
        consecutiveErrors += 1;
        if (consecutiveErrors >= options.errorsBeforeAbort) {
          return `incident probe failed ${consecutiveErrors} times in a row (last: ${result.error})`;
        }
        return null;
      }
      consecutiveErrors = 0;
      return result.open ? `an incident opened: ${result.detail}` : null;
    },
  };
}
