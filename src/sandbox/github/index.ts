/**
 * The GitHub stand-in: an HTTP handler that routes every request by GitHub's OpenAPI description,
 * validates path parameters, query and JSON bodies against it (422 with the Ajv errors otherwise),
 * enforces tokens (401, and 403 on writes with a read-only token) and keeps state for the operations
 * chaos-gate uses. The sandbox server mounts `handler` on its own port; tests serve it on 127.0.0.1:0.
 * On demand (`faults`, or `POST /_sandbox/faults`) it answers secondary rate limits, 5xx or late, so a
 * client's retries can be tested against the same validating stand-in.
 */
import { clampTimerMs } from '../../net/timer.js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ErrorObject } from 'ajv';
import { privateUser, type Identity, type Origins } from './entities.js';
import { loadDescription, type Operation } from './spec.js';
import {
  GitHubState,
  type StoredAnnotation,
  type StoredCheckRun,
  type StoredDeployment,
  type StoredDeploymentStatus,
  type StoredArtifact,
  type StoredIssue,
} from './state.js';
import { handleIntrospection } from './introspect.js';
import { GitHubFaults } from './faults.js';
import { errorMessage } from '../../errors/message.js';
import { randomBytes } from 'node:crypto';
import { zipStored } from './zip.js';

/**
 * Where an artifact download redirects: blob storage on another origin in GitHub, reached with a
 * signed URL and no token. Here a path on the stand-in's own port that GitHub's description lacks.
 */
export const BLOB_PREFIX = '/_blobs/artifacts/';

export { GitHubState } from './state.js';
export type {
  ArtifactSeed,
  StoredArtifact,
  StoredAnnotation,
  StoredCheckRun,
  StoredComment,
  StoredDeployment,
  StoredDeploymentStatus,
  StoredIssue,
  StoredPull,
  PullSeed,
} from './state.js';
export type { Identity } from './entities.js';
export { INTROSPECTION_PREFIX } from './introspect.js';
export { GitHubFaults, SECONDARY_RATE_LIMIT_MESSAGE } from './faults.js';
export type { GitHubFault, GitHubFaultSpec } from './faults.js';

/** A token the stand-in accepts, and who it is. */
export interface TokenSpec {
  login: string;
  id?: number;
  type?: 'User' | 'Bot';
  /** Writes answer 403 like a fork PR's GITHUB_TOKEN. */
  readOnly?: boolean;
  /** An installation token (GITHUB_TOKEN): `GET /user` answers 403, as on GitHub. */
  installation?: boolean;
}

export interface GitHubStandInOptions {
  /** Accepted tokens; default: `sandbox-token` as `github-actions[bot]` with write access. */
  tokens?: Record<string, TokenSpec>;
  /** Time source for timestamps (tests pass a fixed clock). */
  now?: () => number;
  /** Web origin for `html_url` fields. */
  webUrl?: string;
  /** Check each JSON response against the description too (recorded in `invalidResponses`). */
  validateResponses?: boolean;
}

/** A request the stand-in refused because it does not match GitHub's description. */
export interface RejectedRequest {
  method: string;
  path: string;
  status: number;
  operationId?: string;
  reason: string;
  errors: ErrorObject[];
}

export interface InvalidResponse {
  operationId: string;
  status: number;
  errors: ErrorObject[];
}

/** One request as the stand-in saw it (for assertions on ordering and counts). */
export interface LoggedRequest {
  method: string;
  path: string;
  operationId?: string;
  status: number;
  token?: string;
  /** The injected fault that answered (or delayed) it, e.g. `secondary-rate-limit#1`. */
  fault?: string;
}

export interface GitHubStandIn {
  handler(req: IncomingMessage, res: ServerResponse): void;
  state: GitHubState;
  rejected: RejectedRequest[];
  invalidResponses: InvalidResponse[];
  requests: LoggedRequest[];
  /** Faults to answer on demand (rate limits, 5xx, late answers). */
  faults: GitHubFaults;
}

