/**
 * The shared half of the AWS contract tests (CloudWatch, Tagging API): a stand-in mounted on loopback
 * with every request and response recorded for validation against the official model, a real SDK client
 * against it, and one contract run against both the stand-in and moto_server. A service's harness keeps
 * only what is its own: how an operation shows on its wire and what its model says an exchange must be.
 */
import http from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect } from 'vitest';
import { startMoto, type MotoStart } from './moto.js';

/** Dummy credentials: neither the stand-ins nor moto check signatures. */
export const DUMMY_CREDENTIALS = { accessKeyId: 'AKIDSANDBOX', secretAccessKey: 'sandbox-secret' };

/** How long a contract's set-up may take: moto may have to create resources before the stand-in starts. */
const SETUP_TIMEOUT_MS = 60_000;

/** An SDK client the helpers can release. */
export interface SdkClient {
  destroy(): void;
}

/**
 * The settings of every contract client: one Region, dummy credentials, and no retries, so that a wrong
 * first answer is seen instead of retried away.
 */
export function sdkConfig(endpoint: string): {
  endpoint: string;
  region: string;
  credentials: typeof DUMMY_CREDENTIALS;
  maxAttempts: number;
} {
  return { endpoint, region: 'us-east-1', credentials: DUMMY_CREDENTIALS, maxAttempts: 1 };
}

/** One request/response pair as seen on the wire. */
export interface Exchange<P extends string = string> {
  /** The wire protocol of the request (CloudWatch has two: `json` and `query`). */
  protocol: P;
  operation: string;
  requestHeaders: http.IncomingHttpHeaders;
  requestBody: string;
  status: number;
  responseHeaders: Record<string, string>;
  responseBody: string;
}

/** A stand-in as the sandbox server mounts it. */
export interface MountableStandIn {
  handles(req: http.IncomingMessage): boolean;
  handle(req: http.IncomingMessage, body: Buffer, res: http.ServerResponse): Promise<void>;
}

/** What only the service knows: how its requests read in the record, and what its model requires. */
export interface WireRules<P extends string> {
  /** The protocol, the operation and a readable request body (decompressed, query parameters merged in). */
  read(req: http.IncomingMessage, body: Buffer): { protocol: P; operation: string; requestBody: string };
  /** The ways one exchange departs from the model; empty when it conforms. */
  validate(ex: Exchange<P>): string[];
  /** How an exchange is named in problem reports; its operation when not given. */
  name?(ex: Exchange<P>): string;
}

/** A stand-in on loopback with its recorder and a real SDK client. */
export interface RecordedStandIn<C extends SdkClient, P extends string = string> {
  url: string;
  exchanges: Exchange<P>[];
  /** A real SDK client pointed at the stand-in. */
  client: C;
  /** Validates every recorded exchange against the model and clears the record. */
  drainProblems(): string[];
  close(): Promise<void>;
}

/** Mounts `standIn` on 127.0.0.1:0, records every exchange, and builds a client against it. */
export async function serveRecorded<C extends SdkClient, P extends string>(
  standIn: MountableStandIn,
  rules: WireRules<P>,
  client: (endpoint: string) => C,
): Promise<RecordedStandIn<C, P>> {
  const exchanges: Exchange<P>[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      if (!standIn.handles(req)) {
        res.writeHead(404).end();
        return;
      }
      const request = rules.read(req, body);
      const origEnd = res.end.bind(res);
      res.end = ((chunk?: unknown, ...rest: unknown[]) => {
        exchanges.push({
          ...request,
          requestHeaders: req.headers,
          status: res.statusCode,
          responseHeaders: Object.fromEntries(
            Object.entries(res.getHeaders()).map(([k, v]) => [k, String(v)]),
          ),
          responseBody:
            chunk === undefined ? '' : Buffer.isBuffer(chunk) ? chunk.toString('utf8') : String(chunk),
        });
        return (origEnd as (...a: unknown[]) => http.ServerResponse)(chunk, ...rest);
      }) as typeof res.end;
      void standIn.handle(req, body, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const addr = server.address();
  const url = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
  const sdk = client(url);
  return {
    url,
    exchanges,
    client: sdk,
    drainProblems: () => {
      const problems = exchanges.flatMap((ex, i) =>
        rules.validate(ex).map((p) => `#${i} ${rules.name?.(ex) ?? ex.operation}: ${p}`),
      );
      exchanges.length = 0;
      return problems;
    },
    close: async () => {
      sdk.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Starts moto_server for a contract test file, printing why the comparison is skipped when it cannot. */
export async function startMotoForContract(label: string): Promise<MotoStart> {
  const moto = await startMoto();
  if (!moto.ok) console.warn(`[${label}] skipped: ${moto.skipReason}`);
  return moto;
}

/** moto_server with a client against it. */
export interface MotoSide<C extends SdkClient> {
  url: string;
  client: C;
}

/** Both back ends of one contract; usable inside the tests (after the describe's set-up has run). */
export interface BothBackends<C extends SdkClient, H extends RecordedStandIn<C>> {
  /** The recorded stand-in; its exchanges must conform to the model after every test. */
  readonly standIn: H;
  readonly moto: MotoSide<C>;
  /** Runs `fn` against the stand-in, then against moto; returns [stand-in result, moto result]. */
  both<R>(fn: (client: C) => Promise<R>): Promise<[R, R]>;
}

/** How to build each back end of a contract. */
export interface BackendSetup<C extends SdkClient, H extends RecordedStandIn<C>> {
  /** A real SDK client for an endpoint (moto's; the stand-in's harness builds its own the same way). */
  client(endpoint: string): C;
  /** Starts the recorded stand-in once moto is up, so it can mirror what the set-up created in moto. */
  standIn(moto: MotoSide<C>): Promise<H>;
}

/**
 * Declares a describe block whose tests run one contract against the stand-in and moto_server. Where
 * moto is absent the block is skipped with the reason in its title; after each test the stand-in's
 * recorded exchanges must conform to the model; afterwards both back ends are stopped.
 */
export function describeAgainstMoto<C extends SdkClient, H extends RecordedStandIn<C>>(
  title: string,
  moto: MotoStart,
  setup: BackendSetup<C, H>,
  tests: (backends: BothBackends<C, H>) => void,
): void {
  describe.skipIf(!moto.ok)(`${title}${moto.ok ? '' : ` (skipped: ${moto.skipReason})`}`, () => {
    let standIn: H | undefined;
    let motoSide: MotoSide<C> | undefined;
    const ready = <T>(value: T | undefined, what: string): T => {
      if (value === undefined) throw new Error(`${what} is not started: use it inside a test`);
      return value;
    };
    const backends: BothBackends<C, H> = {
      get standIn() {
        return ready(standIn, 'the stand-in');
      },
      get moto() {
        return ready(motoSide, 'moto_server');
      },
      both: async (fn) => {
        const ours = await fn(backends.standIn.client);
        const theirs = await fn(backends.moto.client);
        return [ours, theirs];
      },
    };
    beforeAll(async () => {
      if (!moto.ok) return;
      motoSide = { url: moto.server.url, client: setup.client(moto.server.url) };
      standIn = await setup.standIn(motoSide);
    }, SETUP_TIMEOUT_MS);
    afterAll(async () => {
      motoSide?.client.destroy();
      await standIn?.close();
      if (moto.ok) await moto.server.stop();
    });
    afterEach(() => {
      expect(backends.standIn.drainProblems()).toEqual([]);
    });
    tests(backends);
  });
}
