/**
 * Wires the sandbox together and serves it on loopback: the AWS stand-in (FIS restJson1 and
 * CloudWatch on one port), the canary service, the admin endpoint and, when present, the GitHub
 * stand-in, and SSM Parameter Store (claims and budget reservations). A 50 ms ticker moves the FIS state machine; once a second the canary publishes to
 * CloudWatch and alarms are evaluated.
 */
import { clampTimerMs } from '../net/timer.js';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { renameSync, writeFileSync } from 'node:fs';
import {
  ApiFaults,
  adminHandler,
  MAX_LOGGED_ACTIONS,
  MAX_LOGGED_BODY_CHARS,
  MAX_LOGGED_REQUESTS,
  type ApiFault,
  type AwsService,
  type LoggedRequest,
} from './admin.js';
import { Canary, type DatumSink } from './canary.js';
import { defined, type SandboxConfig } from './config.js';
import { canaryFaultFor } from './faults.js';
import { FisStandIn, type ActionRun, type AlarmReader } from './fis/service.js';
import { DEFAULT_LOAD, LoadGenerator } from './loadgen.js';
import { DEFAULT_ACCOUNT_ID, DEFAULT_REGION, sandboxInventory } from './targets.js';
import { CloudWatchStandIn } from './cloudwatch/index.js';
import { createGitHubStandIn } from './github/index.js';
import { TaggingStandIn, taggableResources } from './tagging/index.js';
import { StsStandIn } from './sts.js';
import { SsmStandIn } from './ssm/index.js';
import { verifySignature, type SignatureFailure } from './sigv4.js';
import { errorMessage } from '../errors/message.js';

/** Largest AWS request body accepted: CloudWatch PutMetricData allows 1 MB (GR-CW), so twice that. */
export const MAX_AWS_BODY_BYTES = 2 * 1024 * 1024;
/** How often the FIS state machine advances. */
const FIS_TICK_MS = 50;
/** Default publish/evaluate cadence: the canary's datapoints are 1-second high-resolution ones. */
const DEFAULT_PUBLISH_MS = 1000;
const CLOUDWATCH_TARGET_PREFIX = 'GraniteServiceVersion20100801.';

/** The second account the sandbox holds unless the config lists others: the target of multi-account experiments. */
export const DEFAULT_TARGET_ACCOUNT = '210987654321';

/**
 * Answers a request whose signature failed, in the error format of the protocol it used: awsQuery
 * (CloudWatch's form requests, STS) → XML with `SignatureDoesNotMatch` and its kin; JSON protocols (FIS
 * restJson1, CloudWatch JSON 1.0, Tagging) → `InvalidSignatureException` and its kin.
 */
function sendSignatureFailure(
  req: IncomingMessage,
  body: Buffer,
  res: ServerResponse,
  f: SignatureFailure,
): void {
  const target = req.headers['x-amz-target'];
  const form =
    typeof target !== 'string' &&
    String(req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded') &&
    new URLSearchParams(body.toString('utf8')).has('Action');
  const queryCode = {
    missing: 'MissingAuthenticationToken',
    'unknown-key': 'InvalidClientTokenId',
    mismatch: 'SignatureDoesNotMatch',
    expired: 'RequestExpired',
    malformed: 'IncompleteSignature',
  }[f.kind];
  const jsonCode = {
    missing: 'MissingAuthenticationTokenException',
    'unknown-key': 'UnrecognizedClientException',
    mismatch: 'InvalidSignatureException',
    expired: 'InvalidSignatureException',
    malformed: 'IncompleteSignatureException',
  }[f.kind];
  if (form) {
    res.writeHead(403, { 'content-type': 'text/xml' });
    res.end(
      `<ErrorResponse><Error><Type>Sender</Type><Code>${queryCode}</Code><Message>${f.message.replace(/[<>&]/g, '')}</Message></Error><RequestId>sandbox-signature</RequestId></ErrorResponse>`,
    );
    return;
  }
  const headers: Record<string, string> = {
    'content-type': typeof target === 'string' ? 'application/x-amz-json-1.0' : 'application/json',
    'x-amzn-ErrorType': jsonCode,
  };
  // CloudWatch's JSON protocol is awsQuery-compatible: clients take the code from this header.
  if (typeof target === 'string' && target.startsWith(CLOUDWATCH_TARGET_PREFIX))
    headers['x-amzn-query-error'] = `${queryCode};Sender`;
  res.writeHead(403, headers);
  res.end(JSON.stringify({ __type: `com.amazon.coral.service#${jsonCode}`, message: f.message }));
}

/** The CloudWatch stand-in as the sandbox uses it (built in `./cloudwatch/index.ts`). */
export interface CloudWatchLike extends AlarmReader {
  handles(req: IncomingMessage): boolean;
  handle(req: IncomingMessage, body: Buffer, res: ServerResponse): Promise<void>;
  putDatum: DatumSink;
  evaluate(now: number): void;
}

/** Endpoint URLs of a running sandbox (the port file's content). */
export interface SandboxUrls {
  aws: string;
  canary: string;
  admin: string;
  github: string;
}

/** A running sandbox. */
export interface SandboxHandle {
  urls: SandboxUrls;
  fis: FisStandIn;
  canary: Canary;
  cloudwatch: CloudWatchLike;
  ssm: SsmStandIn;
  close(): Promise<void>;
}

/** Options of {@link startSandbox}. */
export interface StartOptions {
  config?: SandboxConfig | undefined;
  /** Where to write the URLs as JSON once everything listens (written atomically). */
  portFile?: string | undefined;
  now?: (() => number) | undefined;
}

function listen(server: http.Server, port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    });
  });
}

