/**
 * The AWS assembly a run and a plan review share: from the FIS and CloudWatch clients (one configuration,
 * injector/aws/clients.ts), a Tagging API client in the same Region and the FIS injector that uses them,
 * with the per-account tagging lookup (assume-role) the environment asks for. Written once, so a review's
 * dry run resolves and checks targets exactly as the run's does.
 */
import type { ResourceGroupsTaggingAPIClient } from '@aws-sdk/client-resource-groups-tagging-api';
import type { Clock } from '../clock/clock.js';
import type { AwsClients } from '../injector/aws/clients.js';
import { targetAccountTaggingFromEnv } from '../injector/aws/assume-role.js';
import { createTaggingClient } from '../injector/aws/tagging.js';
import { FisInjector, type FisInjectorOptions } from '../injector/fis/injector.js';

/** The Tagging API client beside `clients` (GetResources is regional: the FIS Region). */
export function taggingClientOf(clients: AwsClients): ResourceGroupsTaggingAPIClient {
  return createTaggingClient({ region: clients.region });
}

/** What differs between the injector of a run and that of a review. */
export interface InjectorSettings {
  env: NodeJS.ProcessEnv;
  clock: Clock;
  /** The lease key of the run (or of the review: never a run's). */
  leaseKey: string;
  drift?: FisInjectorOptions['drift'];
  log?: FisInjectorOptions['log'];
}

/** The FIS injector on `clients`, tagging through `tagging` here and an assumed role in other accounts. */
export function fisInjectorOf(
  clients: AwsClients,
  tagging: ResourceGroupsTaggingAPIClient,
  o: InjectorSettings,
): FisInjector {
  return new FisInjector({
    fis: clients.fis,
    cloudwatch: clients.cloudwatch,
    region: clients.region,
    clock: o.clock,
    leaseKey: o.leaseKey,
    tagging,
    taggingFor: targetAccountTaggingFromEnv(o.env, clients.region, clients.fis.config.credentials),
    ...(o.drift ? { drift: o.drift } : {}),
    ...(o.log ? { log: o.log } : {}),
  });
}
