/**
 * Introspection routes of the GitHub stand-in, under `/_sandbox/` on the stand-in's own port. When
 * the stand-in runs inside the sandbox process, a test (or a person) cannot reach its in-memory state,
 * so these routes expose what it recorded and let a caller seed what the REST API cannot create:
 *
 * | route | does |
 * |---|---|
 * | `GET /_sandbox/state` | check runs (with every annotation), comments, issues, pull requests, deployments (with every status) |
 * | `GET /_sandbox/rejected` | requests refused for not matching GitHub's description, and invalid responses |
 * | `GET /_sandbox/requests` | every API request: method, path, operation, status |
 * | `POST /_sandbox/pulls` | opens a pull request: `{owner, repo, headSha, baseSha?, headRef?, headOwner?, title?}` |
 * | `POST /_sandbox/artifacts` | adds a workflow run's artifact: `{owner, repo, name, runId, files: {path: text}, createdAt?, expired?}` |
 * | `POST /_sandbox/faults` | answers an operation with a fault: `{operation?, kind, status?, retryAfter?, delayMs?, count?}` |
 * | `GET /_sandbox/faults` | the active faults and how often each fired |
 * | `DELETE /_sandbox/faults` | removes every fault |
 *
 * GitHub's description has no path starting with `/_sandbox`, so these never shadow a real route;
 * they are not logged as API requests and need no token (like the sandbox's admin endpoint).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { $ZodError } from 'zod/v4/core';
import * as z from 'zod/mini';
import '../../files/zod.js';
import type { GitHubState, PullSeed } from './state.js';
import type { GitHubFaults } from './faults.js';
import { errorMessage } from '../../errors/message.js';

/** Path prefix of the introspection routes. */
export const INTROSPECTION_PREFIX = '/_sandbox/';

/** Seeding bodies are a few hundred bytes; anything far larger is a mistake. */
const MAX_SEED_BODY_BYTES = 64 * 1024;

/** An artifact seed carries whole journals: a few MB each; 16 MiB bounds a mistake. */
const MAX_ARTIFACT_BODY_BYTES = 16 * 1024 * 1024;

/** A 40-hex commit SHA, as GitHub stores `head.sha`. */
// zod/mini, one function per classic method call and in the same order (src/files/zod.ts says why).
const SHA = z.string().check(z.regex(/^[0-9a-f]{40}$/, 'expected a 40-character lowercase hex commit SHA'));

const PullSeedBody = z.strictObject({
  owner: z.string().check(z.minLength(1)),
  repo: z.string().check(z.minLength(1)),
  headSha: SHA,
  baseSha: z.optional(SHA),
  headRef: z.optional(z.string().check(z.minLength(1))),
  headOwner: z.optional(z.string().check(z.minLength(1))),
  title: z.optional(z.string().check(z.minLength(1))),
});

const ArtifactSeedBody = z.strictObject({
  owner: z.string().check(z.minLength(1)),
  repo: z.string().check(z.minLength(1)),
  name: z.string().check(z.minLength(1)),
  runId: z.number().check(z.int()).check(z.gt(0)),
  files: z.record(z.string().check(z.minLength(1)), z.string()),
  headSha: z.optional(SHA),
  headBranch: z.optional(z.string().check(z.minLength(1))),
  /** ISO 8601 time the artifact was created (default now). */
  createdAt: z.optional(z.iso.datetime()),
  expired: z.optional(z.boolean()),
});

/** What the introspection routes read: the stand-in's state and its logs. */
export interface IntrospectionSource {
  state: GitHubState;
  rejected: readonly unknown[];
  invalidResponses: readonly unknown[];
  requests: readonly unknown[];
  faults: GitHubFaults;
}

function reply(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
  res.end(JSON.stringify(body));
}

function readJson(req: IncomingMessage, max = MAX_SEED_BODY_BYTES): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= max) chunks.push(c);
    });
    req.on('end', () => {
      if (size > max) return reject(new Error(`body over ${max} bytes`));
      const text = Buffer.concat(chunks).toString('utf8');
      try {
        resolve(text ? JSON.parse(text) : {});
      } catch {
        reject(new Error('body is not JSON'));
      }
    });
    req.on('error', reject);
  });
}

/**
 * Answers an introspection request; returns false when the path is not one (the API handler goes on).
 */