function readBody(req: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= limit) chunks.push(c);
    });
    req.on('end', () => resolve(size > limit ? undefined : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** The CloudWatch operation of a request: the X-Amz-Target suffix (JSON 1.0) or `Action=` (awsQuery). */
function cloudWatchOperation(req: IncomingMessage, url: URL, body: Buffer): string | undefined {
  const target = req.headers['x-amz-target'];
  if (typeof target === 'string' && target.startsWith(CLOUDWATCH_TARGET_PREFIX))
    return target.slice(CLOUDWATCH_TARGET_PREFIX.length);
  return (
    url.searchParams.get('Action') ?? new URLSearchParams(body.toString('utf8')).get('Action') ?? undefined
  );
}

function loggedBody(body: Buffer, contentType: string): unknown {
  const text = body.toString('utf8');
  if (!text) return undefined;
  if (contentType.startsWith('application/x-www-form-urlencoded'))
    return Object.fromEntries(new URLSearchParams(text));
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text.length > MAX_LOGGED_BODY_CHARS ? `${text.slice(0, MAX_LOGGED_BODY_CHARS)}…` : text;
  }
}

/** Answers a request with an injected fault in the wire format of the service it addressed. */
function sendFault(fault: ApiFault, service: AwsService, req: IncomingMessage, res: ServerResponse): void {
  if (fault.kind === 'drop') {
    req.socket.destroy();
    return;
  }
  if (fault.kind === 'deny') {
    sendDenied(fault, service, req, res);
    return;
  }
  const throttle = fault.kind === 'throttle';
  if (service === 'fis') {
    const code = throttle ? 'ThrottlingException' : 'InternalServerException';
    res.writeHead(fault.status ?? (throttle ? 429 : 500), {
      'content-type': 'application/json',
      'x-amzn-ErrorType': code,
    });
    res.end(
      JSON.stringify({
        message: throttle ? 'Rate exceeded' : 'Injected server error (sandbox admin fault).',
      }),
    );
    return;
  }
  const code = throttle ? 'Throttling' : 'InternalServiceError';
  const type = throttle ? 'Sender' : 'Receiver';
  const message = throttle ? 'Rate exceeded' : 'Injected server error (sandbox admin fault).';
  const status = fault.status ?? (throttle ? 400 : 500);
  if (typeof req.headers['x-amz-target'] === 'string') {
    res.writeHead(status, {
      'content-type': 'application/x-amz-json-1.0',
      'x-amzn-query-error': `${code};${type}`,
    });
    res.end(JSON.stringify({ __type: `com.amazonaws.cloudwatch#${code}`, message }));
    return;
  }
  res.writeHead(status, { 'content-type': 'text/xml' });
  res.end(
    `<ErrorResponse xmlns="http://monitoring.amazonaws.com/doc/2010-08-01/"><Error><Type>${type}</Type><Code>${code}</Code><Message>${message}</Message></Error><RequestId>sandbox-fault-${fault.id}</RequestId></ErrorResponse>`,
  );
}

/**
 * AWS's answer to a call the caller's policy does not allow: 403 with `AccessDeniedException` (FIS,
 * REST-JSON) or `AccessDenied` (CloudWatch, query and JSON protocols), and IAM's wording.
 */
function sendDenied(fault: ApiFault, service: AwsService, req: IncomingMessage, res: ServerResponse): void {
  const action = `${service === 'fis' ? 'fis' : 'cloudwatch'}:${fault.operation === '*' ? 'Unknown' : fault.operation}`;
  const message = `User: arn:aws:sts::123456789012:assumed-role/chaos-gate/sandbox is not authorized to perform: ${action} because no identity-based policy allows the ${action} action`;
  if (service === 'fis') {
    res.writeHead(403, { 'content-type': 'application/json', 'x-amzn-ErrorType': 'AccessDeniedException' });
    res.end(JSON.stringify({ message }));
    return;
  }
  if (typeof req.headers['x-amz-target'] === 'string') {
    res.writeHead(403, {
      'content-type': 'application/x-amz-json-1.0',
      'x-amzn-query-error': 'AccessDenied;Sender',
    });
    res.end(JSON.stringify({ __type: 'com.amazonaws.cloudwatch#AccessDenied', message }));
    return;
  }
  res.writeHead(403, { 'content-type': 'text/xml' });
  res.end(
    `<ErrorResponse xmlns="http://monitoring.amazonaws.com/doc/2010-08-01/"><Error><Type>Sender</Type><Code>AccessDenied</Code><Message>${message}</Message></Error><RequestId>sandbox-fault-${fault.id}</RequestId></ErrorResponse>`,
  );
}

/** Starts the sandbox; resolves once every server listens and the port file is written. */
export async function startSandbox(opts: StartOptions = {}): Promise<SandboxHandle> {
  const config = opts.config ?? {};
  const now = opts.now ?? Date.now;
  const region = config.region ?? DEFAULT_REGION;
  const accountId = config.accountId ?? DEFAULT_ACCOUNT_ID;
  // The sandbox's own account, and the accounts multi-account experiments reach (each a copy of the same
  // staging system under its own account id).
  const accounts = [
    accountId,
    ...(config.targetAccounts ?? [DEFAULT_TARGET_ACCOUNT]).filter((a) => a !== accountId),
  ];
  const inventory = accounts.flatMap((a) => sandboxInventory(a, region));
  const sts = new StsStandIn({ now, accountId, accounts: () => accounts });
  // Resource Groups Tagging API: how chaos-gate learns the tags of resolved targets (FIS does not say).
  // Like AWS, it answers for the caller's account only: a target account's tags need that account's keys.
  let taggingAccount = accountId;
  const tagging = new TaggingStandIn({
    resources: () => taggableResources(inventory.filter((r) => r.arn.split(':')[4] === taggingAccount)),
    now,
  });
  const credentials = config.credentials;

  const cloudwatch: CloudWatchLike = new CloudWatchStandIn({ now, region, accountId });
  // Parameter Store: where runs claim their targets and reserve error budget (atomic conditional create).
  const ssm = new SsmStandIn({ now, region, accountId });

  const canary = new Canary(now, defined(config.canary));
  const requests: LoggedRequest[] = [];
  const actions: ActionRun[] = [];
  const faults = new ApiFaults(now);
  const fis = new FisStandIn({
    now,
    region,
    accountId,
    inventory,
    alarms: cloudwatch,
    timings: defined(config.fis),
    quotas: defined(config.fisQuotas),
    sink: {
      started(run) {
        actions.push(run);
        if (actions.length > MAX_LOGGED_ACTIONS) actions.splice(0, actions.length - MAX_LOGGED_ACTIONS);
        const fault = canaryFaultFor(run, inventory, canary.settings, now());
        if (fault) {
          run.canaryFault = fault.kind;
          canary.faultOn(`${run.experimentId}/${run.actionName}`, fault);
        }
      },
      ended(run) {
        canary.faultOff(`${run.experimentId}/${run.actionName}`);
      },
    },
  });

  let seq = 0;
  const awsServer = http.createServer((req, res) => {
    void (async () => {
      const body = await readBody(req, MAX_AWS_BODY_BYTES);
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      const method = req.method ?? 'GET';
      if (!body) {
        res.writeHead(413, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ message: `Request bodies are limited to ${MAX_AWS_BODY_BYTES} bytes.` }));
        return;
      }
      if (credentials) {
        const failure = verifySignature(
          req,
          body,
          (key) => (key === credentials.accessKeyId ? credentials.secretAccessKey : sts.secretOf(key)),
          now(),
        );
        const key = /Credential=([^/]+)/.exec(String(req.headers.authorization ?? ''))?.[1] ?? '';
        const token = sts.sessionTokenOf(key);
        if (failure) return sendSignatureFailure(req, body, res, failure);
        if (token !== undefined && req.headers['x-amz-security-token'] !== token)
          return sendSignatureFailure(req, body, res, {
            kind: 'unknown-key',
            message: 'The security token included in the request is invalid.',
          });
      }
      if (sts.handles(req, body)) {
        sts.handle(req, body, res);
        return;
      }
      if (tagging.handles(req)) {
        // handle() answers synchronously, so the account cannot change under another request.
        taggingAccount = sts.accountOf(req);
        await tagging.handle(req, body, res);
        taggingAccount = accountId;
        return;
      }
      if (ssm.handles(req)) {
        await ssm.handle(req, body, res);
        return;
      }
      const service: AwsService = cloudwatch.handles(req) ? 'cloudwatch' : 'fis';
      const operation =
        service === 'cloudwatch'
          ? cloudWatchOperation(req, url, body)
          : fis.operationOf(method, url.pathname);
      const entry: LoggedRequest = {
        seq: ++seq,
        time: now(),
        service,
        operation,
        method,
        path: url.pathname + url.search,
        status: 0,
        body: loggedBody(body, String(req.headers['content-type'] ?? '')),
      };
      requests.push(entry);
      if (requests.length > MAX_LOGGED_REQUESTS) requests.splice(0, requests.length - MAX_LOGGED_REQUESTS);
      res.on('finish', () => (entry.status = res.statusCode));
      res.on('close', () => {
        if (!res.writableFinished) entry.status = 0;
      });

      for (const fault of faults.match(service, operation)) {
        if (fault.kind === 'latency') {
          await new Promise((r) => setTimeout(r, clampTimerMs(fault.latencyMs ?? 0)));
          continue;
        }
        entry.fault = `${fault.kind}#${fault.id}`;
        if (fault.kind === 'drop-answer' && service === 'fis') {
          // The work is done (an experiment starts), and the answer is lost on the way back.
          fis.handle(method, url, body);
          req.socket.destroy();
          return;
        }
        sendFault(fault, service, req, res);
        return;
      }
      if (service === 'cloudwatch') {
        await cloudwatch.handle(req, body, res);
        return;
      }
      const answer = fis.handle(method, url, body);
      res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
      res.end(JSON.stringify(answer.body));
    })().catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ message: errorMessage(error) }));
    });
  });

  const canaryServer = http.createServer((req, res) => canary.handle(req, res));

  const github = createGitHubStandIn({ now });

  const urls: SandboxUrls = { aws: '', canary: '', admin: '', github: '' };
  const load = { current: undefined as LoadGenerator | undefined };
  const adminServer = http.createServer(
    adminHandler({
      now,
      fis,
      canary,
      get load() {
        return load.current;
      },
      faults,
      requests,
      actions,
      inventory,
      urls: () => ({ ...urls }),
      cloudwatchAvailable: true,
    }),
  );
  const githubServer = http.createServer((req, res) => github.handler(req, res));

  const ports = config.ports ?? {};
  urls.aws = await listen(awsServer, ports.aws ?? 0);
  urls.canary = await listen(canaryServer, ports.canary ?? 0);
  urls.admin = await listen(adminServer, ports.admin ?? 0);
  urls.github = await listen(githubServer, ports.github ?? 0);

  const loadSettings = { ...DEFAULT_LOAD, ...defined(config.load) };
  load.current = new LoadGenerator(new URL('/pay', urls.canary), loadSettings, canary);
  load.current.start();

  const fisTimer = setInterval(() => {
    fis.tick(now());
    ssm.expire(now());
  }, FIS_TICK_MS);
  const publishMs = config.publishIntervalMs ?? DEFAULT_PUBLISH_MS;
  const publishTimer = setInterval(() => {
    const t = now();
    canary.publish((d) => cloudwatch.putDatum(d), Math.floor(t / 1000) * 1000 - 1000);
    cloudwatch.evaluate(t);
  }, clampTimerMs(publishMs));

  if (opts.portFile) {
    const tmp = `${opts.portFile}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify({ ...urls, pid: process.pid }, null, 2) + '\n');
    renameSync(tmp, opts.portFile);
  }

  let closed = false;
  return {
    urls,
    fis,
    canary,
    cloudwatch,
    ssm,
    async close() {
      if (closed) return;
      closed = true;
      clearInterval(fisTimer);
      clearInterval(publishTimer);
      load.current?.stop();
      fis.stopAll('The sandbox shut down.');
      const servers = [awsServer, canaryServer, adminServer, githubServer];
      await Promise.all(
        servers.map(
          (s) =>
            new Promise<void>((resolve) => {
              s.close(() => resolve());
              s.closeAllConnections();
            }),
        ),
      );
    },
  };
}
