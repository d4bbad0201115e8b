/**
 * The one outbound interface: a *sink* hears a run begin, measure, record events and finish, and answers
 * each with the HTTP calls it wants made. A sink never makes a call itself: the dispatcher
 * (dispatch.ts) makes them beside the run loop, each within a deadline and with retries inside it, so no
 * sink can hold up a measurement or a stop, and a failed call is reported instead of changing anything.
 */
import type { Journal, JournalEvent, JournalHeader, Measurement } from '../journal/types.js';
import type { NotifyKind } from '../plan/schema.js';

export type { NotifyKind } from '../plan/schema.js';
export { NOTIFY_KINDS } from '../plan/schema.js';

/** Where a reader of a notification finds more: the CI run and the check run, when there are ones. */
export interface RunLinks {
  run?: string | undefined;
  checkRun?: string | undefined;
}

/** One HTTP request a sink wants made. The body is JSON-serialised and redacted by the dispatcher. */
export interface SinkRequest {
  method: 'POST' | 'PATCH' | 'PUT';
  url: string;
  headers?: Record<string, string>;
  body: unknown;
  /**
   * Top-level body fields added after the redaction: the one place a credential belongs in a body
   * (PagerDuty's `routing_key`), which the redactor would otherwise mask like any other secret.
   */
  credentialFields?: Record<string, string> | undefined;
  /**
   * Turns the body, once redacted and serialised, into the headers that depend on it (an HMAC
   * signature is over the exact bytes sent).
   */
  sign?: ((bytes: string) => Record<string, string>) | undefined;
}

/**
 * One call of a sink: `request()` is built when the call is made (not when it is queued), so a call can
 * use what an earlier call of the same sink answered (Grafana's annotation id); `accept` reads the answer.
 */
export interface SinkCall {
  /** What the call is, for the failure report: e.g. `testsuiterun.finished`. */
  label: string;
  request(): SinkRequest;
  accept?: ((status: number, body: string) => void) | undefined;
}

/** What every sink is told about the run besides the journal: the links, and the clock's time. */
export interface SinkContext {
  links(): RunLinks;
  /** The run's clock: every timestamp a sink sends is the journal's time. */
  now(): number;
}

/**
 * What a sink is: a `notify` kind (configured as `KIND=URL`), or the GitHub deployment sink, which the
 * action configures from its `deployment-id`/`environment` inputs and its token.
 */
export type SinkKind = NotifyKind | 'github-deployment';

/** A notification sink. Each hook returns the calls to make; the calls of one sink are made in order. */
export interface Sink {
  readonly kind: SinkKind;
  /** A description without secrets, for logs: `slack https://hooks.slack.com/***`. */
  readonly display: string;
  started(header: JournalHeader): SinkCall[];
  measurement(m: Measurement): SinkCall[];
  event(e: JournalEvent, header: JournalHeader): SinkCall[];
  /** The journal with the verdict, reason and exit code of the final record. */
  finished(journal: Journal): SinkCall[];
}

/** The parts a sink is built from: its URL (a secret for Slack) and what the environment supplied. */
export interface SinkTarget {
  kind: NotifyKind;
  url: string;
}
