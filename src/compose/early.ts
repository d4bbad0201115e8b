/**
 * The run's first AWS request: whether the kill switch is engaged. The answer depends on the account and
 * Region alone, never on the plan, so it goes out as soon as the run knows it will ask — once the plan and
 * policy are loaded, the set-up checked and the static stage passed (compose/run.ts) — and its network
 * time (and the credential chain's) runs beside the rest of the assembly. A plan the static stage refuses
 * sends nothing (`readAhead: false`). The kill-switch gate then takes that answer when it is fresh enough
 * and reads again when it is not; every later read (the mid-run check) is a new one.
 *
 * This module loads the CloudWatch client and nothing of FIS: the FIS client is created when the run asks
 * for the clients.
 */
import diagnostics from 'node:diagnostics_channel';
import { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import { systemClock, type Clock } from '../clock/clock.js';
import type { AwsClients } from '../injector/aws/clients.js';
import { awsClientConfig, resolveRegion } from '../injector/aws/config.js';
import { classified } from '../injector/aws/setup-error.js';
import { killSwitchStatus } from '../injector/fis/kill-switch-state.js';
import type { KillSwitchProbe } from '../injector/ports.js';
import { longTimeout } from '../net/timer.js';

/**
 * How old (from when it was sent) a kill-switch answer may be when the gate takes it. A plan loads in
 * well under a second; a run whose gate comes later than this asks again rather than start on an old answer.
 */
export const EARLY_READ_MAX_AGE_MS = 10_000;

export interface EarlyReads {
  region: string;
  /**
   * The run's AWS clients: the CloudWatch client the early read went out on and a FIS client beside it
   * with the same configuration, created (and its module loaded) on the first call.
   */
  clients(): Promise<AwsClients>;
  /** The kill switch, whose first answer is already on its way. */
  killSwitch: KillSwitchProbe;
  /**
   * Settles once the kill-switch request has been created by Node's HTTP client (signed, its socket
   * connecting), or once the read has ended without getting there (no credentials), or after `capMs`,
   * whichever comes first. Never rejects. A front door that loads the rest of the run after it keeps that
   * loading from running ahead of the request: Node 24 otherwise reads and compiles the run's 30-odd
   * chunks while the SDK is still between its awaits, and the request leaves ~150 ms later.
   */
  sent(capMs?: number): Promise<void>;
}

/** Node's diagnostics channel for an HTTP client request being created (`node:http`). */
const HTTP_REQUEST_CHANNEL = 'http.client.request.start';

/** How long `sent()` waits at most: credentials from a web identity or a container take a request of their own. */
export const EARLY_SEND_WAIT_MS = 100;

/**
 * Creates the CloudWatch client and sends the kill-switch read. Never throws: a failed read is the gate's.
 * With `readAhead: false` nothing is sent: the kill-switch gate reads when the run reaches it (a run whose
 * plan the static stage refuses never does, and so sends no request at all).
 */
export function startEarlyReads(o: {
  region?: string | undefined;
  env: NodeJS.ProcessEnv;
  clock?: Clock | undefined;
  readAhead?: boolean | undefined;
}): EarlyReads {
  const region = resolveRegion({ region: o.region, env: o.env });
  const config = awsClientConfig(region);
  const cloudwatch = new CloudWatchClient(config);
  if (o.readAhead === false) {
    const clients = lazyClients(cloudwatch, region, config);
    return {
      region,
      clients,
      killSwitch: killSwitchProbeOn(cloudwatch, clients, region),
      sent: async () => undefined,
    };
  }
  // Node announces every HTTP request it creates on this channel; the first one after this point is the
  // kill-switch read's (the socket's connect starts in the same tick).
  let markSent = (): void => undefined;
  const handedOver = new Promise<void>((resolve) => (markSent = resolve));
  const onRequest = (): void => {
    diagnostics.unsubscribe(HTTP_REQUEST_CHANNEL, onRequest);
    markSent();
  };
  diagnostics.subscribe(HTTP_REQUEST_CHANNEL, onRequest);
  const getClients = lazyClients(cloudwatch, region, config);
  const probe = killSwitchProbeOn(cloudwatch, getClients, region);
  const killSwitch = readAhead(probe, o.clock ?? systemClock);
  // A read that ends before its request is handed over (no credentials) also releases `sent()`.
  const settled = killSwitch.first.then(
    () => undefined,
    () => undefined,
  );
  // No request at all (no credentials): nothing is left listening on Node's channel.
  void settled.then(() => diagnostics.unsubscribe(HTTP_REQUEST_CHANNEL, onRequest));
  return {
    region,
    clients: getClients,
    killSwitch,
    sent: (capMs = EARLY_SEND_WAIT_MS) =>
      Promise.race([
        handedOver,
        settled,
        new Promise<void>((resolve) => longTimeout(resolve, capMs).unref()),
      ]),
  };
}

/** The run's clients beside `cloudwatch`: the FIS client (and its module) on the first call. */
function lazyClients(
  cloudwatch: CloudWatchClient,
  region: string,
  config: ReturnType<typeof awsClientConfig>,
): () => Promise<AwsClients> {
  let clients: Promise<AwsClients> | undefined;
  return () =>
    (clients ??= import('../injector/aws/clients.js').then((m) =>
      m.withFisClient(cloudwatch, region, config),
    ));
}

/** The kill-switch read over `cloudwatch` (and FIS's safety lever), each call a new read. */
function killSwitchProbeOn(
  cloudwatch: CloudWatchClient,
  clients: () => Promise<AwsClients>,
  region: string,
): KillSwitchProbe {
  return {
    engaged: (signal) =>
      classified(() =>
        killSwitchStatus({ cloudwatch, fis: async () => (await clients()).fis, region }, signal),
      ),
  };
}

/**
 * `probe` with its first read sent now. The first `engaged()` returns that read (answered or still on its
 * way) when it was sent at most `maxAgeMs` ago, otherwise a new read; every later call is a new read. An
 * early read nobody takes (the plan did not load) is dropped without an unhandled rejection.
 */
export function readAhead(
  probe: KillSwitchProbe,
  clock: Clock,
  maxAgeMs = EARLY_READ_MAX_AGE_MS,
): KillSwitchProbe & { readonly first: ReturnType<KillSwitchProbe['engaged']> } {
  const sentAt = clock.now();
  const first = probe.engaged();
  first.catch(() => undefined);
  let early: typeof first | undefined = first;
  return {
    first,
    engaged(signal) {
      const taken = early;
      early = undefined;
      if (taken && clock.now() - sentAt <= maxAgeMs) return taken;
      return probe.engaged(signal);
    },
  };
}
