/**
 * What `@aws-sdk/client-fis@3.523.0` (the newest the registry offers) lacks, added deliberately.
 *
 * Its StartExperiment serializer keeps only clientToken, experimentTemplateId and tags: an
 * `experimentOptions: { actionsMode: 'skip-all' }` passed to it is silently dropped, so a "dry run" would
 * start a REAL experiment (SEMANTICS §9). This middleware writes the field into the serialized body
 * before content-length and signing, so the signature covers it. Callers must still check that the
 * response echoes `skip-all` (see `dryRun` in injector.ts): an endpoint that ignores the option is
 * caught there. ListExperiments' `experimentTemplateId` filter is dropped the same way and is added to
 * the query here.
 */
import type { FisClient } from '@aws-sdk/client-fis';
import { HttpRequest } from '@smithy/protocol-http';

/** Input fields the pinned client does not know, accepted on StartExperiment / ListExperiments. */
export interface FisInputExtensions {
  experimentOptions?: { actionsMode?: 'skip-all' | 'run-all' };
  experimentTemplateId?: string;
}

const PATCH_NAME = 'chaosGateFisPatches';

export function addFisPatches(client: FisClient): void {
  if (client.middlewareStack.identify().some((m) => m.startsWith(PATCH_NAME))) return;
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const input = args.input as FisInputExtensions;
      const request = args.request;
      if (HttpRequest.isInstance(request)) {
        if (context.commandName === 'StartExperimentCommand' && input.experimentOptions) {
          const body = JSON.parse(typeof request.body === 'string' ? request.body : '{}') as Record<
            string,
            unknown
          >;
          body.experimentOptions = input.experimentOptions;
          request.body = JSON.stringify(body);
          // content-length is computed after this step; drop any stale value.
          delete request.headers['content-length'];
        }
        if (context.commandName === 'ListExperimentsCommand' && input.experimentTemplateId) {
          request.query = { ...request.query, experimentTemplateId: input.experimentTemplateId };
        }
      }
      return next(args);
    },
    { step: 'build', priority: 'high', name: PATCH_NAME },
  );
}
