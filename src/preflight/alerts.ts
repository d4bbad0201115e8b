/**
 * `abort.alerts`: the alerts a team already trusts as tripwires. Before the start Alertmanager must
 * answer (else `not-run`: the run would start blind to them); alerts already firing then are noted, not
 * refused. Right before the start the check takes its baseline — each matching alert's fingerprint and
 * the time it started firing — and while the fault is on an alert outside that baseline (new, or the same
 * labels firing again since) aborts the run. A read that fails is a miss: `abort.blindAfter` misses in a
 * row end the run `inconclusive` (observe.ts), never `held`.
 */
import type { Gate, MidRunCheck } from '../engine/gates.js';
import { errorMessage } from '../errors/message.js';

/** One firing alert, as the probe reports it. */
export interface ProbedAlert {
  fingerprint: string;
  startsAt: string;
  labels: Record<string, string>;
}

/** Reads the alerts matching the plan's matchers that fire now; rejects when it cannot tell. */
export interface AlertProbe {
  /** Where the alerts are read (the Alertmanager URL, credentials masked). */
  readonly where: string;
  firing(matchers: readonly string[], signal?: AbortSignal): Promise<ProbedAlert[]>;
}

/** How many alerts a reason lists by name. */
const MAX_LISTED = 5;

/** `HighErrorRate{service="checkout", severity="critical"} since 2026-12-04T20:01:02Z`. */
export function alertLine(a: ProbedAlert): string {
  const { alertname, ...rest } = a.labels;
  const labels = Object.entries(rest)
    .sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0))
    .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
    .join(', ');
  return `${alertname ?? '(no alertname)'}{${labels}} since ${a.startsAt}`;
}

function listed(alerts: readonly ProbedAlert[]): string {
  const shown = alerts.slice(0, MAX_LISTED).map(alertLine).join('; ');
  const more = alerts.length > MAX_LISTED ? `; and ${alerts.length - MAX_LISTED} more` : '';
  return `${shown}${more}`;
}

function matcherText(matchers: readonly string[]): string {
  return matchers.map((m) => m.trim()).join(', ');
}

/** Before the start: Alertmanager must answer; alerts already firing are noted (only new ones abort). */
export function alertsGate(probe: AlertProbe, matchers: readonly string[]): Gate {
  return {
    name: 'alerts',
    stage: 'before-targets',
    async check(ctx) {
      let alerts: ProbedAlert[];
      try {
        alerts = await probe.firing(matchers, ctx.signal);
      } catch (error) {
        return {
          pass: false,
          verdict: 'not-run',
          reason: `cannot read the alerts matching ${matcherText(matchers)} (${errorMessage(error)}); refusing to start blind to them`,
          field: 'abort.alerts',
        };
      }
      if (alerts.length === 0)
        return {
          pass: true,
          note: `Alertmanager ${probe.where}: no alert matching ${matcherText(matchers)}`,
        };
      return {
        pass: true,
        note: `Alertmanager ${probe.where}: ${alerts.length} alert(s) matching ${matcherText(matchers)} already firing, which do not abort the run: ${listed(alerts)}`,
      };
    },
  };
}

/**
 * While the fault is on: a matching alert that was not firing at injection aborts the run. Without a
 * baseline (arm failed or was never asked) every read fails, so the run ends blind rather than guessing.
 */
export function alertsMidRunCheck(probe: AlertProbe, matchers: readonly string[]): MidRunCheck {
  let baseline: Map<string, string> | undefined;
  return {
    name: 'alerts',
    blind: true,
    async arm(_now, signal) {
      const alerts = await probe.firing(matchers, signal);
      baseline = new Map(alerts.map((a) => [a.fingerprint, a.startsAt]));
    },
    async check(_now, signal) {
      if (!baseline) throw new Error('no baseline of the alerts firing at injection was taken');
      const alerts = await probe.firing(matchers, signal);
      const known = baseline;
      // The same fingerprint with a later startsAt resolved and fired again: that is new.
      const fresh = alerts.filter((a) => known.get(a.fingerprint) !== a.startsAt);
      if (fresh.length === 0) return null;
      return `${fresh.length} alert(s) matching ${matcherText(matchers)} fired that were not firing at injection: ${listed(fresh)}`;
    },
  };
}
