/**
 * What a run asks AWS before its plan is loaded: whether the kill switch is engaged. The answer depends
 * on the account and Region alone, never on the plan, so its request goes out first, and its network
 * time (and the credential chain's) runs beside the parsing of the plan and the loading of the rest of
 * the run. The kill-switch gate then takes that answer when it is fresh enough and reads again when it is
 * not; every later read (the mid-run check) is a new one.
 *
 * This module loads the CloudWatch client and nothing of the plan or of FIS: the action loads it, sends
 * the read, and only then loads the run (src/action/engine.ts). The FIS client is created when the run
 * asks for the clients, after the plan has loaded. That is what brings the action's first AWS call
 * within its cold-start target (`npm run bench`, cold start).
 */
import { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import { systemClock, type Clock } from '../clock/clock.js';
import type { AwsClients } from '../injector/aws/clients.js';
import { awsClientConfig, resolveRegion } from '../injector/aws/config.js';
import { classified } from '../injector/aws/setup-error.js';
import { killSwitchStatus } from '../injector/fis/kill-switch-state.js';
import type { KillSwitchProbe } from '../injector/ports.js';

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
}

/** Creates the CloudWatch client and sends the kill-switch read. Never throws: a failed read is the gate's. */
export function startEarlyReads(o: {
  region?: string | undefined;
  env: NodeJS.ProcessEnv;
  clock?: Clock | undefined;
}): EarlyReads {
  const region = resolveRegion({ region: o.region, env: o.env });
  const config = awsClientConfig(region);
  const cloudwatch = new CloudWatchClient(config);
  let clients: Promise<AwsClients> | undefined;
  const getClients = (): Promise<AwsClients> =>
    (clients ??= import('../injector/aws/clients.js').then((m) =>
      m.withFisClient(cloudwatch, region, config),
    ));
  const probe: KillSwitchProbe = {
    engaged: (signal) =>
      classified(() =>
        killSwitchStatus({ cloudwatch, fis: async () => (await getClients()).fis, region }, signal),
      ),
  };
  return { region, clients: getClients, killSwitch: readAhead(probe, o.clock ?? systemClock) };
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
): KillSwitchProbe {
  const sentAt = clock.now();
  let early: ReturnType<KillSwitchProbe['engaged']> | undefined = probe.engaged();
  early.catch(() => undefined);
  return {
    engaged(signal) {
      const taken = early;
      early = undefined;
      if (taken && clock.now() - sentAt <= maxAgeMs) return taken;
      return probe.engaged(signal);
    },
  };
}
