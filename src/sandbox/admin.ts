/**
 * The admin endpoint: a JSON API to break the AWS stand-in on purpose (throttling, 5xx, latency,
 * dropped connections), to change FIS timings, canary behaviour and load, to force an FIS failure, and
 * to read what happened (requests received, actions run, live experiments). Routes are listed in
 * docs/sandbox.md.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import * as z from 'zod/mini';
import { errorMessage } from '../errors/message.js';
import {
  CanaryConfig,
  FisQuotasConfig,
  FisTimingsConfig,
  LoadConfig,
  defined,
  describeIssues,
} from './config.js';
import type { Canary } from './canary.js';
import type { ActionRun, FisStandIn } from './fis/service.js';
import type { LoadGenerator } from './loadgen.js';
import type { SandboxResource } from './targets.js';

/** Requests kept in the log; older ones are dropped first (memory stays bounded in a long demo). */
export const MAX_LOGGED_REQUESTS = 5000;
/** Action runs kept in the log. */
export const MAX_LOGGED_ACTIONS = 2000;
/** Request bodies longer than this are logged truncated. */
export const MAX_LOGGED_BODY_CHARS = 16_384;
/** Longest `latency` fault (ms): 10 minutes. */
export const MAX_FAULT_LATENCY_MS = 600_000;
/** Admin request bodies above this are refused. */
const MAX_ADMIN_BODY = 64 * 1024;

/** The AWS services the stand-in serves. */
export type AwsService = 'fis' | 'cloudwatch';

/** A fault injected into the AWS stand-in's own API. */
export const ApiFaultSpec = z
  .strictObject({
    service: z._default(z.enum(['fis', 'cloudwatch', '*']), '*'),
    /** Operation name (e.g. `GetExperiment`, `GetMetricData`) or `*`. */
    operation: z._default(z.string().check(z.minLength(1)), '*'),
    /**
     * `drop`: the connection is destroyed before the request is handled. `drop-answer`: the request is
     * handled (a StartExperiment starts its experiment) and then the connection is destroyed without
     * the answer — a lost answer. FIS only. `deny`: 403 as AWS answers a call the caller's IAM policy
     * does not allow (AccessDenied).
     */
    kind: z.enum(['throttle', 'error', 'latency', 'drop', 'drop-answer', 'deny']),
    /** HTTP status for `throttle` (400 or 429; default 429 for FIS, 400 for CloudWatch) and `error` (5xx, default 500). */
    status: z.optional(z.number().check(z.int()).check(z.gte(400)).check(z.lte(599))),
    /**
     * Added delay for `latency`. Up to 10 minutes, so a call that hangs far past any chaos-gate deadline
     * (a 220 s GetExperiment, say) can be staged; the client's deadline, not the fault, should end it.
     */
    latencyMs: z.optional(z.number().check(z.int()).check(z.gte(0)).check(z.lte(MAX_FAULT_LATENCY_MS))),
    /** Fire this many times, then go away. */
    count: z.optional(z.number().check(z.int()).check(z.gte(1)).check(z.lte(1_000_000))),
    /** Stay for this long, then go away. */
    durationMs: z.optional(
      z
        .number()
        .check(z.int())
        .check(z.gte(1))
        .check(z.lte(24 * 3600 * 1000)),
    ),
  })
  .check(
    z.refine((f) => f.kind !== 'latency' || f.latencyMs !== undefined, {
      message: 'latency faults need latencyMs',
    }),
  )
  .check(
    z.refine((f) => f.kind !== 'throttle' || f.status === undefined || f.status === 400 || f.status === 429, {
      message: 'throttle status must be 400 or 429',
    }),
  )
  .check(
    z.refine((f) => f.kind !== 'error' || f.status === undefined || f.status >= 500, {
      message: 'error status must be 5xx',
    }),
  )
  .check(
    z.refine((f) => f.kind !== 'drop-answer' || f.service === 'fis', {
      message: 'drop-answer faults apply to FIS only: give service "fis"',
    }),
  );

export type ApiFaultSpec = z.output<typeof ApiFaultSpec>;

/** An active API fault with its remaining budget. */
export interface ApiFault extends ApiFaultSpec {
  id: number;
  fired: number;
  expiresAt?: number;
}

/** The active API faults; `match` consumes a count each time a fault fires. */
export class ApiFaults {
  private faults: ApiFault[] = [];
  private seq = 0;

  constructor(private readonly now: () => number) {}

