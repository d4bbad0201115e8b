/**
 * Notification settings, the same on every front door: `KIND=URL` entries (the CLI's repeatable
 * `--notify`, the action's `notify` input one per line), credentials from the environment only. Each
 * secret — the URL's path and query for the webhook kinds (a Slack webhook URL *is* its credential),
 * userinfo in any URL, the routing key, the token, the HMAC key — is registered with the one redactor
 * here, before anything can print it. Bad settings are input errors naming the entry and what is expected.
 */
import { BadInputError } from '../errors/bad-input.js';
import { displayUrl, secrets } from '../security/redact.js';
import { NOTIFY_KINDS, type NotifyKind, type SinkTarget } from './sink.js';

/** The environment variables notification credentials and options come from. */
export const NOTIFY_ENV = {
  webhookSecret: 'CHAOS_GATE_WEBHOOK_SECRET',
  pagerdutyRoutingKey: 'PAGERDUTY_ROUTING_KEY',
  grafanaToken: 'GRAFANA_TOKEN',
  grafanaDashboardUid: 'CHAOS_GATE_GRAFANA_DASHBOARD_UID',
  slackStart: 'CHAOS_GATE_SLACK_START',
} as const;

/** A configured sink: kind, URL, and a display form without secrets. */
export interface NotifyTarget extends SinkTarget {
  display: string;
}

/** Kinds whose whole URL is a credential (path and query included). */
const URL_IS_SECRET: ReadonlySet<NotifyKind> = new Set(['slack', 'cdevents']);

function registerUrl(kind: NotifyKind, url: URL, raw: string): void {
  secrets.addUrl(raw);
  if (url.search.length > 1) secrets.add(url.search.slice(1));
  if (URL_IS_SECRET.has(kind) && url.pathname.length > 1) {
    secrets.add(url.pathname + url.search);
    secrets.add(url.pathname);
  }
}

/** `slack https://hooks.slack.com/***`: how a target may be shown. */
function display(kind: NotifyKind, url: URL, raw: string): string {
  if (!URL_IS_SECRET.has(kind) || url.pathname.length <= 1) return `${kind} ${displayUrl(raw)}`;
  return `${kind} ${url.protocol}//${url.host}/***`;
}

/**
 * Parses `KIND=URL` entries (`what` names where they came from, for the error). Empty entries and `#`
 * comments are skipped; a kind named twice is an error, so nothing is notified twice.
 */
export function parseNotifyTargets(entries: readonly string[], what: string): NotifyTarget[] {
  const targets: NotifyTarget[] = [];
  for (const [i, entry] of entries.entries()) {
    const text = entry.trim();
    if (text === '' || text.startsWith('#')) continue;
    const eq = text.indexOf('=');
    const kind = (eq < 0 ? text : text.slice(0, eq)).trim();
    const raw = eq < 0 ? '' : text.slice(eq + 1).trim();
    const where = `${what} entry ${i + 1}`;
    if (!(NOTIFY_KINDS as readonly string[]).includes(kind))
      throw new BadInputError(
        `${where}: '${kind}' is not a notification kind; expected KIND=URL with KIND one of ${NOTIFY_KINDS.join(', ')}`,
      );
    const k = kind as NotifyKind;
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      secrets.add(raw);
      throw new BadInputError(
        `${where}: ${k}= needs an http(s) URL; got ${raw === '' ? 'nothing' : 'an unparseable URL'}`,
      );
    }
    registerUrl(k, url, raw);
    if (url.protocol !== 'https:' && url.protocol !== 'http:')
      throw new BadInputError(
        `${where}: ${k}= needs an http(s) URL; got ${url.protocol} (${display(k, url, raw)})`,
      );
    if (targets.some((t) => t.kind === k))
      throw new BadInputError(`${where}: ${k} is configured twice; give each kind one URL`);
    targets.push({ kind: k, url: raw, display: display(k, url, raw) });
  }
  return targets;
}

/** The credentials and options the targets need, from the environment; registered with the redactor. */
export interface NotifyCredentials {
  webhookSecret?: string | undefined;
  pagerdutyRoutingKey?: string | undefined;
  grafanaToken?: string | undefined;
  grafanaDashboardUid?: string | undefined;
  slackStart: boolean;
}

/** Reads the credentials `targets` need; a missing required one is an input error. */
export function notifyCredentials(
  targets: readonly NotifyTarget[],
  env: Record<string, string | undefined>,
): NotifyCredentials {
  const value = (name: string): string | undefined => {
    const v = env[name]?.trim();
    return v ? v : undefined;
  };
  const c: NotifyCredentials = {
    webhookSecret: value(NOTIFY_ENV.webhookSecret),
    pagerdutyRoutingKey: value(NOTIFY_ENV.pagerdutyRoutingKey),
    grafanaToken: value(NOTIFY_ENV.grafanaToken),
    grafanaDashboardUid: value(NOTIFY_ENV.grafanaDashboardUid),
    slackStart: /^(1|true|yes)$/i.test(value(NOTIFY_ENV.slackStart) ?? ''),
  };
  secrets.add(c.webhookSecret);
  secrets.add(c.pagerdutyRoutingKey);
  secrets.add(c.grafanaToken);
  const kinds = new Set(targets.map((t) => t.kind));
  if (kinds.has('pagerduty') && !c.pagerdutyRoutingKey)
    throw new BadInputError(
      `notify pagerduty= needs the routing key of a PagerDuty change integration in ${NOTIFY_ENV.pagerdutyRoutingKey}; it is not set`,
    );
  if (kinds.has('grafana') && !c.grafanaToken)
    throw new BadInputError(
      `notify grafana= needs a Grafana service-account token (annotations:write) in ${NOTIFY_ENV.grafanaToken}; it is not set`,
    );
  return c;
}
