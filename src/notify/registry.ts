/**
 * The sink registry: one factory per kind. A new sink is a module and a line here; nothing else in the
 * run knows the kinds.
 */
import { CdEventsSink } from './cdevents.js';
import type { NotifyCredentials, NotifyTarget } from './config.js';
import { GitHubDeploymentSink, type DeploymentSettings } from './github-deployment.js';
import { GrafanaSink } from './grafana.js';
import { PagerDutySink } from './pagerduty.js';
import type { NotifyKind, Sink, SinkContext } from './sink.js';
import { SlackSink } from './slack.js';

type Factory = (target: NotifyTarget, ctx: SinkContext, c: NotifyCredentials) => Sink;

export const SINKS: Record<NotifyKind, Factory> = {
  cdevents: (t, ctx, c) => new CdEventsSink(t, ctx, c.webhookSecret, t.display),
  slack: (t, ctx, c) => new SlackSink(t, ctx, c.slackStart, t.display),
  pagerduty: (t, ctx, c) => new PagerDutySink(t, ctx, c.pagerdutyRoutingKey ?? '', t.display),
  grafana: (t, ctx, c) => new GrafanaSink(t, ctx, c.grafanaToken ?? '', c.grafanaDashboardUid, t.display),
};

/**
 * The sinks of `targets` (credentials checked by `notifyCredentials` beforehand), and the GitHub
 * deployment sink when the front door configured one.
 */
export function createSinks(
  targets: readonly NotifyTarget[],
  ctx: SinkContext,
  credentials: NotifyCredentials,
  deployment?: DeploymentSettings,
): Sink[] {
  return [
    ...targets.map((t) => SINKS[t.kind](t, ctx, credentials)),
    ...(deployment ? [new GitHubDeploymentSink(deployment, ctx)] : []),
  ];
}
