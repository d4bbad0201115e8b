/**
 * The webhook sink: CloudEvents in HTTP binary mode carrying CDEvents, the CD Foundation's vocabulary
 * for pipeline events, so any CDEvents consumer (Keptn, Tekton's, a custom broker) reads the gate as a
 * test suite run. The experiment is a `testsuiterun` (started when the run begins, finished with the
 * verdict as its outcome); each SLI and expectation of the hypothesis is a `testcaserun.finished`.
 * Binary mode: the CloudEvents attributes travel as `ce-*` headers, the body is the CDEvent itself.
 * With a secret, every delivery carries `X-Chaos-Gate-Signature: sha256=<hex>`, the HMAC-SHA256 of the
 * exact body bytes, the way GitHub signs its webhooks (`X-Hub-Signature-256`).
 */
import { createHmac, randomUUID } from 'node:crypto';
import type { Journal, JournalHeader } from '../journal/types.js';
import { faultWindow, hypothesisCases, verdictOf, verdictOutcome, type HypothesisCase } from './summary.js';
import type { RunLinks, Sink, SinkCall, SinkContext, SinkTarget } from './sink.js';

/** The CDEvents specification version the events are written (and tested) against. */
export const CDEVENTS_SPEC_VERSION = '0.6.0-draft';
export const CDEVENT_TYPES = {
  suiteStarted: 'dev.cdevents.testsuiterun.started.0.3.0',
  suiteFinished: 'dev.cdevents.testsuiterun.finished.0.3.0',
  caseFinished: 'dev.cdevents.testcaserun.finished.0.3.0',
} as const;
export const SIGNATURE_HEADER = 'x-chaos-gate-signature';

/** `sha256=<hex>` of `body` under `secret`: what a receiver recomputes and compares in constant time. */
export function signature(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body, 'utf8').digest('hex')}`;
}

interface CdEvent {
  context: {
    specversion: string;
    id: string;
    source: string;
    type: string;
    timestamp: string;
    chainId: string;
    links?: unknown[];
  };
  subject: { id: string; source: string; content: Record<string, unknown> };
  customData?: Record<string, unknown>;
  customDataContentType?: string;
}

export class CdEventsSink implements Sink {
  readonly kind = 'cdevents' as const;
  readonly display: string;
  /** One chain id for every event of the run, and the started event's id the finished ones link to. */
  private readonly chainId = randomUUID();
  private startedId: string | undefined;

  constructor(
    private readonly target: SinkTarget,
    private readonly ctx: SinkContext,
    private readonly secret: string | undefined,
    display: string,
  ) {
    this.display = display;
  }

  started(h: JournalHeader): SinkCall[] {
    const links = this.ctx.links();
    const content: Record<string, unknown> = {
      environment: { id: h.environment },
      testSuite: { id: h.planId, name: h.title, version: h.planDigest },
      trigger: links.run ? { type: 'pipeline', uri: links.run } : { type: 'manual' },
    };
    const e = this.build(CDEVENT_TYPES.suiteStarted, h, suiteId(h), content, {
      service: h.service,
      runId: h.runId,
      links: linkData(links),
    });
    this.startedId = e.context.id;
    return [this.call('testsuiterun.started', e)];
  }

  measurement(): SinkCall[] {
    return [];
  }

  event(): SinkCall[] {
    return [];
  }

  finished(j: Journal): SinkCall[] {
    const suite = suiteId(j);
    const cases = hypothesisCases(j).map((c) =>
      this.call(`testcaserun.finished ${c.name}`, this.caseEvent(j, c)),
    );
    const window = faultWindow(j);
    const { verdict, reason } = verdictOf(j);
    const e = this.build(
      CDEVENT_TYPES.suiteFinished,
      j,
      suite,
      {
        environment: { id: j.environment },
        testSuite: { id: j.planId, name: j.title, version: j.planDigest },
        outcome: verdictOutcome(verdict),
        ...(verdict === 'aborted' ? { severity: 'high' } : {}),
        reason: `${verdict}: ${reason}`,
      },
      {
        verdict,
        reason,
        exitCode: j.exitCode,
        service: j.service,
        runId: j.runId,
        ...(j.experimentId ? { experimentId: j.experimentId } : {}),
        ...(window
          ? {
              faultWindow: {
                from: new Date(window.from).toISOString(),
                to: new Date(window.to).toISOString(),
              },
            }
          : {}),
        links: linkData(this.ctx.links()),
      },
    );
    return [...cases, this.call('testsuiterun.finished', e)];
  }

  private caseEvent(j: Journal, c: HypothesisCase): CdEvent {
    return this.build(
      CDEVENT_TYPES.caseFinished,
      j,
      `${suiteId(j)}/${c.name}`,
      {
        environment: { id: j.environment },
        testSuiteRun: { id: suiteId(j), source: this.source() },
        testCase: { id: `${j.planId}/${c.name}`, name: c.name, type: 'performance', version: j.planDigest },
        outcome: c.outcome,
        reason: c.reason,
      },
      {
        kind: c.kind,
        bound: c.bound,
        readings: c.readings,
        breaches: c.breaches,
        tolerated: c.tolerated,
        worst: c.worst,
      },
    );
  }

  private source(): string {
    return this.ctx.links().run ?? '/chaos-gate';
  }

  private build(
    type: string,
    h: JournalHeader,
    subjectId: string,
    content: Record<string, unknown>,
    customData: Record<string, unknown>,
  ): CdEvent {
    const source = this.source();
    const links =
      this.startedId && type !== CDEVENT_TYPES.suiteStarted
        ? [{ linkType: 'PATH', from: { contextId: this.startedId } }]
        : undefined;
    return {
      context: {
        specversion: CDEVENTS_SPEC_VERSION,
        id: randomUUID(),
        source,
        type,
        timestamp: new Date(this.ctx.now()).toISOString(),
        chainId: this.chainId,
        ...(links ? { links } : {}),
      },
      subject: { id: subjectId, source, content },
      customData: { planId: h.planId, ...customData },
      customDataContentType: 'application/json',
    };
  }

  /** A binary-mode CloudEvent: the attributes as `ce-*` headers, the CDEvent as the body. */
  private call(label: string, e: CdEvent): SinkCall {
    const secret = this.secret;
    return {
      label,
      request: () => ({
        method: 'POST',
        url: this.target.url,
        headers: {
          'ce-specversion': '1.0',
          'ce-id': e.context.id,
          'ce-source': e.context.source,
          'ce-type': e.context.type,
          'ce-time': e.context.timestamp,
          'ce-subject': e.subject.id,
        },
        body: e,
        sign: secret ? (bytes) => ({ [SIGNATURE_HEADER]: signature(secret, bytes) }) : undefined,
      }),
    };
  }
}

/** The test suite run: one per run attempt. */
function suiteId(h: JournalHeader): string {
  return `${h.planId}/${h.runId}/${h.attempt ?? 1}`;
}

function linkData(links: RunLinks): Record<string, string> {
  return {
    ...(links.run ? { run: links.run } : {}),
    ...(links.checkRun ? { checkRun: links.checkRun } : {}),
  };
}
