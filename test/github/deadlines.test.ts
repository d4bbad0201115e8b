/**
 * GitHub requests under a deadline (issue 13.1): the reporter against a loopback server that answers
 * late, never, or stalls mid-body. A missed deadline is a warning that names the request and the
 * deadline — the job goes on — never a stall. Elapsed-time bounds prove "did not stall".
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  DEFAULT_GITHUB_RETRY,
  DEFAULT_GITHUB_TIMEOUT_MS,
  GitHubReporter,
  WRITE_SPACING_MS,
  type GitHubContext,
} from '../../src/report/github.js';

const SLACK_MS = 1_500;

type Behaviour = 'hang' | 'stall-body' | { afterMs: number; status: number; body: unknown };

let server: Server;
let origin = '';
let behaviour: Behaviour = 'hang';
let abandoned = 0;
const timers = new Set<NodeJS.Timeout>();

beforeAll(async () => {
  server = createServer((req: IncomingMessage, res: ServerResponse) => {
    req.resume();
    res.on('close', () => {
      if (!res.writableFinished) abandoned++;
    });
    const b = behaviour;
    if (b === 'hang') return;
    if (b === 'stall-body') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"login":"octo');
      return;
    }
    const timer = setTimeout(() => {
      timers.delete(timer);
      if (!res.destroyed)
        res.writeHead(b.status, { 'content-type': 'application/json' }).end(JSON.stringify(b.body));
    }, b.afterMs);
    timers.add(timer);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  for (const t of timers) clearTimeout(t);
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

let warnings: string[] = [];
beforeEach(() => {
  warnings = [];
  abandoned = 0;
});

function ctx(pr?: number): GitHubContext {
  return {
    apiUrl: origin,
    token: 'ghs-test',
    owner: 'acme',
    repo: 'shop',
    eventName: pr === undefined ? 'push' : 'pull_request',
    sha: 'a'.repeat(40),
    payload:
      pr === undefined
        ? {}
        : {
            pull_request: {
              number: pr,
              head: { sha: 'b'.repeat(40), repo: { full_name: 'acme/shop' } },
              base: { repo: { full_name: 'acme/shop' } },
            },
          },
  };
}

/** Pauses between check-run attempts are skipped: the elapsed time is the deadlines alone. */
function reporter(c: GitHubContext, timeoutMs?: number): GitHubReporter {
  return new GitHubReporter(c, {
    log: { info: () => undefined, warning: (m) => void warnings.push(m) },
    sleep: async () => undefined,
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
  });
}

async function timed<T>(call: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const t0 = Date.now();
  const value = await call();
  return { value, ms: Date.now() - t0 };
}

describe('GitHub reporter deadlines', () => {
  it('turns a GitHub that never answers into a warning naming the request and its deadline, and tears each attempt down', async () => {
    behaviour = 'hang';
    const { value, ms } = await timed(() => reporter(ctx(), 400).startCheck('redis-partition', Date.now()));
    expect(value).toBeUndefined();
    // The check run is worth a few tries (DEFAULT_GITHUB_RETRY.checkRunAttempts), each one deadline long.
    const attempts = DEFAULT_GITHUB_RETRY.checkRunAttempts;
    // Each attempt is a write, and the throttling plugin spaces writes as GitHub asks.
    expect(ms).toBeLessThan(attempts * 400 + (attempts - 1) * WRITE_SPACING_MS + SLACK_MS);
    expect(warnings).toEqual([
      'chaos-gate: could not create the check run: GitHub POST /repos/acme/shop/check-runs did not answer within 400 ms. The verdict is unchanged.',
    ]);
    await expect.poll(() => abandoned, { timeout: 1_000 }).toBe(attempts);
  });

  it('also times out an answer whose body stalls after the headers', async () => {
    behaviour = 'stall-body';
    const { value, ms } = await timed(() => reporter(ctx(7), 400).upsertComment('redis-partition', 'body'));
    expect(value).toBe('failed');
    expect(ms).toBeLessThan(400 + SLACK_MS);
    expect(warnings).toEqual([
      'chaos-gate: could not write the pull-request comment: GitHub GET /user did not answer within 400 ms. The verdict is unchanged.',
    ]);
  });

  it('waits for a slow answer that comes within the default deadline', async () => {
    behaviour = { afterMs: 300, status: 201, body: { id: 4242 } };
    expect(DEFAULT_GITHUB_TIMEOUT_MS).toBeGreaterThan(300);
    const id = await reporter(ctx()).startCheck('redis-partition', Date.now());
    expect(id).toBe(4242);
    expect(warnings).toEqual([]);
  });
});
