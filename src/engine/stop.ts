/**
 * Stop and verify: ask FIS to stop, and do not believe it until FIS reports a terminal state. Nothing
 * here waits on one call: StopExperiment and every state read carry deadlines, reads are launched on a
 * backoff schedule whether or not the previous one answered, and the first terminal answer wins.
 *
 * When the stop has not been seen within the escalation time (about 10 s) — StopExperiment not
 * accepted, or FIS's state unreadable — the lease is tripped: heartbeats stop and the lease alarm is
 * forced to ALARM, so FIS stops the experiment through its own stop condition. The journal says which
 * path ended the fault, with FIS's own reason once terminal, and a stop never seen says only what is
 * known (whether CloudWatch accepted forcing the alarm).
 */
import type { Clock } from '../clock/clock.js';
import type { ExperimentState, Injector } from '../injector/injector.js';
import { TERMINAL_STATUSES } from '../injector/injector.js';
import { formatSeconds } from '../journal/format.js';
import type { EventType } from '../journal/types.js';
import { within } from './deadline.js';
import { DEADLINES } from '../net/deadline.js';
import { errorMessage } from './errors.js';
import type { LeaseKeeper } from './lease.js';

/**
 * How long the engine tries to see `stopped` after deciding to stop. FIS completes post actions before
 * `stopped` (docs/design/fis.md#experiment-states), which for network actions takes seconds; a minute leaves room for that
 * while keeping a stuck run short. Front doors with a tighter budget (GitHub's 7.5 s after SIGINT) pass less.
 */
export const DEFAULT_STOP_VERIFY_TIMEOUT_MS = 60_000;
/** StopExperiment gets this long per attempt. */
export const STOP_CALL_DEADLINE_MS = DEADLINES.fisStopExperiment;
/** If the stop has not been seen by then, the lease is tripped (capped at half the budget). */
export const STOP_ESCALATE_AFTER_MS = 10_000;
/** First and longest pause between state reads while verifying (doubling in between). */
const STOP_POLL_INITIAL_MS = 500;
const STOP_POLL_MAX_MS = 5_000;
/** A slow GetExperiment must not stop the polling, but neither should reads pile up without bound. */
const MAX_READS_IN_FLIGHT = 3;

export interface StopContext {
  clock: Clock;
  injector: Injector;
  lease: LeaseKeeper | undefined;
  event(type: EventType, message: string, data?: Record<string, unknown>): void;
  /** Journals a state read; returns whether it is terminal. */
  noteState(s: ExperimentState): boolean;
  offset(at?: number): string;
  region?: string | undefined;
}

export interface StopOutcome {
  verified: boolean;
  /** Which path ended the fault, as far as the engine can tell. */
  by: 'stop-experiment' | 'lease' | 'already-ended' | 'unknown';
}

/**
 * A shorter budget that applies once `signal` aborts: a cancelled front door has seconds, not a minute
 * (GitHub sends SIGTERM 7.5 s after SIGINT). Applies from the start when the signal already aborted, and
 * cuts a stop already under way when it aborts meanwhile.
 */
export interface StopCut {
  signal?: AbortSignal | undefined;
  budgetMs: number;
}