/** The identity GitHub uses for comments and issues written with an Actions GITHUB_TOKEN. */
export const ACTIONS_BOT: Identity = { login: 'github-actions[bot]', id: 41898282, type: 'Bot' };

/** GitHub's page-size ceiling for list endpoints ("per_page … max 100", REST pagination docs). */
export const MAX_PER_PAGE = 100;

/**
 * Issue and comment bodies: GitHub answers 422 "body is too long (maximum is 65536 characters)"; the
 * description states no maxLength, so the stand-in checks it by hand.
 */
export const MAX_ISSUE_BODY = 65_536;

/** Operations whose `body` field carries that limit. */
const BODY_LIMITED = new Set([
  'issues/create',
  'issues/update',
  'issues/create-comment',
  'issues/update-comment',
]);

/**
 * A deployment status's `description`: "The maximum description length is 140 characters" (REST docs,
 * create a deployment status); the request schema states no maxLength, so it is checked by hand.
 */
export const MAX_DEPLOYMENT_STATUS_DESCRIPTION = 140;

/** Request bodies above this are refused before parsing; GitHub's own cap is not documented. */
const MAX_BODY_BYTES = 10 * 1024 * 1024;

const DOCS = 'https://docs.github.com/rest';

interface Ctx {
  req: IncomingMessage;
  url: URL;
  origins: Origins;
  params: Record<string, unknown>;
  body: Record<string, unknown>;
  user: Identity;
}

interface Reply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

type Route = (ctx: Ctx) => Reply;

