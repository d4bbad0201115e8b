/**
 * Loopback receivers for the notification sinks, each checking what it gets against the published
 * format, the way the real service would, and answering as it does:
 * - `cdevents`: a CloudEvents HTTP binary-mode receiver; rebuilds the event from its `ce-*` headers and
 *   body and validates it against the official CloudEvents 1.0 JSON Schema, and the body against the
 *   official CDEvents schema of its `ce-type` (fixtures/schemas/, ajv, draft 2020-12); checks the
 *   HMAC signature when it knows the secret.
 * - `slack`: an incoming webhook; Block Kit's documented limits (≤ 50 blocks, section text ≤ 3000,
 *   header plain_text ≤ 150, ≤ 10 fields of ≤ 2000) and a non-empty `text` fallback.
 * - `pagerduty`: Events API v2 `POST /v2/change/enqueue`; the change-event fields and their rules
 *   (routing_key, payload.summary ≤ 1024, payload.source, ISO 8601 payload.timestamp, links), and no
 *   `event_action` (a change event cannot trigger an incident).
 * - `grafana`: the annotations HTTP API; `Authorization: Bearer`, `POST /api/annotations` with
 *   integer epoch-ms `time`/`timeEnd` (timeEnd ≥ time), string `tags`, `text`; `PATCH
 *   /api/annotations/:id` of an annotation that exists.
 * A request that breaks a rule is answered 400 and recorded in `problems`. `mode` makes a receiver lie:
 * `fail` answers 500 to everything, `hang` never answers (closed by `close()`).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv, type ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsImport from 'ajv-formats';

// ajv-formats is CommonJS; under NodeNext its default export arrives as the module object.
const addFormats = ((addFormatsImport as unknown as { default?: unknown }).default ??
  addFormatsImport) as unknown as (ajv: Ajv | Ajv2020) => void;

const SCHEMAS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../fixtures/schemas');

export type ReceiverKind = 'cdevents' | 'slack' | 'pagerduty' | 'grafana';
export type ReceiverMode = 'ok' | 'fail' | 'hang';

/** One request as received. */
export interface Received {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  raw: string;
  body: unknown;
}

export interface Receiver {
  kind: ReceiverKind;
  /** The URL to configure (`KIND=URL`); for Slack and the webhook it carries a secret-looking path. */
  url: string;
  received: Received[];
  problems: string[];
  /** Grafana: the annotations as stored (after PATCHes). */
  annotations: Map<number, Record<string, unknown>>;
  /** `hang`: requests whose sender gave up and closed the connection. */
  abandoned: number;
  close(): Promise<void>;
}

export interface ReceiverOptions {
  mode?: ReceiverMode;
  /** cdevents: the HMAC secret every delivery must be signed with. */
  secret?: string;
  /** pagerduty: the routing key expected; grafana: the token expected. */
  credential?: string;
  /** Answer the first this many requests 500, then behave (a receiver that recovers). */
  failFirst?: number;
}

function json(file: string): Record<string, unknown> {
  return JSON.parse(readFileSync(path.join(SCHEMAS, file), 'utf8')) as Record<string, unknown>;
}

let validators: { cloudevent: ValidateFunction; cdevent: Map<string, ValidateFunction> } | undefined;

/** The official schemas, compiled once. */
export function schemaValidators(): { cloudevent: ValidateFunction; cdevent: Map<string, ValidateFunction> } {
  if (validators) return validators;
  const ce = new Ajv({ allErrors: true, strict: false });
  addFormats(ce);
  const cd = new Ajv2020({ allErrors: true, strict: false });
  addFormats(cd);
  for (const f of readdirSync(path.join(SCHEMAS, 'cdevents/links')))
    cd.addSchema(json(`cdevents/links/${f}`));
  const cdevent = new Map<string, ValidateFunction>();
  for (const f of ['testsuiterunstarted', 'testsuiterunfinished', 'testcaserunfinished']) {
    const schema = json(`cdevents/${f}.json`);
    const type = ((schema.properties as Record<string, { properties: { type: { enum: string[] } } }>).context
      ?.properties.type.enum ?? [])[0] as string;
    cdevent.set(type, cd.compile(schema));
  }
  validators = { cloudevent: ce.compile(json('cloudevents/cloudevents.json')), cdevent };
  return validators;
}

