/**
 * FIS's read-only reference data: GetAction and ListActions from the sandbox's action catalog, and
 * Get/ListTargetResourceTypes from the resource types the sandbox knows.
 */
import { KNOWN_RESOURCE_TYPES } from '../targets.js';
import { ACTION_CATALOG, type CatalogAction } from './catalog.js';
import { notFound } from './errors.js';
import type { FisStore, Json } from './store.js';
import { listAnswer } from './wire.js';

/** GetAction: one catalog action with its parameters. */
export function getAction(store: FisStore, input: Json): Json {
  const a = ACTION_CATALOG.get(String(input.id));
  if (!a) throw notFound(`Action ${String(input.id)} not found.`);
  return { action: actionView(store, a, true) };
}

/** ListActions: every catalog action, without parameters. */
export function listActions(store: FisStore, input: Json): Json {
  return listAnswer(
    'actions',
    [...ACTION_CATALOG.values()].map((a) => actionView(store, a, false)),
    input,
  );
}

/** ListTargetResourceTypes, in name order. */
export function listTargetResourceTypes(input: Json): Json {
  return listAnswer(
    'targetResourceTypes',
    [...KNOWN_RESOURCE_TYPES].sort().map((resourceType) => ({
      resourceType,
      description: `FIS target resource type ${resourceType}.`,
    })),
    input,
  );
}

/** GetTargetResourceType. */
export function getTargetResourceType(input: Json): Json {
  const type = String(input.resourceType);
  if (!KNOWN_RESOURCE_TYPES.has(type)) throw notFound(`Target resource type ${type} not found.`);
  return {
    targetResourceType: {
      resourceType: type,
      description: `FIS target resource type ${type}.`,
      parameters: {},
    },
  };
}

function actionView(store: FisStore, a: CatalogAction, full: boolean): Json {
  return {
    id: a.id,
    arn: store.arn(`action/${a.id}`),
    description: a.description,
    ...(full
      ? {
          parameters: Object.fromEntries(
            Object.entries(a.parameters).map(([k, p]) => [
              k,
              { description: p.description, required: p.required },
            ]),
          ),
        }
      : {}),
    targets: a.target ? { [a.target.key]: { resourceType: a.target.resourceType } } : {},
    tags: {},
  };
}