/** Builds a stand-in with empty state. */
export function createGitHubStandIn(opts: GitHubStandInOptions = {}): GitHubStandIn {
  const tokens = opts.tokens ?? { 'sandbox-token': { ...ACTIONS_BOT, installation: true } };
  const now = opts.now ?? Date.now;
  const state = new GitHubState(now);
  const rejected: RejectedRequest[] = [];
  const invalidResponses: InvalidResponse[] = [];
  const requests: LoggedRequest[] = [];
  const faults = new GitHubFaults();
  const routes = makeRoutes(state, tokens);

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const method = (req.method ?? 'GET').toUpperCase();
    const url = new URL(req.url ?? '/', `http://${req.headers.host ?? '127.0.0.1'}`);
    const origins: Origins = { api: url.origin, web: opts.webUrl ?? 'https://github.com' };
    // Introspection (`/_sandbox/…`) is not API traffic: it is neither logged nor counted as rejected.
    if (handleIntrospection({ state, rejected, invalidResponses, requests, faults }, method, url, req, res))
      return;
    const log: LoggedRequest = { method, path: url.pathname + url.search, status: 0 };
    if (method === 'GET' && url.pathname.startsWith(BLOB_PREFIX)) return serveBlob(state, url, res);
    requests.push(log);
    const send = (r: Reply, op?: Operation): void => {
      log.status = r.status;
      if (op && opts.validateResponses !== false && r.status < 300 && r.body !== undefined) {
        const errors = op.validateResponse(r.status, r.body);
        if (errors.length) invalidResponses.push({ operationId: op.operationId, status: r.status, errors });
      }
      const headers: Record<string, string> = {
        'x-github-media-type': 'github.v3; format=json',
        ...r.headers,
      };
      if (r.body !== undefined) headers['content-type'] = 'application/json; charset=utf-8';
      res.writeHead(r.status, headers);
      res.end(r.body === undefined ? undefined : JSON.stringify(r.body));
    };
    const reject = (status: number, reason: string, errors: ErrorObject[], op?: Operation): void => {
      rejected.push({
        method,
        path: url.pathname,
        status,
        reason,
        errors,
        ...(op ? { operationId: op.operationId } : {}),
      });
      send(status === 422 ? validationFailed(reason, errors) : basicError(status, reason));
    };

    const auth = /^(?:token|bearer)\s+(\S+)$/i.exec(req.headers.authorization ?? '');
    const token = auth?.[1];
    if (token) log.token = token;
    const tokenSpec = token === undefined ? undefined : tokens[token];
    if (!token) return send(basicError(401, 'Requires authentication'));
    if (!tokenSpec) return send(basicError(401, 'Bad credentials'));

    const matched = loadDescription().match(method, url.pathname);
    if (!('operation' in matched)) {
      const why = matched.pathExists
        ? `${method} is not an operation of ${url.pathname}`
        : 'no such path in the description';
      return reject(matched.pathExists ? 405 : 404, why, []);
    }
    const op = matched.operation;
    log.operationId = op.operationId;
    const route = routes[op.operationId];
    if (!route) return reject(501, `${op.operationId} is valid but not implemented by the stand-in`, [], op);

    // An injected fault answers before the request is looked at, as GitHub's rate limiter and a failing
    // front end do; a `delay` lets the request take effect and holds its answer back.
    const fault = faults.answer(op.operationId);
    if (fault?.kind === 'reply') {
      log.fault = fault.fault;
      req.resume();
      return send({ status: fault.status, headers: fault.headers, body: fault.body });
    }
    if (fault?.kind === 'delay') log.fault = fault.fault;

    if (method !== 'GET' && method !== 'HEAD' && tokenSpec.readOnly) {
      return send(basicError(403, 'Resource not accessible by integration'));
    }

    const params: Record<string, unknown> = { ...matched.params };
    for (const [k, v] of url.searchParams) params[k] = v;
    const paramErrors = op.validateParams(params);
    if (paramErrors.length)
      return reject(422, 'Invalid request: parameters do not match the description', paramErrors, op);

    let body: Record<string, unknown> = {};
    if (op.hasBody) {
      const raw = await readBody(req);
      if (raw === null) return reject(413, `request body over ${MAX_BODY_BYTES} bytes`, [], op);
      if (raw.length > 0 || op.bodyRequired) {
        let parsed: unknown;
        try {
          parsed = JSON.parse(raw.toString('utf8'));
        } catch {
          return reject(400, 'Problems parsing JSON', [], op);
        }
        const bodyErrors = op.validateBody(parsed);
        if (bodyErrors.length)
          return reject(422, 'Invalid request: body does not match the description', bodyErrors, op);
        body = parsed as Record<string, unknown>;
        if (
          BODY_LIMITED.has(op.operationId) &&
          typeof body.body === 'string' &&
          body.body.length > MAX_ISSUE_BODY
        ) {
          return reject(
            422,
            `Validation Failed: body is too long (maximum is ${MAX_ISSUE_BODY} characters)`,
            [],
            op,
          );
        }
      }
    }

    const user: Identity = { login: tokenSpec.login, id: tokenSpec.id ?? 1, type: tokenSpec.type ?? 'User' };
    const reply = route({ req, url, origins, params, body, user });
    if (fault?.kind === 'delay') await delay(fault.ms);
    if (reply.status === 422) {
      rejected.push({
        method,
        path: url.pathname,
        status: 422,
        reason: String((reply.body as { message?: unknown }).message),
        errors: [],
        operationId: op.operationId,
      });
    }
    send(reply, op);
  }

  return {
    handler(req, res) {
      handle(req, res).catch((err: unknown) => {
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ message: `stand-in error: ${errorMessage(err)}` }));
      });
    },
    state,
    rejected,
    invalidResponses,
    requests,
    faults,
  };
}

/** Waits without keeping the process alive (a test may close the stand-in while an answer is held). */
function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, clampTimerMs(ms)).unref());
}

