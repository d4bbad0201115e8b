/**
 * Kill switch (docs/design/gates.md#kill-switch, docs/design/run.md#the-kill-switch): while `chaos-gate kill` is engaged every start is refused. The probe
 * hides how it is read (the kill-switch alarm, the FIS safety lever).
 */
import type { Gate, MidRunCheck } from '../engine/gates.js';
import type { KillSwitchProbe } from '../injector/ports.js';
import { rethrowSetupError } from './setup-error.js';
import { errorMessage } from '../errors/message.js';

export type { KillSwitchProbe } from '../injector/ports.js';

/**
 * Engaged → `refused`. A probe that fails for a while (throttled, 5xx) is `not-run`: the start cannot be
 * shown to be allowed now. A probe that fails because the set-up is broken (a `SetupError`: no or expired
 * credentials, a missing permission, an unreachable endpoint) is thrown, and the run ends `failed`: trying
 * later would fail the same way until someone fixes it.
 */
export function killSwitchGate(probe: KillSwitchProbe): Gate {
  return {
    name: 'kill-switch',
    stage: 'before-targets',
    async check(ctx) {
      let state: { engaged: boolean; reason?: string };
      try {
        state = await probe.engaged(ctx.signal);
      } catch (error) {
        rethrowSetupError(error, 'cannot read the kill switch');
        return {
          pass: false,
          verdict: 'not-run',
          reason: `cannot read the kill switch (${errorMessage(error)}); refusing to start`,
        };
      }
      if (state.engaged) {
        const why = state.reason ? `: ${state.reason}` : '';
        return {
          pass: false,
          verdict: 'refused',
          reason: `the kill switch is engaged${why}; release it with \`chaos-gate kill --release\``,
        };
      }
      return { pass: true, note: 'kill switch released' };
    },
  };
}

/**
 * How often the running gate reads the kill switch (the kill-switch alarm, then the FIS safety lever):
 * both stop the experiment without this runner — the alarm is a stop condition of the template, and an
 * engaged lever makes FIS stop every running experiment — and the engine reads the experiment's state
 * every 1–5 s, so it sees that stop within one state poll. Reading the switch itself only names the
 * cause sooner; every 15 s keeps DescribeAlarms (account quota 9 TPS) and GetSafetyLever off the
 * per-tick path (docs/fis.md, "AWS demand per tick").
 */
export const KILL_SWITCH_MID_RUN_EVERY_MS = 15_000;

/**
 * While the fault is on: an engaged kill switch aborts the run. FIS also stops through the kill-switch
 * alarm and the safety lever; this check names the cause. A failed read is not an abort here, because
 * the alarm (a stop condition of the template) does not depend on this runner.
 */
export function killSwitchMidRunCheck(probe: KillSwitchProbe): MidRunCheck {
  return {
    name: 'kill-switch',
    everyMs: KILL_SWITCH_MID_RUN_EVERY_MS,
    async check(_now, signal) {
      try {
        const state = await probe.engaged(signal);
        return state.engaged ? `the kill switch was engaged${state.reason ? `: ${state.reason}` : ''}` : null;
      } catch {
        return null;
      }
    },
  };
}
