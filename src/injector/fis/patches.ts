/**
 * What `@aws-sdk/client-fis@3.523.0` (the newest the registry offers) lacks, added deliberately.
 *
 * Its StartExperiment serializer keeps only clientToken, experimentTemplateId and tags: an
 * `experimentOptions: { actionsMode: 'skip-all' }` passed to it is silently dropped, so a "dry run" would
 * start a REAL experiment (docs/design/fis.md#the-pinned-fis-client). This middleware writes the field into the serialized body
 * before content-length and signing, so the signature covers it. Callers must still check that the
 * response echoes `skip-all` (see `dryRun` in injector.ts): an endpoint that ignores the option is
 * caught there. ListExperiments' `experimentTemplateId` filter is dropped the same way and is added to
 * the query here.
 *
 * The same client drops `experimentReportConfiguration` both ways: from Create/UpdateExperimentTemplate
 * inputs (written into the body here) and from the templates it deserializes (read from the raw response
 * body here and put back on `output.experimentTemplate`), so a plan's report configuration reaches FIS
 * and its drift is seen.
 */
import type { FisClient } from '@aws-sdk/client-fis';
import { HttpRequest } from '@smithy/protocol-http';
import type { DeserializeMiddleware } from '@smithy/types';

/** Input fields the pinned client does not know, accepted on StartExperiment / ListExperiments / templates. */
export interface FisInputExtensions {
  experimentOptions?: { actionsMode?: 'skip-all' | 'run-all' };
  experimentTemplateId?: string;
  experimentReportConfiguration?: Record<string, unknown>;
}

/** Template fields the pinned client's deserializer drops, restored from the raw body. */
export const RESTORED_TEMPLATE_FIELDS = ['experimentReportConfiguration'] as const;

const PATCH_NAME = 'chaosGateFisPatches';
const RAW_NAME = 'chaosGateFisRawBody';
const RESTORE_NAME = 'chaosGateFisRestore';
/** Commands whose response carries an `experimentTemplate`. */
const TEMPLATE_COMMANDS = new Set([
  'CreateExperimentTemplateCommand',
  'GetExperimentTemplateCommand',
  'UpdateExperimentTemplateCommand',
]);
/** Where the raw template fields travel from the deserialize step to the initialize step. */
const RAW_KEY = '__chaosGateRawTemplate';

function patchBody(request: HttpRequest, fields: Record<string, unknown>): void {
  const body = JSON.parse(typeof request.body === 'string' && request.body ? request.body : '{}') as Record<
    string,
    unknown
  >;
  Object.assign(body, fields);
  request.body = JSON.stringify(body);
  // content-length is computed after this step; drop any stale value.
  delete request.headers['content-length'];
}

async function readBody(body: unknown): Promise<Buffer> {
  if (body instanceof Uint8Array) return Buffer.from(body);
  if (typeof body === 'string') return Buffer.from(body);
  const chunks: Buffer[] = [];
  if (body && typeof (body as AsyncIterable<Uint8Array>)[Symbol.asyncIterator] === 'function')
    for await (const c of body as AsyncIterable<Uint8Array>) chunks.push(Buffer.from(c));
  return Buffer.concat(chunks);
}

export function addFisPatches(client: FisClient): void {
  if (client.middlewareStack.identify().some((m) => m.startsWith(PATCH_NAME))) return;
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const input = args.input as FisInputExtensions;
      const request = args.request;
      if (HttpRequest.isInstance(request)) {
        if (context.commandName === 'StartExperimentCommand' && input.experimentOptions)
          patchBody(request, { experimentOptions: input.experimentOptions });
        if (
          (context.commandName === 'CreateExperimentTemplateCommand' ||
            context.commandName === 'UpdateExperimentTemplateCommand') &&
          input.experimentReportConfiguration
        )
          patchBody(request, { experimentReportConfiguration: input.experimentReportConfiguration });
        if (context.commandName === 'ListExperimentsCommand' && input.experimentTemplateId) {
          request.query = { ...request.query, experimentTemplateId: input.experimentTemplateId };
        }
      }
      return next(args);
    },
    { step: 'build', priority: 'high', name: PATCH_NAME },
  );
  // Inside the deserializer: sees the raw response before the typed deserializer drops fields.
  const raw: DeserializeMiddleware<object, object> = (next, context) => async (args) => {
    const out = await next(args);
    if (!TEMPLATE_COMMANDS.has(String(context.commandName))) return out;
    const response = out.response as { statusCode?: number; body?: unknown };
    if ((response.statusCode ?? 500) >= 300) return out;
    const raw = await readBody(response.body);
    response.body = new Uint8Array(raw);
    try {
      const parsed = JSON.parse(raw.toString('utf8')) as { experimentTemplate?: Record<string, unknown> };
      const restored: Record<string, unknown> = {};
      for (const f of RESTORED_TEMPLATE_FIELDS)
        if (parsed.experimentTemplate?.[f] !== undefined) restored[f] = parsed.experimentTemplate[f];
      (context as Record<string, unknown>)[RAW_KEY] = restored;
    } catch {
      // Not JSON: the typed deserializer reports it.
    }
    return out;
  };
  client.middlewareStack.addRelativeTo(raw as never, {
    relation: 'after',
    toMiddleware: 'deserializerMiddleware',
    name: RAW_NAME,
  });
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const out = await next(args);
      const restored = (context as Record<string, unknown>)[RAW_KEY] as Record<string, unknown> | undefined;
      const template = (out.output as { experimentTemplate?: Record<string, unknown> }).experimentTemplate;
      if (restored && template) Object.assign(template, restored);
      return out;
    },
    { step: 'initialize', priority: 'low', name: RESTORE_NAME },
  );
}
