/**
 * The PagerDuty sink: Events API v2 *change* events (`POST /v2/change/enqueue`) when the fault starts
 * and when it ends, so on-call sees the experiment in the service's timeline next to any incident it
 * caused. A change event never creates an incident or pages anyone; this sink sends no other kind (no
 * `event_action`, never `/v2/enqueue`). The routing key (the integration key of a change integration)
 * comes from `PAGERDUTY_ROUTING_KEY` and is registered with the redactor.
 */
import type { Journal, JournalEvent, JournalHeader } from '../journal/types.js';
import { runTitle, verdictOf } from './summary.js';
import type { RunLinks, Sink, SinkCall, SinkContext, SinkTarget } from './sink.js';

/** PagerDuty's documented limit on `payload.summary`. */
export const PAGERDUTY_SUMMARY_MAX = 1024;
export const PAGERDUTY_CHANGE_PATH = '/v2/change/enqueue';

/** The change-events endpoint under a base URL (`https://events.pagerduty.com`), or the URL as given. */
export function changeUrl(url: string): string {
  const u = new URL(url);
  if (!u.pathname.endsWith(PAGERDUTY_CHANGE_PATH))
    u.pathname = `${u.pathname.replace(/\/$/, '')}${PAGERDUTY_CHANGE_PATH}`;
  return u.toString();
}

function links(l: RunLinks): { href: string; text: string }[] {
  return [
    ...(l.run ? [{ href: l.run, text: 'chaos-gate CI run' }] : []),
    ...(l.checkRun ? [{ href: l.checkRun, text: 'chaos-gate check run' }] : []),
  ];
}

export class PagerDutySink implements Sink {
  readonly kind = 'pagerduty' as const;
  private startSent = false;
  private endSent = false;

  constructor(
    private readonly target: SinkTarget,
    private readonly ctx: SinkContext,
    private readonly routingKey: string,
    readonly display: string,
  ) {}

  started(): SinkCall[] {
    return [];
  }

  measurement(): SinkCall[] {
    return [];
  }

  event(e: JournalEvent, h: JournalHeader): SinkCall[] {
    if (e.type === 'inject' && !this.startSent) {
      this.startSent = true;
      const id = typeof e.data?.experimentId === 'string' ? ` (FIS experiment ${e.data.experimentId})` : '';
      return [
        this.change('fault start', h, e.at, `chaos-gate: fault injected — ${runTitle(h)}${id}`, {
          phase: 'fault-start',
        }),
      ];
    }
    if (e.type === 'fault-ended' && this.startSent && !this.endSent) {
      this.endSent = true;
      return [
        this.change('fault end', h, e.at, `chaos-gate: fault ended — ${runTitle(h)}`, { phase: 'fault-end' }),
      ];
    }
    return [];
  }

  /** A fault FIS never reported ended (the stop was not verified) still closes the window, with the verdict. */
  finished(j: Journal): SinkCall[] {
    if (!this.startSent || this.endSent) return [];
    this.endSent = true;
    const at = j.timings.stopRequestedAt ?? j.timings.finishedAt ?? this.ctx.now();
    const { verdict, reason } = verdictOf(j);
    return [
      this.change(
        'fault end',
        j,
        at,
        `chaos-gate: fault window closed without a verified end — ${runTitle(j)}: ${verdict}: ${reason}`,
        { phase: 'fault-end', verdict, verified: false },
      ),
    ];
  }

  private change(
    label: string,
    h: JournalHeader,
    at: number,
    summary: string,
    details: Record<string, unknown>,
  ): SinkCall {
    const body = {
      payload: {
        summary:
          summary.length <= PAGERDUTY_SUMMARY_MAX
            ? summary
            : `${summary.slice(0, PAGERDUTY_SUMMARY_MAX - 1)}…`,
        source: `chaos-gate/${h.service}`,
        timestamp: new Date(at).toISOString(),
        custom_details: {
          plan: h.planId,
          service: h.service,
          environment: h.environment,
          run: h.runId,
          ...details,
        },
      },
      links: links(this.ctx.links()),
    };
    return {
      label,
      request: () => ({
        method: 'POST',
        url: changeUrl(this.target.url),
        body,
        credentialFields: { routing_key: this.routingKey },
      }),
    };
  }
}
