/**
 * A lying Prometheus: answers the instant-query API (`/api/v1/query`) the way a broken or hostile
 * server can, which a real Prometheus cannot be made to do on demand — non-finite values, an answer
 * stamped for another time (a stuck cache, a frozen exporter relayed by remote read, a clock an hour
 * ahead), a partial answer with `warnings`, a malformed `data`, a body of hundreds of megabytes.
 *
 * The answers are built by one function (`lieFor`) that two transports share: a node:http server on
 * loopback (`startLyingPrometheus`), for the source's own HTTP path, and a `fetch` (`lyingFetch`) that
 * answers in memory, for runs on a virtual clock, where a real socket would let virtual time race ahead
 * of the answer.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** How the stand-in answers. `truth` answers like a real Prometheus: the value, stamped `time=`. */
export type Lie =
  'truth' | '-Inf' | '+Inf' | 'NaN' | 'frozen' | 'future' | 'stale' | 'warnings' | 'malformed' | 'huge';

/** Every lie, for tests that go through them all. */
export const LIES: readonly Exclude<Lie, 'truth'>[] = [
  '-Inf',
  '+Inf',
  'NaN',
  'frozen',
  'future',
  'stale',
  'warnings',
  'malformed',
  'huge',
];

/** How far ahead (`future`) or behind (`stale`) the stand-in stamps its answers: an hour. */
export const LIE_OFFSET_S = 3600;
/** The size of a `huge` answer: 200 MB, as in the probe that found the missing cap. */
export const HUGE_BYTES = 200 * 1024 * 1024;
/** The warning a `warnings` answer carries, as Thanos words a partial answer. */
export const PARTIAL_WARNING =
  'partial response: store 10.0.7.1:10901 did not answer (context deadline exceeded)';

/** What the stand-in answers with, whatever carries it. */
export interface LyingAnswer {
  status: number;
  headers: Record<string, string>;
  /** The body as chunks, produced lazily (a huge body is never held whole). */
  chunks(): Generator<string>;
}

/** What decides an answer: the lie, and the value a truthful answer would carry for the query. */
export interface LieScript {
  /** The lie for a request asking for `time` (seconds) with `query`. */
  lie(query: string, time: number): Lie;
  /** The value (Prometheus's text form) for `query` at `time`; default `"0"`. */
  value?(query: string, time: number): string;
  /** The warning a `warnings` answer carries; default {@link PARTIAL_WARNING}. */
  warning?: string;
}

/** State a stand-in keeps across requests: the first time a frozen query was answered for. */
export class LieState {
  readonly frozenAt = new Map<string, number>();
  /** Requests answered, and bytes of body sent (the huge body counts only what was sent). */
  requests = 0;
  bytesSent = 0;
}

const json = (status: number, body: unknown): LyingAnswer => ({
  status,
  headers: { 'content-type': 'application/json' },
  *chunks() {
    yield JSON.stringify(body);
  },
});

const vectorOf = (time: number, value: string) => ({
  resultType: 'vector',
  result: [{ metric: {}, value: [time, value] }],
});

/** The answer to an instant query for `query` at `time` (seconds) under `script`. */
export function lieFor(script: LieScript, state: LieState, query: string, time: number): LyingAnswer {
  state.requests++;
  const value = script.value?.(query, time) ?? '0';
  const lie = script.lie(query, time);
  switch (lie) {
    case 'truth':
      return json(200, { status: 'success', data: vectorOf(time, value) });
    case '-Inf':
    case '+Inf':
    case 'NaN':
      return json(200, { status: 'success', data: vectorOf(time, lie) });
    case 'frozen': {
      const first = state.frozenAt.get(query) ?? time;
      state.frozenAt.set(query, first);
      return json(200, { status: 'success', data: vectorOf(first, value) });
    }
    case 'future':
      return json(200, { status: 'success', data: vectorOf(time + LIE_OFFSET_S, value) });
    case 'stale':
      return json(200, { status: 'success', data: vectorOf(time - LIE_OFFSET_S, value) });
    case 'warnings':
      return json(200, {
        status: 'success',
        data: vectorOf(time, value),
        warnings: [script.warning ?? PARTIAL_WARNING],
      });
    case 'malformed':
      return json(200, {
        status: 'success',
        data: { resultType: 'vector', result: [{ metric: {}, value: value }] },
      });
    case 'huge':
      return {
        status: 200,
        headers: { 'content-type': 'application/json' },
        *chunks() {
          // A well-formed answer, just enormous: one series with a 200 MB label value.
          const head = `{"status":"success","data":{"resultType":"vector","result":[{"metric":{"pad":"`;
          const tail = `"},"value":[${time},"${value}"]}]}}`;
          yield head;
          const block = 'x'.repeat(64 * 1024);
          for (let sent = 0; sent < HUGE_BYTES; sent += block.length) yield block;
          yield tail;
        },
      };
  }
}

function paramsOf(url: string, body: string): { query: string; time: number } {
  const get = new URL(url, 'http://stand-in').searchParams;
  const form = new URLSearchParams(body);
  return {
    query: get.get('query') ?? form.get('query') ?? '',
    time: Number(get.get('time') ?? form.get('time')),
  };
}

/** A `fetch` that answers in memory, with a body streamed lazily from `lieFor`. */
export function lyingFetch(script: LieScript, state = new LieState()): typeof fetch {
  return (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    const body = typeof init?.body === 'string' ? init.body : '';
    const { query, time } = paramsOf(url, body);
    const answer = lieFor(script, state, query, time);
    const chunks = answer.chunks();
    const encoder = new TextEncoder();
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        const next = chunks.next();
        if (next.done) controller.close();
        else {
          const bytes = encoder.encode(next.value);
          state.bytesSent += bytes.byteLength;
          controller.enqueue(bytes);
        }
      },
    });
    return Promise.resolve(new Response(stream, { status: answer.status, headers: answer.headers }));
  };
}

/** A running lying Prometheus on loopback. */
export interface LyingPrometheus {
  /** `http://127.0.0.1:<port>` */
  url: string;
  state: LieState;
  script: LieScript;
  close(): Promise<void>;
}

/** Starts the stand-in on 127.0.0.1; `script` may be replaced between requests. */
export async function startLyingPrometheus(script: LieScript): Promise<LyingPrometheus> {
  const stand: LyingPrometheus = {
    url: '',
    state: new LieState(),
    script,
    close: async () => undefined,
  };
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => {
      const { query, time } = paramsOf(req.url ?? '/', Buffer.concat(parts).toString('utf8'));
      const answer = lieFor(stand.script, stand.state, query, time);
      res.writeHead(answer.status, answer.headers);
      const chunks = answer.chunks();
      // Writes as fast as the client reads, and stops when it goes away.
      const pump = (): void => {
        for (;;) {
          if (res.destroyed) return;
          const next = chunks.next();
          if (next.done) {
            res.end();
            return;
          }
          stand.state.bytesSent += Buffer.byteLength(next.value);
          if (!res.write(next.value)) {
            res.once('drain', pump);
            return;
          }
        }
      };
      pump();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  stand.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  stand.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return stand;
}