function makeRoutes(state: GitHubState, tokens: Record<string, TokenSpec>): Record<string, Route> {
  void tokens;
  const notFound = (): Reply => basicError(404, 'Not Found');
  const str = (v: unknown): string => String(v);
  const num = (v: unknown): number => Number(v);

  const checkRun = (ctx: Ctx): StoredCheckRun | undefined => {
    const c = state.checkRuns.get(num(ctx.params.check_run_id));
    return c && sameRepo(c, ctx) ? c : undefined;
  };

  /** Applies create/update fields to a check run, following GitHub's status/conclusion rules. */
  const applyCheckRun = (c: StoredCheckRun, b: Record<string, unknown>): Reply | undefined => {
    if (typeof b.name === 'string') c.name = b.name;
    if (typeof b.details_url === 'string') c.details_url = b.details_url;
    if (typeof b.external_id === 'string') c.external_id = b.external_id;
    if (typeof b.started_at === 'string') c.started_at = b.started_at;
    if (typeof b.status === 'string') c.status = b.status;
    if (typeof b.conclusion === 'string') {
      c.conclusion = b.conclusion;
      c.status = 'completed';
    }
    if (c.status === 'completed' && c.conclusion === null) {
      return validationFailed(
        'Invalid request.\n\nNo conclusion given for a completed check run.',
        [],
        'conclusion',
      );
    }
    if (c.status === 'completed')
      c.completed_at = typeof b.completed_at === 'string' ? b.completed_at : state.time();
    const out = b.output as
      { title?: string; summary?: string; text?: string; annotations?: StoredAnnotation[] } | undefined;
    if (out) {
      if (out.title !== undefined) c.output.title = out.title;
      if (out.summary !== undefined) c.output.summary = out.summary;
      if (out.text !== undefined) c.output.text = out.text;
      if (out.annotations?.length) {
        c.annotations.push(...out.annotations);
        c.annotationRequests++;
      }
    }
    return undefined;
  };

  const issueOf = (ctx: Ctx): StoredIssue | undefined =>
    state.issues.find((i) => sameRepo(i, ctx) && i.number === num(ctx.params.issue_number));

  const labelNames = (v: unknown): string[] | undefined =>
    Array.isArray(v)
      ? v
          .map((l: unknown) => (typeof l === 'string' ? l : str((l as { name?: unknown }).name)))
          .filter(Boolean)
      : undefined;

  return {
    'users/get-authenticated': (ctx) => {
      const spec = Object.values(tokens).find((t) => t.login === ctx.user.login);
      if (spec?.installation) return basicError(403, 'Resource not accessible by integration');
      return ok(privateUser(ctx.origins, ctx.user, state.time()));
    },

    'checks/create': (ctx) => {
      const b = ctx.body;
      const c: StoredCheckRun = {
        id: state.id(),
        owner: str(ctx.params.owner),
        repo: str(ctx.params.repo),
        name: str(b.name),
        head_sha: str(b.head_sha),
        status: 'queued',
        conclusion: null,
        started_at: state.time(),
        completed_at: null,
        external_id: null,
        details_url: null,
        output: { title: null, summary: null, text: null },
        annotations: [],
        annotationRequests: 0,
      };
      const err = applyCheckRun(c, b);
      if (err) return err;
      state.checkRuns.set(c.id, c);
      return { status: 201, body: state.checkRunJson(ctx.origins, c) };
    },
    'checks/update': (ctx) => {
      const c = checkRun(ctx);
      if (!c) return notFound();
      const copy = structuredClone(c);
      const err = applyCheckRun(copy, ctx.body);
      if (err) return err;
      Object.assign(c, copy);
      return ok(state.checkRunJson(ctx.origins, c));
    },
    'checks/get': (ctx) => {
      const c = checkRun(ctx);
      return c ? ok(state.checkRunJson(ctx.origins, c)) : notFound();
    },
    'checks/list-annotations': (ctx) => {
      const c = checkRun(ctx);
      if (!c) return notFound();
      return paginate(
        ctx,
        c.annotations.map((a) => state.annotationJson(a)),
      );
    },
    'checks/list-for-ref': (ctx) => {
      let runs = [...state.checkRuns.values()].filter(
        (c) => sameRepo(c, ctx) && c.head_sha === ctx.params.ref,
      );
      if (ctx.params.check_name !== undefined) runs = runs.filter((c) => c.name === ctx.params.check_name);
      if (ctx.params.status !== undefined) runs = runs.filter((c) => c.status === ctx.params.status);
      if (ctx.params.filter !== 'all') {
        const latest = new Map<string, StoredCheckRun>();
        for (const c of runs) latest.set(c.name, c);
        runs = [...latest.values()];
      }
      const page = paginate(
        ctx,
        runs.map((c) => state.checkRunJson(ctx.origins, c)),
      );
      return { ...page, body: { total_count: runs.length, check_runs: page.body } };
    },

    'issues/list-comments': (ctx) => {
      const n = num(ctx.params.issue_number);
      if (!state.findIssueOrPull(str(ctx.params.owner), str(ctx.params.repo), n)) return notFound();
      let list = state.commentsOn(str(ctx.params.owner), str(ctx.params.repo), n);
      if (typeof ctx.params.since === 'string')
        list = list.filter((c) => c.updated_at >= str(ctx.params.since));
      return paginate(
        ctx,
        list.map((c) => state.commentJson(ctx.origins, c)),
      );
    },
    'issues/create-comment': (ctx) => {
      const owner = str(ctx.params.owner);
      const repo = str(ctx.params.repo);
      const n = num(ctx.params.issue_number);
      if (!state.findIssueOrPull(owner, repo, n)) return notFound();
      const c = state.addComment(owner, repo, n, str(ctx.body.body), ctx.user);
      return { status: 201, body: state.commentJson(ctx.origins, c) };
    },
    'issues/get-comment': (ctx) => {
      const c = state.comments.find((x) => sameRepo(x, ctx) && x.id === num(ctx.params.comment_id));
      return c ? ok(state.commentJson(ctx.origins, c)) : notFound();
    },
    'issues/update-comment': (ctx) => {
      const c = state.comments.find((x) => sameRepo(x, ctx) && x.id === num(ctx.params.comment_id));
      if (!c) return notFound();
      if (c.user.login !== ctx.user.login) return basicError(403, 'Resource not accessible by integration');
      c.body = str(ctx.body.body);
      c.updated_at = state.time();
      return ok(state.commentJson(ctx.origins, c));
    },

    'issues/create': (ctx) => {
      const owner = str(ctx.params.owner);
      const repo = str(ctx.params.repo);
      const at = state.time();
      const i: StoredIssue = {
        id: state.id(),
        owner,
        repo,
        number: state.nextNumber(owner, repo),
        title: str(ctx.body.title),
        body: typeof ctx.body.body === 'string' ? ctx.body.body : null,
        state: 'open',
        state_reason: null,
        labels: labelNames(ctx.body.labels) ?? [],
        user: ctx.user,
        created_at: at,
        updated_at: at,
        closed_at: null,
      };
      state.issues.push(i);
      return { status: 201, body: state.issueJson(ctx.origins, i) };
    },
    'issues/get': (ctx) => {
      const i = issueOf(ctx);
      return i ? ok(state.issueJson(ctx.origins, i)) : notFound();
    },
    'issues/update': (ctx) => {
      const i = issueOf(ctx);
      if (!i) return notFound();
      const b = ctx.body;
      if (typeof b.title === 'string') i.title = b.title;
      if (typeof b.body === 'string' || b.body === null) i.body = b.body;
      const labels = labelNames(b.labels);
      if (labels) i.labels = labels;
      if (b.state === 'open' || b.state === 'closed') {
        if (b.state === 'closed' && i.state === 'open') i.closed_at = state.time();
        if (b.state === 'open') i.closed_at = null;
        i.state = b.state;
        i.state_reason =
          typeof b.state_reason === 'string'
            ? b.state_reason
            : b.state === 'closed'
              ? 'completed'
              : 'reopened';
      }
      i.updated_at = state.time();
      return ok(state.issueJson(ctx.origins, i));
    },
    'issues/list-for-repo': (ctx) => {
      const want = (ctx.params.state as string | undefined) ?? 'open';
      const labels =
        typeof ctx.params.labels === 'string'
          ? ctx.params.labels
              .split(',')
              .map((s) => s.trim())
              .filter(Boolean)
          : [];
      let list = state.issues.filter(
        (i) =>
          sameRepo(i, ctx) &&
          (want === 'all' || i.state === want) &&
          labels.every((l) => i.labels.includes(l)),
      );
      if (typeof ctx.params.creator === 'string')
        list = list.filter((i) => i.user.login === ctx.params.creator);
      const key = ctx.params.sort === 'updated' ? 'updated_at' : 'created_at';
      list = [...list].sort((a, b) => (a[key] === b[key] ? a.id - b.id : a[key] < b[key] ? -1 : 1));
      if (ctx.params.direction !== 'asc') list.reverse();
      return paginate(
        ctx,
        list.map((i) => state.issueJson(ctx.origins, i)),
      );
    },

    'repos/create-deployment': (ctx) => {
      const b = ctx.body;
      const owner = str(ctx.params.owner);
      const repo = str(ctx.params.repo);
      const ref = str(b.ref);
      // A SHA stands for itself; a branch resolves to the head of a pull request that names it.
      const sha = /^[0-9a-f]{7,40}$/.test(ref)
        ? ref
        : state.pulls.find((p) => sameRepo(p, ctx) && p.head.ref === ref)?.head.sha;
      if (!sha) return validationFailed(`No ref found for: ${ref}`, [], 'ref');
      // Without `required_contexts`, GitHub verifies every status context of the ref first: a check
      // run that has not succeeded (the gate's own, in progress) blocks the deployment with a 409.
      if (!Array.isArray(b.required_contexts)) {
        const failing = [...state.checkRuns.values()].filter(
          (c) => sameRepo(c, ctx) && c.head_sha === sha && c.conclusion !== 'success',
        );
        if (failing.length > 0)
          return basicError(
            409,
            `Conflict: Commit status checks failed for ${ref}. (${failing.map((c) => c.name).join(', ')})`,
          );
      } else {
        const names = new Set(
          [...state.checkRuns.values()]
            .filter((c) => sameRepo(c, ctx) && c.head_sha === sha && c.conclusion === 'success')
            .map((c) => c.name),
        );
        const missing = (b.required_contexts as unknown[]).map(str).filter((n) => !names.has(n));
        if (missing.length > 0)
          return basicError(409, `Conflict: Commit status checks failed for ${ref}. (${missing.join(', ')})`);
      }
      const environment = typeof b.environment === 'string' ? b.environment : 'production';
      const at = state.time();
      const d: StoredDeployment = {
        id: state.id(),
        owner,
        repo,
        sha,
        ref,
        task: typeof b.task === 'string' ? b.task : 'deploy',
        payload:
          typeof b.payload === 'string' || (typeof b.payload === 'object' && b.payload !== null)
            ? (b.payload as Record<string, unknown> | string)
            : {},
        environment,
        description: typeof b.description === 'string' ? b.description : b.description === null ? null : '',
        transient_environment: b.transient_environment === true,
        production_environment:
          typeof b.production_environment === 'boolean'
            ? b.production_environment
            : environment === 'production',
        creator: ctx.user,
        created_at: at,
        updated_at: at,
        statuses: [],
      };
      state.deployments.set(d.id, d);
      return { status: 201, body: state.deploymentJson(ctx.origins, d) };
    },
    'repos/get-deployment': (ctx) => {
      const d = state.deployments.get(num(ctx.params.deployment_id));
      return d && sameRepo(d, ctx) ? ok(state.deploymentJson(ctx.origins, d)) : notFound();
    },
    'repos/create-deployment-status': (ctx) => {
      const d = state.deployments.get(num(ctx.params.deployment_id));
      if (!d || !sameRepo(d, ctx)) return notFound();
      const b = ctx.body;
      const description = typeof b.description === 'string' ? b.description : '';
      if (description.length > MAX_DEPLOYMENT_STATUS_DESCRIPTION)
        return validationFailed(
          `Validation Failed: description is too long (maximum is ${MAX_DEPLOYMENT_STATUS_DESCRIPTION} characters)`,
          [],
          'description',
        );
      const logUrl =
        typeof b.log_url === 'string' ? b.log_url : typeof b.target_url === 'string' ? b.target_url : '';
      const environment = typeof b.environment === 'string' ? b.environment : d.environment;
      const st: StoredDeploymentStatus = {
        id: state.id(),
        state: str(b.state),
        description,
        environment,
        log_url: logUrl,
        environment_url: typeof b.environment_url === 'string' ? b.environment_url : '',
        creator: ctx.user,
        created_at: state.time(),
      };
      // `auto_inactive` (default true): a success retires the earlier successful deployments of the
      // same environment, unless they are transient or production ones.
      if (st.state === 'success' && b.auto_inactive !== false) {
        for (const other of state.deployments.values()) {
          const last = other.statuses.at(-1);
          if (
            other !== d &&
            sameRepo(other, ctx) &&
            other.environment === environment &&
            !other.transient_environment &&
            !other.production_environment &&
            last?.state === 'success'
          )
            other.statuses.push({ ...last, id: state.id(), state: 'inactive', created_at: st.created_at });
        }
      }
      d.statuses.push(st);
      d.updated_at = st.created_at;
      return { status: 201, body: state.deploymentStatusJson(ctx.origins, d, st) };
    },
    'repos/list-deployment-statuses': (ctx) => {
      const d = state.deployments.get(num(ctx.params.deployment_id));
      if (!d || !sameRepo(d, ctx)) return notFound();
      return paginate(
        ctx,
        [...d.statuses].reverse().map((st) => state.deploymentStatusJson(ctx.origins, d, st)),
      );
    },
    'actions/list-artifacts-for-repo': (ctx) => {
      let list = state.artifacts.filter((a) => sameRepo(a, ctx));
      if (typeof ctx.params.name === 'string') list = list.filter((a) => a.name === ctx.params.name);
      // Newest first, as GitHub lists them.
      list = [...list].sort((a, b) => b.id - a.id);
      return artifactPage(ctx, list, state);
    },
    'actions/list-workflow-run-artifacts': (ctx) => {
      let list = state.artifacts.filter((a) => sameRepo(a, ctx) && a.runId === num(ctx.params.run_id));
      if (typeof ctx.params.name === 'string') list = list.filter((a) => a.name === ctx.params.name);
      return artifactPage(ctx, list, state);
    },
    'actions/get-artifact': (ctx) => {
      const a = state.artifacts.find((x) => sameRepo(x, ctx) && x.id === num(ctx.params.artifact_id));
      return a ? ok(state.artifactJson(ctx.origins, a)) : notFound();
    },
    'actions/download-artifact': (ctx) => {
      const a = state.artifacts.find((x) => sameRepo(x, ctx) && x.id === num(ctx.params.artifact_id));
      if (!a) return notFound();
      // GitHub serves `zip` only; any other format is not found.
      if (ctx.params.archive_format !== 'zip') return notFound();
      if (a.expired) return basicError(410, 'Artifact has expired');
      const sig = randomBytes(12).toString('hex');
      state.blobSignatures.set(sig, a.id);
      return { status: 302, headers: { location: `${ctx.origins.api}${BLOB_PREFIX}${a.id}.zip?sig=${sig}` } };
    },

    'pulls/get': (ctx) => {
      const p = state.pulls.find((x) => sameRepo(x, ctx) && x.number === num(ctx.params.pull_number));
      return p ? ok(state.pullJson(ctx.origins, p)) : notFound();
    },
  };
}

