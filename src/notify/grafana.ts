/**
 * The Grafana sink: one region annotation from the injection to the end of the fault, so every
 * dashboard that shows annotations tagged `chaos-gate` (or the dashboard named by
 * `CHAOS_GATE_GRAFANA_DASHBOARD_UID`) shades the fault window. It is created at the injection
 * (`POST /api/annotations`, `time` = `timeEnd`) and completed with the verdict at the end
 * (`PATCH /api/annotations/:id`: the window's end, the verdict tag, the reason and a link). When the
 * creation did not get through, the end posts the whole region instead. The service-account token
 * (`GRAFANA_TOKEN`) is sent as `Authorization: Bearer` and registered with the redactor.
 */
import type { Journal, JournalEvent, JournalHeader } from '../journal/types.js';
import { faultWindow, runTitle, verdictOf } from './summary.js';
import type { Sink, SinkCall, SinkContext, SinkRequest, SinkTarget } from './sink.js';

/** The annotations endpoint under a Grafana base URL (a sub-path such as `/grafana` kept). */
export function annotationsUrl(base: string, id?: number): string {
  const u = new URL(base);
  u.pathname = `${u.pathname.replace(/\/$/, '')}/api/annotations${id === undefined ? '' : `/${id}`}`;
  return u.toString();
}

/** Grafana renders annotation text as HTML: what the run wrote is escaped, so it stays text. */
function html(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

export class GrafanaSink implements Sink {
  readonly kind = 'grafana' as const;
  private id: number | undefined;
  private created = false;

  constructor(
    private readonly target: SinkTarget,
    private readonly ctx: SinkContext,
    private readonly token: string,
    private readonly dashboardUID: string | undefined,
    readonly display: string,
  ) {}

  started(): SinkCall[] {
    return [];
  }

  measurement(): SinkCall[] {
    return [];
  }

  event(e: JournalEvent, h: JournalHeader): SinkCall[] {
    if (e.type !== 'inject' || this.created) return [];
    this.created = true;
    const body = {
      ...(this.dashboardUID ? { dashboardUID: this.dashboardUID } : {}),
      time: e.at,
      timeEnd: e.at,
      tags: this.tags(h, 'running'),
      text: `chaos-gate: fault injected — ${html(runTitle(h))}${this.linkHtml()}`,
    };
    return [
      {
        label: 'annotation create',
        request: () => this.request('POST', annotationsUrl(this.target.url), body),
        accept: (_status, text) => {
          const id = (JSON.parse(text) as { id?: unknown }).id;
          if (typeof id === 'number' && Number.isInteger(id)) this.id = id;
        },
      },
    ];
  }

  finished(j: Journal): SinkCall[] {
    const window = faultWindow(j);
    if (!window) return [];
    const { verdict, reason } = verdictOf(j);
    const fields = {
      time: window.from,
      timeEnd: window.to,
      tags: this.tags(j, verdict),
      text: `chaos-gate: ${verdict} — ${html(runTitle(j))}: ${html(reason)}${this.linkHtml()}`,
    };
    return [
      {
        label: 'annotation update',
        request: () =>
          this.id === undefined
            ? this.request('POST', annotationsUrl(this.target.url), {
                ...(this.dashboardUID ? { dashboardUID: this.dashboardUID } : {}),
                ...fields,
              })
            : this.request('PATCH', annotationsUrl(this.target.url, this.id), fields),
      },
    ];
  }

  private tags(h: JournalHeader, verdict: string): string[] {
    return [
      'chaos-gate',
      `service:${h.service}`,
      `plan:${h.planId}`,
      `environment:${h.environment}`,
      `verdict:${verdict}`,
    ];
  }

  private linkHtml(): string {
    const run = this.ctx.links().run;
    return run ? ` <a href="${html(run)}">CI run</a>` : '';
  }

  private request(method: 'POST' | 'PATCH', url: string, body: unknown): SinkRequest {
    return {
      method,
      url,
      headers: { authorization: `Bearer ${this.token}`, accept: 'application/json' },
      body,
    };
  }
}