  add(spec: ApiFaultSpec): ApiFault {
    const fault: ApiFault = {
      ...spec,
      id: ++this.seq,
      fired: 0,
      ...(spec.durationMs !== undefined ? { expiresAt: this.now() + spec.durationMs } : {}),
    };
    this.faults.push(fault);
    return fault;
  }

  list(): ApiFault[] {
    this.prune();
    return this.faults.map((f) => ({ ...f }));
  }

  remove(id?: number): void {
    this.faults = id === undefined ? [] : this.faults.filter((f) => f.id !== id);
  }

  /** Faults that fire on this request: any latency ones, then at most one that ends it. */
  match(service: AwsService, operation: string | undefined): ApiFault[] {
    this.prune();
    const hits = this.faults.filter(
      (f) =>
        (f.service === '*' || f.service === service) && (f.operation === '*' || f.operation === operation),
    );
    const terminal = hits.find((f) => f.kind !== 'latency');
    const fired = [...hits.filter((f) => f.kind === 'latency'), ...(terminal ? [terminal] : [])];
    for (const f of fired) f.fired++;
    return fired;
  }

  private prune(): void {
    const now = this.now();
    this.faults = this.faults.filter(
      (f) => (f.count === undefined || f.fired < f.count) && (f.expiresAt === undefined || now < f.expiresAt),
    );
  }
}

/** One request the AWS stand-in received. */
export interface LoggedRequest {
  seq: number;
  time: number;
  service: AwsService | 'unknown';
  operation: string | undefined;
  method: string;
  path: string;
  status: number;
  body: unknown;
  /** The injected fault that answered it, if any. */
  fault?: string | undefined;
}

/** Everything the admin endpoint reads and changes. */
export interface AdminDeps {
  now: () => number;
  fis: FisStandIn;
  canary: Canary;
  load: LoadGenerator | undefined;
  faults: ApiFaults;
  requests: LoggedRequest[];
  actions: ActionRun[];
  inventory: SandboxResource[];
  urls: () => Record<string, string>;
  cloudwatchAvailable: boolean;
}

interface Reply {
  status: number;
  body: unknown;
}

function ok(body: unknown): Reply {
  return { status: 200, body };
}
function bad(message: string): Reply {
  return { status: 400, body: { error: message } };
}

function parse<T extends z.ZodMiniType>(schema: T, raw: unknown, what: string): z.output<T> | Reply {
  const r = schema.safeParse(raw);
  return r.success ? r.data : bad(describeIssues(what, raw, r.error));
}
function isReply(v: unknown): v is Reply {
  return typeof v === 'object' && v !== null && 'status' in v && 'body' in v && Object.keys(v).length === 2;
}

const ForceFailure = z.strictObject({
  experimentId: z.optional(z.string().check(z.minLength(1))),
  code: z._default(
    z.enum([
      'ConfigurationFailure',
      'DependentServiceFailure',
      'InternalFailure',
      'InvalidTarget',
      'AuthorizationFailure',
      'QuotaExceededFailure',
    ]),
    'InternalFailure',
  ),
  reason: z._default(
    z.string().check(z.minLength(1)).check(z.maxLength(512)),
    'Failure forced through the sandbox admin endpoint.',
  ),
});

