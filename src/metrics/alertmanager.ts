/**
 * Alertmanager's API v2, read-only: `GET /api/v2/alerts` with the plan's matchers as `filter` parameters,
 * so Alertmanager applies its own matcher semantics. Only active and not-yet-processed alerts are asked
 * for; silenced and inhibited ones are included (a silence mutes a page, it does not make the service
 * healthy). An answer that is not the documented shape is an error, never an empty list: an empty list
 * counts as "no alert firing" only when Alertmanager said so.
 */
import { DEADLINES, withDeadline } from '../net/deadline.js';
import { parsePrometheusUrl } from './prometheus/url.js';
import { displayUrl } from '../security/redact.js';

/** One alert as Alertmanager reports it (the fields chaos-gate reads of a `gettableAlert`). */
export interface FiringAlert {
  fingerprint: string;
  /** RFC 3339, as Alertmanager sends it. */
  startsAt: string;
  labels: Record<string, string>;
  /** `active`, `suppressed` (silenced or inhibited) or `unprocessed`. */
  state: string;
}

/** How many bytes of an Alertmanager answer are read at most (a few thousand alerts). */
const MAX_BODY_BYTES = 4 * 1024 * 1024;

function isRecordOfStrings(v: unknown): v is Record<string, string> {
  return (
    typeof v === 'object' &&
    v !== null &&
    !Array.isArray(v) &&
    Object.values(v).every((x) => typeof x === 'string')
  );
}

/** The alerts of an API v2 answer; throws naming what is wrong when it is not a list of alerts. */
export function parseAlerts(body: unknown): FiringAlert[] {
  if (!Array.isArray(body)) throw new Error('the answer is not a JSON array of alerts');
  return body.map((a: unknown, i) => {
    const o = a as Record<string, unknown> | null;
    const status = o?.['status'] as Record<string, unknown> | undefined;
    if (
      !o ||
      typeof o['fingerprint'] !== 'string' ||
      typeof o['startsAt'] !== 'string' ||
      !isRecordOfStrings(o['labels']) ||
      typeof status?.['state'] !== 'string'
    )
      throw new Error(`alert [${i}] lacks fingerprint, startsAt, labels or status.state`);
    return {
      fingerprint: o['fingerprint'],
      startsAt: o['startsAt'],
      labels: o['labels'],
      state: status['state'],
    };
  });
}

/** A read-only Alertmanager API v2 client. */
export class AlertmanagerClient {
  private readonly base: URL;
  private readonly headers: Record<string, string> = { accept: 'application/json' };

  /** Throws a BadInputError naming `setting` when the URL is not http(s). */
  constructor(url: string, setting = 'alertmanager-url') {
    const { base, basic } = parsePrometheusUrl(url, setting);
    this.base = base;
    if (basic)
      this.headers['authorization'] =
        `Basic ${Buffer.from(`${basic.username}:${basic.password}`).toString('base64')}`;
  }

  /** The URL (credentials masked), for messages. */
  get display(): string {
    return displayUrl(this.base.href);
  }

  /** The alerts matching every matcher that are firing now; rejects when Alertmanager cannot say. */
  async firing(matchers: readonly string[], signal?: AbortSignal): Promise<FiringAlert[]> {
    const url = new URL('api/v2/alerts', this.base.href.endsWith('/') ? this.base : `${this.base.href}/`);
    url.searchParams.set('active', 'true');
    url.searchParams.set('unprocessed', 'true');
    for (const m of matchers) url.searchParams.append('filter', m.trim());
    return withDeadline(
      async (s) => {
        const res = await fetch(url, { headers: this.headers, signal: s });
        const text = await res.text();
        if (!res.ok) throw new Error(`Alertmanager answered HTTP ${res.status}`);
        if (text.length > MAX_BODY_BYTES) throw new Error('the Alertmanager answer is too large');
        let body: unknown;
        try {
          body = JSON.parse(text);
        } catch {
          throw new Error('the Alertmanager answer is not JSON');
        }
        return parseAlerts(body);
      },
      DEADLINES.alertmanagerRequest,
      'Alertmanager GET /api/v2/alerts',
      signal,
    ).catch((error: unknown) => {
      const message = error instanceof Error ? error.message : String(error);
      throw new Error(`reading ${this.display}: ${message}`, { cause: error });
    });
  }
}