/** A page of artifacts in GitHub's envelope: `{ total_count, artifacts }`. */
function artifactPage(ctx: Ctx, list: StoredArtifact[], state: GitHubState): Reply {
  const page = paginate(
    ctx,
    list.map((a) => state.artifactJson(ctx.origins, a)),
  );
  return { ...page, body: { total_count: list.length, artifacts: page.body } };
}

/** The zipped artifact behind a signed blob URL (no token: the signature is the credential). */
function serveBlob(state: GitHubState, url: URL, res: ServerResponse): void {
  const id = Number(/^(\d+)\.zip$/.exec(url.pathname.slice(BLOB_PREFIX.length))?.[1]);
  const a = state.artifacts.find((x) => x.id === id);
  const signed = state.blobSignatures.get(url.searchParams.get('sig') ?? '');
  if (!a || signed !== id) {
    res.writeHead(403, { 'content-type': 'application/xml' });
    res.end('<?xml version="1.0" encoding="utf-8"?><Error><Code>AuthenticationFailed</Code></Error>');
    return;
  }
  const zip = zipStored(a.files);
  res.writeHead(200, {
    'content-type': 'application/zip',
    'content-length': String(zip.length),
    'content-disposition': `attachment; filename=${a.name}.zip`,
  });
  res.end(zip);
}

