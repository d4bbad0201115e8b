/**
 * A lying CloudWatch on loopback: answers GetMetricData (AWS JSON 1.0, as the SDK speaks it) with
 * whatever a test scripts — PartialData, messages, datapoints stamped in the future or long ago,
 * non-finite values, a body of hundreds of megabytes — which the sandbox, faithful to AWS, never does.
 * The real SDK client parses every answer, so what reaches the source is what the SDK makes of it.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CloudWatchClient } from '@aws-sdk/client-cloudwatch';

/** One result as the wire carries it: timestamps in epoch seconds, values as numbers or "Infinity". */
export interface WireResult {
  Id: string;
  StatusCode?: string;
  Timestamps?: number[];
  Values?: (number | string)[];
  Messages?: { Code: string; Value: string }[];
}

/** The GetMetricData request as received, for scripting answers. */
export interface WireRequest {
  StartTime: number;
  EndTime: number;
  MetricDataQueries: { Id: string; ReturnData?: boolean }[];
}

/** An answer: results (and call messages), or a huge body of `bytes` streamed without end in sight. */
export type WireAnswer =
  | { results: WireResult[]; messages?: { Code: string; Value: string }[] }
  | { huge: number; declare?: boolean };

export interface LyingCloudWatch {
  client: CloudWatchClient;
  answer: (req: WireRequest) => WireAnswer;
  requests: number;
  bytesSent: number;
  close(): Promise<void>;
}

/** Starts the stand-in; `answer` may be replaced between calls. */
export async function startLyingCloudWatch(): Promise<LyingCloudWatch> {
  const stand: LyingCloudWatch = {
    client: undefined as unknown as CloudWatchClient,
    answer: () => ({ results: [] }),
    requests: 0,
    bytesSent: 0,
    close: async () => undefined,
  };
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => {
      stand.requests++;
      const input = JSON.parse(Buffer.concat(parts).toString('utf8') || '{}') as WireRequest;
      const a = stand.answer(input);
      const headers = {
        'content-type': 'application/x-amz-json-1.0',
        'x-amzn-requestid': `req-${stand.requests}`,
      };
      if ('results' in a) {
        const body = JSON.stringify({ MetricDataResults: a.results, Messages: a.messages ?? [] });
        stand.bytesSent += body.length;
        res.writeHead(200, headers).end(body);
        return;
      }
      res.writeHead(200, a.declare ? { ...headers, 'content-length': String(a.huge) } : headers);
      // A well-formed start, then padding the client never needs: it must stop reading on its own.
      res.write('{"MetricDataResults":[{"Id":"q0_result","Label":"');
      const block = 'x'.repeat(64 * 1024);
      let sent = 0;
      const pump = (): void => {
        while (!res.destroyed && sent < a.huge) {
          sent += block.length;
          stand.bytesSent += block.length;
          if (!res.write(block)) {
            res.once('drain', pump);
            return;
          }
        }
        if (!res.destroyed) res.end('","StatusCode":"Complete","Timestamps":[],"Values":[]}],"Messages":[]}');
      };
      pump();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  stand.client = new CloudWatchClient({
    endpoint: url,
    region: 'us-east-1',
    credentials: { accessKeyId: 'AKIDLYINGCW', secretAccessKey: 'lying-cloudwatch-secret' },
    maxAttempts: 1,
  });
  stand.close = () =>
    new Promise<void>((resolve) => {
      stand.client.destroy();
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return stand;
}