/** Answers one admin request (already read); pure routing over `deps`. */
export function adminRoute(method: string, url: URL, body: unknown, deps: AdminDeps): Reply {
  const path = url.pathname.replace(/\/+$/, '') || '/';
  const since = Number(url.searchParams.get('since') ?? 0);
  switch (`${method} ${path}`) {
    case 'GET /':
    case 'GET /state':
      return ok({
        urls: deps.urls(),
        fis: {
          timings: deps.fis.timings,
          safetyLever: deps.fis.leverStatus(),
          liveExperiments: deps.fis.liveExperiments().length,
          quotas: deps.fis.quotas,
        },
        canary: {
          behaviour: deps.canary.settings,
          faults: deps.canary.activeFaults(),
          breakerOpen: deps.canary.breakerOpen(),
        },
        load: deps.load
          ? { settings: deps.load.current, stats: deps.load.stats }
          : { settings: { enabled: false } },
        apiFaults: deps.faults.list(),
        cloudwatch: deps.cloudwatchAvailable,
      });
    case 'GET /healthz':
      return ok({ ok: true });
    case 'GET /requests': {
      const service = url.searchParams.get('service');
      const operation = url.searchParams.get('operation');
      return ok({
        requests: deps.requests.filter(
          (r) =>
            r.seq > since && (!service || r.service === service) && (!operation || r.operation === operation),
        ),
      });
    }
    case 'DELETE /requests':
      deps.requests.length = 0;
      return ok({ cleared: true });
    case 'GET /actions': {
      const experimentId = url.searchParams.get('experimentId');
      return ok({
        actions: deps.actions
          .filter((a) => !experimentId || a.experimentId === experimentId)
          .map(actionRecord),
      });
    }
    case 'GET /experiments':
      return ok({ experiments: deps.fis.liveExperiments() });
    case 'GET /targets':
      return ok({ targets: deps.inventory });
    case 'GET /faults':
      return ok({ faults: deps.faults.list() });
    case 'POST /faults': {
      const spec = parse(ApiFaultSpec, body, 'POST /faults body');
      if (isReply(spec)) return spec;
      return ok({ fault: deps.faults.add(spec) });
    }
    case 'DELETE /faults':
      deps.faults.remove();
      return ok({ cleared: true });
    case 'GET /fis/timings':
      return ok({ timings: deps.fis.timings });
    case 'PUT /fis/timings':
    case 'PATCH /fis/timings': {
      const t = parse(FisTimingsConfig, body, `${method} /fis/timings body`);
      if (isReply(t)) return t;
      return ok({ timings: deps.fis.setTimings(defined(t)) });
    }
    case 'GET /fis/quotas':
      return ok({ quotas: deps.fis.quotas });
    case 'PATCH /fis/quotas': {
      const q = parse(FisQuotasConfig, body, `${method} /fis/quotas body`);
      if (isReply(q)) return q;
      deps.fis.setQuotas(defined(q));
      return ok({ quotas: deps.fis.quotas });
    }
    case 'POST /fis/fail': {
      const f = parse(ForceFailure, body ?? {}, 'POST /fis/fail body');
      if (isReply(f)) return f;
      if (!deps.fis.forceFailure(f))
        return { status: 404, body: { error: `experiment ${f.experimentId} is not live` } };
      return ok({ armed: f.experimentId === undefined, failed: f.experimentId ?? null, code: f.code });
    }
    case 'GET /canary':
      return ok({
        behaviour: deps.canary.settings,
        faults: deps.canary.activeFaults(),
        breakerOpen: deps.canary.breakerOpen(),
      });
    case 'PUT /canary':
    case 'PATCH /canary': {
      const c = parse(CanaryConfig, body, `${method} /canary body`);
      if (isReply(c)) return c;
      return ok({ behaviour: deps.canary.configure(defined(c)) });
    }
    case 'GET /load':
      return deps.load
        ? ok({ settings: deps.load.current, stats: deps.load.stats })
        : ok({ settings: { enabled: false } });
    case 'PUT /load':
    case 'PATCH /load': {
      const l = parse(LoadConfig, body, `${method} /load body`);
      if (isReply(l)) return l;
      if (!deps.load) return bad('the load generator is not running in this sandbox');
      return ok({ settings: deps.load.configure(defined(l)), stats: deps.load.stats });
    }
    default: {
      const m = /^\/faults\/(\d+)$/.exec(path);
      if (m && method === 'DELETE') {
        deps.faults.remove(Number(m[1]));
        return ok({ removed: Number(m[1]) });
      }
      return { status: 404, body: { error: `no admin route ${method} ${path}; see docs/sandbox.md` } };
    }
  }
}

function actionRecord(a: ActionRun): Record<string, unknown> {
  return {
    experimentId: a.experimentId,
    actionName: a.actionName,
    actionId: a.actionId,
    parameters: a.parameters,
    targets: a.targets.map((t) => t.arn),
    startTime: new Date(a.startTime).toISOString(),
    endTime: a.endTime === undefined ? null : new Date(a.endTime).toISOString(),
    endedAs: a.endedAs ?? null,
    canaryFault: a.canaryFault ?? null,
  };
}

/** HTTP adapter for {@link adminRoute}. */
export function adminHandler(deps: AdminDeps): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= MAX_ADMIN_BODY) chunks.push(c);
    });
    req.on('end', () => {
      const send = (r: Reply) => {
        res.writeHead(r.status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(r.body, null, 2));
      };
      if (size > MAX_ADMIN_BODY)
        return send({ status: 413, body: { error: `admin bodies are limited to ${MAX_ADMIN_BODY} bytes` } });
      let body: unknown;
      const text = Buffer.concat(chunks).toString('utf8');
      if (text.trim()) {
        try {
          body = JSON.parse(text);
        } catch {
          return send(bad('the body is not valid JSON'));
        }
      }
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      try {
        send(adminRoute(req.method ?? 'GET', url, body, deps));
      } catch (error) {
        send(bad(errorMessage(error)));
      }
    });
  };
}