export function handleIntrospection(
  source: IntrospectionSource,
  method: string,
  url: URL,
  req: IncomingMessage,
  res: ServerResponse,
): boolean {
  if (!url.pathname.startsWith(INTROSPECTION_PREFIX)) return false;
  const route = url.pathname.slice(INTROSPECTION_PREFIX.length).replace(/\/+$/, '');
  const { state } = source;
  if (method === 'GET' && route === 'state') {
    reply(res, 200, {
      checkRuns: [...state.checkRuns.values()],
      deployments: [...state.deployments.values()],
      comments: state.comments,
      issues: state.issues,
      pulls: state.pulls,
      artifacts: state.artifacts.map(({ files, ...a }) => ({ ...a, files: Object.keys(files) })),
    });
  } else if (method === 'GET' && route === 'rejected') {
    reply(res, 200, { rejected: source.rejected, invalidResponses: source.invalidResponses });
  } else if (method === 'GET' && route === 'requests') {
    reply(res, 200, { requests: source.requests });
  } else if (route === 'faults' && method === 'GET') {
    reply(res, 200, { faults: source.faults.list() });
  } else if (route === 'faults' && method === 'DELETE') {
    source.faults.clear();
    reply(res, 200, { faults: [] });
  } else if (route === 'faults' && method === 'POST') {
    readJson(req)
      .then((raw) => {
        try {
          reply(res, 201, source.faults.add(raw as Parameters<GitHubFaults['add']>[0]));
        } catch (err) {
          // zod/mini's `parse` throws core's error (classic's ZodError is a kind of it).
          const issue = err instanceof $ZodError ? err.issues[0] : undefined;
          const field = issue?.path.join('.') || '(body)';
          reply(res, 400, {
            error: `POST ${INTROSPECTION_PREFIX}faults body: ${field}: ${issue?.message ?? String(err)}`,
          });
        }
      })
      .catch((err: unknown) =>
        reply(res, 400, {
          error: `POST ${INTROSPECTION_PREFIX}faults: ${errorMessage(err)}`,
        }),
      );
  } else if (method === 'POST' && route === 'pulls') {
    readJson(req)
      .then((raw) => {
        const parsed = PullSeedBody.safeParse(raw);
        if (!parsed.success) {
          const issue = parsed.error.issues[0];
          const field = issue?.path.join('.') || '(body)';
          return reply(res, 400, {
            error: `POST ${INTROSPECTION_PREFIX}pulls body: ${field}: ${issue?.message ?? 'invalid'}`,
          });
        }
        const d = parsed.data;
        // exactOptionalPropertyTypes: absent fields are left out, not passed as undefined.
        const seed: PullSeed = {
          owner: d.owner,
          repo: d.repo,
          headSha: d.headSha,
          ...(d.baseSha !== undefined ? { baseSha: d.baseSha } : {}),
          ...(d.headRef !== undefined ? { headRef: d.headRef } : {}),
          ...(d.headOwner !== undefined ? { headOwner: d.headOwner } : {}),
          ...(d.title !== undefined ? { title: d.title } : {}),
        };
        const pull = state.addPullRequest(seed);
        reply(res, 201, pull);
      })
      .catch((err: unknown) =>
        reply(res, 400, {
          error: `POST ${INTROSPECTION_PREFIX}pulls: ${errorMessage(err)}`,
        }),
      );
  } else if (method === 'POST' && route === 'artifacts') {
    readJson(req, MAX_ARTIFACT_BODY_BYTES)
      .then((raw) => {
        const parsed = ArtifactSeedBody.safeParse(raw);
        if (!parsed.success) {
          const issue = parsed.error.issues[0];
          const field = issue?.path.join('.') || '(body)';
          return reply(res, 400, {
            error: `POST ${INTROSPECTION_PREFIX}artifacts body: ${field}: ${issue?.message ?? 'invalid'}`,
          });
        }
        const d = parsed.data;
        const artifact = state.addArtifact({
          owner: d.owner,
          repo: d.repo,
          name: d.name,
          runId: d.runId,
          files: d.files,
          ...(d.headSha !== undefined ? { headSha: d.headSha } : {}),
          ...(d.headBranch !== undefined ? { headBranch: d.headBranch } : {}),
          ...(d.createdAt !== undefined ? { createdAt: Date.parse(d.createdAt) } : {}),
          ...(d.expired !== undefined ? { expired: d.expired } : {}),
        });
        reply(res, 201, { id: artifact.id, name: artifact.name, runId: artifact.runId });
      })
      .catch((err: unknown) =>
        reply(res, 400, {
          error: `POST ${INTROSPECTION_PREFIX}artifacts: ${errorMessage(err)}`,
        }),
      );
  } else {
    reply(res, 404, {
      error: `no introspection route ${method} ${url.pathname}; see src/sandbox/github/introspect.ts`,
    });
  }
  return true;
}