/** Requests the stop and verifies it within `budgetMs`; escalates to the lease when the request does not land. */
export async function stopAndVerify(
  c: StopContext,
  experimentId: string,
  reason: string,
  budgetMs: number,
  ended?: ExperimentState,
  cut?: StopCut,
): Promise<StopOutcome> {
  const { clock, injector } = c;
  const t0 = clock.now();
  if (cut?.signal?.aborted) budgetMs = Math.min(budgetMs, cut.budgetMs);
  let deadline = t0 + budgetMs;
  let escalateAt = t0 + Math.min(STOP_ESCALATE_AFTER_MS, Math.floor(budgetMs / 2));
  const done = new AbortController();
  let accepted = false;
  let terminalSeen: ExperimentState | undefined;
  // FIS already reported the end (completed, failed, stopped by a stop condition): the stop request
  // below is a formality, and the fault ended by itself.
  let alreadyEnded = ended !== undefined && TERMINAL_STATUSES.has(ended.status);
  let requestInFlight: Promise<void> | undefined;
  let lastError: string | undefined;
  let last = 'unknown';

  const request = (again = false): Promise<void> => {
    if ((accepted && !again) || requestInFlight) return requestInFlight ?? Promise.resolve();
    requestInFlight = within(
      clock,
      Math.min(STOP_CALL_DEADLINE_MS, Math.max(1, deadline - clock.now())),
      'FIS StopExperiment',
      (s) => injector.stop(experimentId, reason, s),
    )
      .then(() => {
        accepted = true;
      })
      .catch((error: unknown) => {
        lastError = errorMessage(error);
      })
      .finally(() => {
        requestInFlight = undefined;
      });
    return requestInFlight;
  };

  // A terminal answer from any read ends the wait: `wake` interrupts the poll pause.
  let wake = new AbortController();
  let readsInFlight = 0;
  const read = (): void => {
    const left = deadline - clock.now();
    if (left <= 0 || readsInFlight >= MAX_READS_IN_FLIGHT) return;
    readsInFlight++;
    void within(clock, left, 'FIS GetExperiment', (s) => injector.state(experimentId, s), done.signal)
      .then((s) => {
        if (terminalSeen || done.signal.aborted) return;
        last = s.status;
        if (c.noteState(s)) {
          terminalSeen = s;
          if (!accepted && !c.lease?.tripped) alreadyEnded = true;
          else if (s.status !== 'stopped' && s.status !== 'cancelled') alreadyEnded = true;
          wake.abort();
        } else if (s.status !== 'stopping') {
          // FIS shows no stop yet (still running): ask again, the first request may have been lost.
          void request(true);
        }
      })
      .catch((error: unknown) => {
        if (!done.signal.aborted) last = `unreadable (${errorMessage(error)})`;
      })
      .finally(() => {
        readsInFlight--;
      });
  };

  // Wait for the first answer, but not past the escalation time: a hanging StopExperiment must not
  // delay the lease taking over.
  const first = new AbortController();
  const onCut = (): void => {
    if (!cut) return;
    const now = clock.now();
    if (now + cut.budgetMs < deadline) {
      deadline = now + cut.budgetMs;
      budgetMs = deadline - t0;
      escalateAt = Math.min(escalateAt, now + Math.floor(cut.budgetMs / 2));
    }
    const by: unknown = cut.signal?.reason;
    c.event(
      'signal',
      `cancelled by ${typeof by === 'string' ? by : 'a signal'} while stopping: the stop is verified for ${formatSeconds(deadline - now)} more${c.offset(now)}`,
      { signal: typeof by === 'string' ? by : 'cancellation', during: 'stop' },
    );
    first.abort();
    wake.abort();
  };
  if (cut?.signal && !cut.signal.aborted) cut.signal.addEventListener('abort', onCut, { once: true });
  await Promise.race([request(), clock.sleep(Math.max(0, escalateAt - clock.now()), first.signal)]);
  first.abort();
  c.event(
    'stop-requested',
    accepted
      ? `stop requested: ${reason}`
      : `stop request not accepted (${lastError ?? 'no answer'}); verifying the state and asking again`,
    accepted ? { experimentId } : { experimentId, error: lastError },
  );

  let delay = STOP_POLL_INITIAL_MS;
  try {
    for (;;) {
      read();
      if (!accepted) void request();
      const now = clock.now();
      if (terminalSeen) break;
      // Escalate: the stop has not been seen in time — the request did not land, or FIS's state cannot be
      // read to confirm it — so let FIS's own stop condition end the fault as well.
      if (now >= escalateAt && c.lease && !c.lease.tripped) {
        await c.lease.trip(
          accepted
            ? `StopExperiment accepted but no stop seen within ${formatSeconds(now - t0)} (last state ${last})`
            : `StopExperiment not accepted within ${formatSeconds(now - t0)}${lastError ? `: ${lastError}` : ''}`,
          done.signal,
        );
        // FIS now stops on its own: look again soon rather than after the grown backoff.
        delay = STOP_POLL_INITIAL_MS;
        continue;
      }
      // A stop being verified within its budget is progress; an escalated one is in the lease's hands.
      if (!c.lease?.tripped) c.lease?.progress();
      const left = deadline - clock.now();
      if (left <= 0) break;
      wake = new AbortController();
      // Without a lease there is nothing to escalate to: the backoff alone sets the pace.
      const untilEscalation = c.lease && !c.lease.tripped ? escalateAt - clock.now() : Infinity;
      await clock.sleep(Math.max(1, Math.min(delay, left, untilEscalation)), wake.signal);
      if (terminalSeen) break;
      delay = Math.min(delay * 2, STOP_POLL_MAX_MS);
    }
  } finally {
    cut?.signal?.removeEventListener('abort', onCut);
    done.abort();
    await c.lease?.settled();
  }

  if (terminalSeen) {
    const by: StopOutcome['by'] = alreadyEnded
      ? 'already-ended'
      : accepted
        ? 'stop-experiment'
        : c.lease?.tripped
          ? 'lease'
          : 'unknown';
    const path =
      by === 'stop-experiment'
        ? 'StopExperiment'
        : by === 'lease'
          ? 'the lease alarm (a stop condition)'
          : by === 'already-ended'
            ? 'its own end'
            : 'an unknown path';
    // FIS's own word on how it ended (its reason once terminal, not the "Stopping Experiment." of the
    // request) goes into the journal with the path.
    const fis = [terminalSeen.reason, terminalSeen.errorCode].filter(Boolean).join(', ');
    const data: Record<string, unknown> = {
      status: terminalSeen.status,
      by,
      leaseTripped: c.lease?.tripped === true,
    };
    if (terminalSeen.reason !== undefined) data.reason = terminalSeen.reason;
    if (terminalSeen.errorCode !== undefined) data.errorCode = terminalSeen.errorCode;
    c.event(
      'stop-verified',
      `experiment ${experimentId} ${terminalSeen.status} by ${path}${fis ? ` (FIS: ${fis})` : ''}${c.offset()}`,
      data,
    );
    return { verified: true, by };
  }
  const region = c.region ? ` --region ${c.region}` : '';
  const commands = [
    `aws fis stop-experiment --id ${experimentId}${region}`,
    `aws fis get-experiment --id ${experimentId}${region}`,
  ];
  // Only what is known: whether StopExperiment was accepted, and whether forcing the lease alarm was
  // accepted by CloudWatch or refused on every attempt (or never tried).
  const lease = !c.lease?.tripped
    ? []
    : c.lease.forced
      ? ['CloudWatch accepted forcing the lease alarm to ALARM']
      : [
          'every attempt to force the lease alarm to ALARM was refused (the alarm still trips once a period passes without heartbeats)',
        ];
  const tried = [accepted ? 'StopExperiment was accepted' : 'StopExperiment was not accepted', ...lease].join(
    ' and ',
  );
  c.event(
    'stop-failed',
    `stop of FIS experiment ${experimentId} not verified within ${formatSeconds(budgetMs)}: ${tried}, ` +
      `but FIS's state was never seen stopped (last state ${last}); check it and stop it by hand: ${commands[0]}`,
    {
      experimentId,
      lastState: last,
      manualCommands: commands,
      leaseTripped: c.lease?.tripped === true,
      leaseForced: c.lease?.forced === true,
    },
  );
  return { verified: false, by: 'unknown' };
}

/** Whether a state is terminal (re-exported for the run loop). */
export function isTerminal(s: ExperimentState): boolean {
  return TERMINAL_STATUSES.has(s.status);
}