function errorsOf(v: ValidateFunction): string {
  return (v.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? ''}`).join('; ');
}

function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

type Check = (req: IncomingMessage, r: Received, res: ServerResponse, rc: Receiver) => string[];

const isIso = (s: unknown): boolean =>
  typeof s === 'string' &&
  /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:?\d\d)$/.test(s) &&
  !Number.isNaN(Date.parse(s));

function checkCdEvent(secret: string | undefined): Check {
  return (req, r, res) => {
    const p: string[] = [];
    if (r.method !== 'POST') p.push(`method ${r.method}, expected POST`);
    if (!(header(req, 'content-type') ?? '').startsWith('application/json'))
      p.push('content-type is not application/json');
    const attrs: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(req.headers)) if (k.startsWith('ce-')) attrs[k.slice(3)] = v;
    const event = { ...attrs, datacontenttype: header(req, 'content-type'), data: r.body };
    const { cloudevent, cdevent } = schemaValidators();
    if (!cloudevent(event)) p.push(`CloudEvent: ${errorsOf(cloudevent)}`);
    if (attrs.specversion !== '1.0') p.push(`ce-specversion ${String(attrs.specversion)}, expected 1.0`);
    const validate = cdevent.get(String(attrs.type));
    if (!validate) p.push(`ce-type ${String(attrs.type)} is not a CDEvent type this receiver knows`);
    else if (!validate(r.body)) p.push(`CDEvent ${String(attrs.type)}: ${errorsOf(validate)}`);
    const ctx = (r.body as { context?: Record<string, unknown> } | undefined)?.context;
    if (ctx?.id !== attrs.id || ctx?.type !== attrs.type || ctx?.source !== attrs.source)
      p.push('ce-id/ce-type/ce-source differ from the CDEvent context');
    if (secret !== undefined) {
      const got = header(req, 'x-chaos-gate-signature') ?? '';
      const want = `sha256=${createHmac('sha256', secret).update(r.raw).digest('hex')}`;
      if (got.length !== want.length || !timingSafeEqual(Buffer.from(got), Buffer.from(want)))
        p.push('X-Chaos-Gate-Signature does not match the body');
    }
    res.statusCode = p.length ? 400 : 202;
    return p;
  };
}

const checkSlack: Check = (_req, r, res) => {
  const p: string[] = [];
  const b = r.body as { text?: unknown; blocks?: unknown };
  if (typeof b?.text !== 'string' || b.text.trim() === '')
    p.push('text (the plain-text fallback) is missing');
  const blocks = Array.isArray(b?.blocks) ? (b.blocks as Record<string, unknown>[]) : undefined;
  if (!blocks) p.push('blocks is not an array');
  else {
    if (blocks.length > 50) p.push(`${blocks.length} blocks, at most 50`);
    for (const [i, block] of blocks.entries()) {
      const text = block.text as { type?: string; text?: string } | undefined;
      switch (block.type) {
        case 'header':
          if (text?.type !== 'plain_text' || !text.text || text.text.length > 150)
            p.push(`block ${i}: header text must be plain_text of 1–150 characters`);
          break;
        case 'section': {
          const fields = (block.fields as { type?: string; text?: string }[] | undefined) ?? [];
          if (!text && fields.length === 0) p.push(`block ${i}: section needs text or fields`);
          if (
            text &&
            (!['mrkdwn', 'plain_text'].includes(text.type ?? '') || !text.text || text.text.length > 3000)
          )
            p.push(`block ${i}: section text must be 1–3000 characters of mrkdwn or plain_text`);
          if (fields.length > 10) p.push(`block ${i}: ${fields.length} fields, at most 10`);
          for (const f of fields)
            if (!f.text || f.text.length > 2000) p.push(`block ${i}: a field must be 1–2000 characters`);
          break;
        }
        case 'context': {
          const elements = (block.elements as unknown[] | undefined) ?? [];
          if (elements.length < 1 || elements.length > 10) p.push(`block ${i}: context needs 1–10 elements`);
          break;
        }
        case 'divider':
          break;
        default:
          p.push(`block ${i}: unexpected block type ${String(block.type)}`);
      }
    }
  }
  res.statusCode = p.length ? 400 : 200;
  res.setHeader('content-type', 'text/plain');
  return p;
};

function checkPagerDuty(key: string | undefined): Check {
  return (_req, r, res) => {
    const p: string[] = [];
    if (r.method !== 'POST' || r.path !== '/v2/change/enqueue')
      p.push(`${r.method} ${r.path}: only POST /v2/change/enqueue`);
    const b = r.body as Record<string, unknown>;
    for (const k of Object.keys(b ?? {}))
      if (!['routing_key', 'payload', 'links', 'images'].includes(k)) p.push(`unknown field ${k}`);
    if (typeof b?.routing_key !== 'string' || b.routing_key === '') p.push('routing_key is missing');
    else if (key !== undefined && b.routing_key !== key) p.push('routing_key is not the integration key');
    const payload = b?.payload as Record<string, unknown> | undefined;
    if (typeof payload?.summary !== 'string' || payload.summary === '' || payload.summary.length > 1024)
      p.push('payload.summary must be 1–1024 characters');
    if (payload?.source !== undefined && typeof payload.source !== 'string')
      p.push('payload.source must be a string');
    if (payload?.timestamp !== undefined && !isIso(payload.timestamp))
      p.push('payload.timestamp is not ISO 8601');
    for (const l of (b?.links as { href?: unknown }[] | undefined) ?? [])
      if (typeof l.href !== 'string' || !URL.canParse(l.href)) p.push('a link has no valid href');
    res.statusCode = p.length ? 400 : 202;
    res.setHeader('content-type', 'application/json');
    return p;
  };
}

function checkGrafana(token: string | undefined): Check {
  let next = 1;
  return (req, r, res, rc) => {
    const p: string[] = [];
    if (token !== undefined && header(req, 'authorization') !== `Bearer ${token}`) {
      res.statusCode = 401;
      return ['Authorization is not the service-account token as Bearer'];
    }
    const b = (r.body ?? {}) as Record<string, unknown>;
    const int = (v: unknown): boolean => typeof v === 'number' && Number.isInteger(v) && v > 0;
    const checkFields = (partial: boolean): void => {
      for (const k of Object.keys(b))
        if (!['dashboardUID', 'panelId', 'time', 'timeEnd', 'tags', 'text', 'data'].includes(k))
          p.push(`unknown field ${k}`);
      if (!(partial && b.time === undefined) && !int(b.time)) p.push('time must be epoch milliseconds');
      if (b.timeEnd !== undefined && !int(b.timeEnd)) p.push('timeEnd must be epoch milliseconds');
      if (int(b.time) && int(b.timeEnd) && (b.timeEnd as number) < (b.time as number))
        p.push('timeEnd is before time');
      if (b.tags !== undefined && (!Array.isArray(b.tags) || b.tags.some((t) => typeof t !== 'string')))
        p.push('tags must be strings');
      if (!(partial && b.text === undefined) && (typeof b.text !== 'string' || b.text === ''))
        p.push('text is required');
    };
    const m = /^\/api\/annotations(?:\/(\d+))?$/.exec(r.path);
    if (!m) p.push(`${r.method} ${r.path} is not the annotations API`);
    else if (r.method === 'POST' && m[1] === undefined) {
      checkFields(false);
      if (p.length === 0) {
        const id = next++;
        rc.annotations.set(id, { ...b });
        res.statusCode = 200;
        res.setHeader('content-type', 'application/json');
        (res as ServerResponse & { bodyOut?: string }).bodyOut = JSON.stringify({
          message: 'Annotation added',
          id,
        });
        return p;
      }
    } else if (r.method === 'PATCH' && m[1] !== undefined) {
      const id = Number(m[1]);
      if (!rc.annotations.has(id)) {
        res.statusCode = 404;
        return [`PATCH of annotation ${id}, which does not exist`];
      }
      checkFields(true);
      if (p.length === 0) rc.annotations.set(id, { ...rc.annotations.get(id), ...b });
      (res as ServerResponse & { bodyOut?: string }).bodyOut = JSON.stringify({
        message: 'Annotation patched',
      });
    } else p.push(`${r.method} ${r.path} is not an annotation call this receiver knows`);
    res.statusCode = p.length ? 400 : 200;
    res.setHeader('content-type', 'application/json');
    return p;
  };
}

const PATHS: Record<ReceiverKind, string> = {
  cdevents: '/hooks/cdevents/s3cr3t-webhook-path',
  slack: '/services/T0001/B0002/slackwebhooksecretpath',
  pagerduty: '',
  grafana: '',
};

/** Starts a receiver of `kind` on 127.0.0.1 (an ephemeral port). */
export async function startReceiver(kind: ReceiverKind, o: ReceiverOptions = {}): Promise<Receiver> {
  const mode = o.mode ?? 'ok';
  const check: Check =
    kind === 'cdevents'
      ? checkCdEvent(o.secret)
      : kind === 'slack'
        ? checkSlack
        : kind === 'pagerduty'
          ? checkPagerDuty(o.credential)
          : checkGrafana(o.credential);
  const hung = new Set<ServerResponse>();
  const rc: Receiver = {
    kind,
    url: '',
    received: [],
    problems: [],
    annotations: new Map(),
    abandoned: 0,
    close: async () => {
      for (const res of [...hung]) {
        hung.delete(res);
        res.destroy();
      }
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: unknown;
      try {
        body = raw === '' ? undefined : JSON.parse(raw);
      } catch {
        body = undefined;
      }
      const r: Received = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, raw, body };
      rc.received.push(r);
      if (mode === 'hang') {
        hung.add(res);
        res.on('close', () => {
          if (hung.delete(res)) rc.abandoned += 1;
        });
        return;
      }
      if (mode === 'fail' || rc.received.length <= (o.failFirst ?? 0)) {
        res.statusCode = 500;
        res.end('internal error');
        return;
      }
      const base = PATHS[kind];
      const problems = body === undefined ? ['the body is not JSON'] : [];
      if (base && r.path !== base) problems.push(`path ${r.path}, expected the configured ${base}`);
      if (problems.length === 0) problems.push(...check(req, { ...r, path: base ? '' : r.path }, res, rc));
      else res.statusCode = 400;
      rc.problems.push(...problems.map((p) => `${r.method} ${r.path}: ${p}`));
      const out = (res as ServerResponse & { bodyOut?: string }).bodyOut;
      res.end(
        problems.length
          ? problems.join('\n')
          : (out ??
              (kind === 'pagerduty'
                ? JSON.stringify({ status: 'success', message: 'Change event processed' })
                : kind === 'slack'
                  ? 'ok'
                  : '')),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  rc.url = `http://127.0.0.1:${port}${PATHS[kind]}`;
  return rc;
}