function sameRepo(x: { owner: string; repo: string }, ctx: Ctx): boolean {
  return (
    x.owner.toLowerCase() === String(ctx.params.owner).toLowerCase() &&
    x.repo.toLowerCase() === String(ctx.params.repo).toLowerCase()
  );
}

function ok(body: unknown): Reply {
  return { status: 200, body };
}

/** Slices a list by `per_page`/`page` and adds GitHub's `Link` header (prev, next, last, first). */
function paginate(ctx: Ctx, items: unknown[]): Reply {
  const perPage = Math.min(Math.max(Number(ctx.params.per_page ?? 30), 1), MAX_PER_PAGE);
  const page = Math.max(Number(ctx.params.page ?? 1), 1);
  const last = Math.max(Math.ceil(items.length / perPage), 1);
  const slice = items.slice((page - 1) * perPage, page * perPage);
  const pageUrl = (n: number): string => {
    const u = new URL(ctx.url.pathname + ctx.url.search, ctx.origins.api);
    u.searchParams.set('per_page', String(perPage));
    u.searchParams.set('page', String(n));
    return u.toString();
  };
  const links: string[] = [];
  if (page > 1) links.push(`<${pageUrl(page - 1)}>; rel="prev"`);
  if (page < last) links.push(`<${pageUrl(page + 1)}>; rel="next"`, `<${pageUrl(last)}>; rel="last"`);
  if (page > 1) links.push(`<${pageUrl(1)}>; rel="first"`);
  return { status: 200, body: slice, ...(links.length ? { headers: { link: links.join(', ') } } : {}) };
}

function basicError(status: number, message: string): Reply {
  return { status, body: { message, documentation_url: DOCS, status: String(status) } };
}

function validationFailed(message: string, errors: ErrorObject[], field?: string): Reply {
  const detail = errors.map((e) => `${e.instancePath || '/'} ${e.message ?? e.keyword}`);
  return {
    status: 422,
    body: {
      message: detail.length ? `${message}\n\n${detail.join('\n')}` : message,
      documentation_url: DOCS,
      status: '422',
      errors: errors.length
        ? errors.map((e) => ({ code: e.keyword, field: e.instancePath, message: e.message ?? e.keyword }))
        : [{ code: 'missing_field', field: field ?? '', message }],
    },
  };
}

function readBody(req: IncomingMessage): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY_BYTES) over = true;
      else chunks.push(c);
    });
    req.on('end', () => resolve(over ? null : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}
