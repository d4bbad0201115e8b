/**
 * The fan-out: a journal writer around the run's own that tells every sink what the journal records —
 * the header (`started`), each measurement and event — and, at `finish`, the final journal with the
 * verdict. The engine writes its journal as it always does and knows nothing of sinks; the front doors
 * wrap the writer they hand it (compose/run.ts). Every sink call goes to the dispatcher and returns at
 * once; only `finish` waits, a bounded time after the stop and the verdict, for the queue to empty. A
 * call that failed is a `notify` event in the journal (and on the front door's `onEvent`, the step
 * log), written before the final record, and changes nothing else.
 */
import type { Journal, JournalEvent, JournalHeader, Measurement } from '../journal/types.js';
import type { JournalFinal, JournalPatch, JournalWriter } from '../journal/writer.js';
import { redact, secrets } from '../security/redact.js';
import type { DeploymentSettings } from './github-deployment.js';
import { notifyCredentials, type NotifyCredentials, type NotifyTarget } from './config.js';
import { Dispatcher, NOTIFY_DEADLINES, type NotifyFailure } from './dispatch.js';
import { createSinks } from './registry.js';
import type { NotifyKind, RunLinks, Sink } from './sink.js';

export { NOTIFY_ENV, parseNotifyTargets, type NotifyTarget } from './config.js';
export { NOTIFY_DEADLINES } from './dispatch.js';
export type { RunLinks } from './sink.js';
export type { DeploymentSettings } from './github-deployment.js';

/** What a front door configured: the targets and their credentials, read and registered once. */
export interface NotifySettings {
  targets: NotifyTarget[];
  credentials: NotifyCredentials;
  /** The GitHub deployment the statuses go to (the action's `deployment-id`/`environment`). */
  deployment?: DeploymentSettings | undefined;
}

/**
 * The settings of parsed targets: the credentials they need read from `env` (and registered with the
 * redactor); undefined when there are no targets and no deployment. Throws `BadInputError` for a
 * missing credential.
 */
export function notifySettings(
  targets: readonly NotifyTarget[],
  env: Record<string, string | undefined>,
  deployment?: DeploymentSettings,
): NotifySettings | undefined {
  if (targets.length === 0 && !deployment) return undefined;
  if (deployment) secrets.add(deployment.token);
  return {
    targets: [...targets],
    credentials: notifyCredentials(targets, env),
    ...(deployment ? { deployment } : {}),
  };
}

/** The CI run's page (and the check run's, when its id is known) from GitHub's environment. */
export function runLinks(env: Record<string, string | undefined>, checkRunId?: number): RunLinks {
  const server = env.GITHUB_SERVER_URL || 'https://github.com';
  const repo = env.GITHUB_REPOSITORY;
  if (!repo) return {};
  return {
    ...(env.GITHUB_RUN_ID ? { run: `${server}/${repo}/actions/runs/${env.GITHUB_RUN_ID}` } : {}),
    ...(checkRunId !== undefined ? { checkRun: `${server}/${repo}/runs/${checkRunId}` } : {}),
  };
}

export interface NotifyOptions {
  settings: NotifySettings;
  /** The kinds the plan asks for (`notify:`); every configured one when absent. */
  wanted?: readonly NotifyKind[] | undefined;
  /** The run's clock. */
  now(): number;
  links?: (() => RunLinks) | undefined;
  /** The front door's event hook (step log, console), told of every `notify` event too. */
  onEvent?: ((e: JournalEvent) => void) | undefined;
  fetch?: typeof fetch | undefined;
  /** Deadline of one call, retries included, and the wait for the queue at the end (ms). */
  callMs?: number | undefined;
  drainMs?: number | undefined;
  backoffMs?: number | undefined;
}

/** `journal` with every sink of `o` listening; `journal` itself when none is configured. */
export function notifyingJournal(journal: JournalWriter, o: NotifyOptions | undefined): JournalWriter {
  if (!o) return journal;
  return new NotifyingJournal(journal, o);
}

class NotifyingJournal implements JournalWriter {
  private readonly sinks: Sink[];
  private readonly unwanted: NotifyTarget[];
  private readonly missing: NotifyKind[];
  private readonly dispatcher: Dispatcher;
  private header: JournalHeader | undefined;

  constructor(
    private readonly inner: JournalWriter,
    private readonly o: NotifyOptions,
  ) {
    const wanted = o.wanted ? new Set(o.wanted) : undefined;
    const targets = o.settings.targets.filter((t) => !wanted || wanted.has(t.kind));
    this.unwanted = o.settings.targets.filter((t) => !targets.includes(t));
    this.missing = [...(wanted ?? [])].filter((k) => !o.settings.targets.some((t) => t.kind === k));
    this.sinks = createSinks(
      targets,
      { now: o.now, links: o.links ?? (() => ({})) },
      o.settings.credentials,
      o.settings.deployment,
    );
    this.dispatcher = new Dispatcher({
      onFailure: (f) => this.failed(f),
      fetch: o.fetch,
      callMs: o.callMs,
      backoffMs: o.backoffMs,
    });
  }

  begin(header: JournalHeader): void {
    this.inner.begin(header);
    this.header = header;
    this.note(
      `notifications go to ${this.sinks.map((s) => s.display).join(', ') || 'no sink'}` +
        (this.unwanted.length
          ? `; not to ${this.unwanted.map((t) => t.kind).join(', ')} (the plan's notify: leaves it out)`
          : '') +
        (this.missing.length
          ? `; the plan asks for ${this.missing.join(', ')}, which is not configured`
          : ''),
      { sinks: this.sinks.map((s) => s.kind) },
    );
    this.fan((s) => s.started(header));
  }

  event(e: JournalEvent): void {
    this.inner.event(e);
    const header = this.header;
    if (header) this.fan((s) => s.event(e, header));
  }

  measurement(m: Measurement): void {
    this.inner.measurement(m);
    this.fan((s) => s.measurement(m));
  }

  update(patch: JournalPatch): void {
    this.inner.update(patch);
  }

  async finish(final: JournalFinal): Promise<Journal> {
    const journal: Journal = { ...this.inner.snapshot(), ...final, complete: true };
    this.fan((s) => s.finished(journal));
    await this.dispatcher.drain(this.o.drainMs ?? NOTIFY_DEADLINES.drainMs);
    return this.inner.finish(final);
  }

  snapshot(): Journal {
    return this.inner.snapshot();
  }

  /** Hands each sink's calls to the dispatcher; a sink that throws building them is a failure, not a crash. */
  private fan(calls: (s: Sink) => ReturnType<Sink['started']>): void {
    for (const sink of this.sinks) {
      try {
        this.dispatcher.enqueue(sink, calls(sink));
      } catch (error) {
        this.failed({ sink: sink.kind, call: 'building the notification', error: String(error) });
      }
    }
  }

  private failed(f: NotifyFailure): void {
    this.note(
      `notification to ${f.sink} failed (${f.call}): ${f.error}; the verdict and the run are unaffected`,
      { sink: f.sink, call: f.call, error: f.error, ...(f.pending ? { pending: true } : {}) },
    );
  }

  private note(message: string, data: Record<string, unknown>): void {
    const e: JournalEvent = { at: this.o.now(), type: 'notify', message: redact(message), data };
    this.inner.event(e);
    this.o.onEvent?.(e);
  }
}
