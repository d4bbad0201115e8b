/**
 * AWS-backed probes for the preflight gates: the kill switch, the experiments already running (for the
 * concurrency gate), the chaos ledger, and a CloudWatch alarm as an incident signal. Preflight sees only
 * the narrow interfaces; these are the concrete sides the front doors wire.
 */
import {
  ListExperimentResolvedTargetsCommand,
  ListExperimentsCommand,
  type FisClient,
} from '@aws-sdk/client-fis';
import { DescribeAlarmsCommand, type CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import type { KillSwitchProbe, RunningExperiment } from '../ports.js';
import { asSetupError, classified } from '../aws/setup-error.js';
import { SetupError } from '../../errors/setup.js';
import { killSwitchStatus } from './kill-switch-state.js';
import { ledgerSpent } from './ledger.js';
import { alarmNameFromArn, alarmStates } from './alarms.js';
import { TAG_ATTEMPT, TAG_PLAN, TAG_RUN } from './tags.js';
import { errorMessage } from '../../errors/message.js';

interface Clients {
  fis: FisClient;
  cloudwatch: CloudWatchClient;
  region: string;
}

const LIVE = new Set(['pending', 'initiating', 'running', 'stopping']);

export function killSwitchProbe(clients: Clients): KillSwitchProbe {
  return { engaged: (signal) => classified(() => killSwitchStatus(clients, signal)) };
}

/**
 * chaos-gate experiments live now (dry runs excluded), with the ARNs FIS resolved for them. An experiment
 * of `own` (the same plan, run id and attempt) is not in the way: it is the one this run's StartExperiment
 * will return by its clientToken — a retried step picking up the experiment its killed predecessor started.
 */
export function experimentLister(
  clients: Clients,
  own?: { planId: string; runId: string; attempt: number },
): { running(): Promise<RunningExperiment[]> } {
  return {
    running: () => classified(() => listRunning(clients, own)),
  };
}

/**
 * FIS allows at most this many active experiments per account and Region (quota L-F5FCA485, not
 * adjustable): once a listing has seen this many live ones it has seen them all, so it stops paging.
 */
export const FIS_ACTIVE_LIMIT = 5;

/**
 * The account's live experiments (pending, initiating, running, stopping), any tags and dry runs
 * included, as FIS's active-experiments quota counts them — except this run's own experiment (`own`).
 * ListExperiments cannot filter by state and its order is undocumented, so it pages until `atLeast`
 * live ones are found or the pages end.
 */
export function activeExperimentCounter(
  clients: Pick<Clients, 'fis'>,
  own?: { planId: string; runId: string; attempt: number },
): {
  active(atLeast: number, signal?: AbortSignal): Promise<number>;
} {
  return {
    active: (atLeast, signal) =>
      classified(async () => {
        let n = 0;
        let nextToken: string | undefined;
        do {
          const page = await clients.fis.send(
            new ListExperimentsCommand({ maxResults: 100, ...(nextToken ? { nextToken } : {}) }),
            signal ? { abortSignal: signal } : {},
          );
          for (const e of page.experiments ?? []) {
            if (!LIVE.has(String(e.state?.status))) continue;
            // This run's own experiment (a retried step's predecessor started it) is the one its start
            // returns by its client token: it takes no further slot.
            if (
              own &&
              e.tags?.[TAG_PLAN] === own.planId &&
              e.tags?.[TAG_RUN] === own.runId &&
              e.tags?.[TAG_ATTEMPT] === String(own.attempt) &&
              e.tags?.['chaos-gate:dry-run'] !== 'true'
            )
              continue;
            n++;
          }
          nextToken = page.nextToken;
        } while (nextToken && n < atLeast);
        return n;
      }),
  };
}

async function listRunning(
  clients: Clients,
  own: { planId: string; runId: string; attempt: number } | undefined,
): Promise<RunningExperiment[]> {
  const out: RunningExperiment[] = [];
  let nextToken: string | undefined;
  let live = 0;
  do {
    const page = await clients.fis.send(
      new ListExperimentsCommand({ maxResults: 100, ...(nextToken ? { nextToken } : {}) }),
    );
    for (const e of page.experiments ?? []) {
      if (LIVE.has(String(e.state?.status))) live++;
      const planId = e.tags?.[TAG_PLAN];
      if (!e.id || !planId || e.tags?.['chaos-gate:dry-run'] === 'true') continue;
      if (!LIVE.has(String(e.state?.status))) continue;
      if (
        own &&
        planId === own.planId &&
        e.tags?.[TAG_RUN] === own.runId &&
        e.tags?.[TAG_ATTEMPT] === String(own.attempt)
      )
        continue;
      const targets: string[] = [];
      let t: string | undefined;
      do {
        const r = await clients.fis.send(
          new ListExperimentResolvedTargetsCommand({
            experimentId: e.id,
            maxResults: 100,
            ...(t ? { nextToken: t } : {}),
          }),
        );
        for (const x of r.resolvedTargets ?? []) {
          const arn = x.targetInformation?.arn ?? Object.values(x.targetInformation ?? {})[0];
          if (arn) targets.push(arn);
        }
        t = r.nextToken;
      } while (t);
      out.push({ id: e.id, planId, targets });
    }
    nextToken = page.nextToken;
    // Every live experiment of the account has been seen once FIS's quota of them has.
  } while (nextToken && live < FIS_ACTIVE_LIMIT);
  return out;
}

export function ledgerReader(cw: CloudWatchClient): {
  spent(service: string, windowMs: number, now: number): Promise<number>;
} {
  return { spent: (service, windowMs, now) => classified(() => ledgerSpent(cw, service, windowMs, now)) };
}

/** An incident is open while the named CloudWatch alarm is in ALARM (INSUFFICIENT_DATA is not an incident). */
export function alarmIncidentProbe(
  cw: CloudWatchClient,
  alarm: string,
): {
  open(at: number): Promise<{ open: boolean; detail: string; error?: string }>;
} {
  const name = alarmNameFromArn(alarm);
  return {
    async open() {
      try {
        const out = await cw.send(new DescribeAlarmsCommand({ AlarmNames: [name] }));
        const a = [...(out.MetricAlarms ?? []), ...(out.CompositeAlarms ?? [])][0];
        if (!a)
          return {
            open: false,
            detail: `alarm ${name} not found`,
            error: `incident alarm ${name} does not exist`,
          };
        return {
          open: a.StateValue === 'ALARM',
          detail: `alarm ${name} is ${a.StateValue ?? 'unknown'}${a.StateReason ? ` (${a.StateReason})` : ''}`,
        };
      } catch (error) {
        // A broken set-up is thrown (the gate ends the run failed); anything else is a probe that could not tell.
        const setup = asSetupError(error);
        if (setup instanceof SetupError) throw setup;
        const message = errorMessage(error);
        return { open: false, detail: `could not read alarm ${name}`, error: message };
      }
    },
  };
}

/**
 * The states of the existing alarms `abort.alarms` names (metric or composite): a name CloudWatch does
 * not list is answered as `missing`. A broken set-up (credentials, permission) is a SetupError.
 */
export function alarmWatchProbe(cw: CloudWatchClient): {
  states(
    names: readonly string[],
    signal?: AbortSignal,
  ): Promise<Map<string, { state: string; reason: string }>>;
} {
  return {
    async states(names, signal) {
      const found = await classified(() =>
        alarmStates(
          cw,
          names.map((n) => alarmNameFromArn(n)),
          signal,
        ),
      );
      const out = new Map<string, { state: string; reason: string }>();
      for (const n of names) {
        const a = found.get(alarmNameFromArn(n));
        out.set(
          n,
          a
            ? { state: a.StateValue ?? 'unknown', reason: a.StateReason ?? '' }
            : { state: 'missing', reason: '' },
        );
      }
      return out;
    },
  };
}
