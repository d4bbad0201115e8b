/**
 * A small AWS STS stand-in (awsQuery, API version 2011-06-15): AssumeRole and GetCallerIdentity. It is
 * how a caller reaches a target account of a multi-account experiment, as in AWS: the temporary keys it
 * issues belong to the role's account, and the other stand-ins (the Tagging API) answer for that account.
 * A role in an account the sandbox does not hold is `AccessDenied`, as AWS answers a role it cannot assume.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parseAuthorization } from './sigv4.js';

/** STS's awsQuery API version and XML namespace. */
export const STS_API_VERSION = '2011-06-15';
const XMLNS = 'https://sts.amazonaws.com/doc/2011-06-15/';
/** AssumeRole's default session length (AWS STS API reference: DurationSeconds default 3600). */
export const DEFAULT_SESSION_SECONDS = 3600;

/** Temporary credentials the stand-in issued. */
export interface IssuedCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken: string;
  accountId: string;
  roleArn: string;
  expiresAt: number;
}

/** Options of the stand-in. */
export interface StsStandInOptions {
  now: () => number;
  /** The account of callers that use the configured (long-term) keys. */
  accountId: string;
  /** Every account the sandbox holds: a role must be in one of them. */
  accounts: () => readonly string[];
}

function escapeXml(s: string): string {
  return s.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c]!,
  );
}

const KEY_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** The STS stand-in. */
export class StsStandIn {
  private readonly issued = new Map<string, IssuedCredentials>();

  constructor(private readonly opts: StsStandInOptions) {}

  /** True for STS traffic: signed for `sts`, or an unsigned awsQuery call of an STS action. */
  handles(req: IncomingMessage, body: Buffer): boolean {
    const auth = parseAuthorization(req.headers.authorization);
    if (auth) return auth.service === 'sts';
    if (req.method !== 'POST') return false;
    const action = new URLSearchParams(body.toString('utf8')).get('Action');
    return action === 'AssumeRole' || action === 'GetCallerIdentity';
  }

  /** The secret of a key this stand-in issued and that has not expired. */
  secretOf(accessKeyId: string): string | undefined {
    const c = this.issued.get(accessKeyId);
    return c && c.expiresAt > this.opts.now() ? c.secretAccessKey : undefined;
  }

  /** The session token that must accompany an issued key. */
  sessionTokenOf(accessKeyId: string): string | undefined {
    return this.issued.get(accessKeyId)?.sessionToken;
  }

  /** The account a request acts in: the role's account for an issued key, else the sandbox's own. */
  accountOf(req: IncomingMessage): string {
    const key = parseAuthorization(req.headers.authorization)?.accessKeyId;
    const c = key ? this.issued.get(key) : undefined;
    return c && c.expiresAt > this.opts.now() ? c.accountId : this.opts.accountId;
  }

  /** Answers one awsQuery request. */
  handle(req: IncomingMessage, body: Buffer, res: ServerResponse): void {
    const params = new URLSearchParams(body.toString('utf8'));
    const action = params.get('Action');
    const requestId = randomUUID();
    try {
      if (action === 'AssumeRole') return this.send(res, 200, this.assumeRole(req, params, requestId));
      if (action === 'GetCallerIdentity') {
        const account = this.accountOf(req);
        const key = parseAuthorization(req.headers.authorization)?.accessKeyId;
        const role = key ? this.issued.get(key)?.roleArn : undefined;
        const arn = role
          ? role.replace(
              /^arn:(aws[a-z-]*):iam::(\d{12}):role\/(.+)$/,
              'arn:$1:sts::$2:assumed-role/$3/sandbox',
            )
          : `arn:aws:iam::${account}:user/sandbox`;
        return this.send(
          res,
          200,
          `<GetCallerIdentityResponse xmlns="${XMLNS}"><GetCallerIdentityResult><Arn>${escapeXml(arn)}</Arn><UserId>${escapeXml(key ?? 'anonymous')}</UserId><Account>${account}</Account></GetCallerIdentityResult><ResponseMetadata><RequestId>${requestId}</RequestId></ResponseMetadata></GetCallerIdentityResponse>`,
        );
      }
      throw new StsError(
        400,
        'InvalidAction',
        `The action ${action ?? '(none)'} is not valid for this web service.`,
      );
    } catch (error) {
      const e = error instanceof StsError ? error : new StsError(500, 'InternalFailure', String(error));
      this.send(
        res,
        e.status,
        `<ErrorResponse xmlns="${XMLNS}"><Error><Type>${e.status >= 500 ? 'Receiver' : 'Sender'}</Type><Code>${e.code}</Code><Message>${escapeXml(e.message)}</Message></Error><RequestId>${requestId}</RequestId></ErrorResponse>`,
      );
    }
  }

  private assumeRole(req: IncomingMessage, params: URLSearchParams, requestId: string): string {
    const roleArn = params.get('RoleArn');
    const session = params.get('RoleSessionName');
    if (!roleArn)
      throw new StsError(400, 'MissingParameter', 'The request must contain the parameter RoleArn.');
    if (!session || !/^[\w+=,.@-]{2,64}$/.test(session))
      throw new StsError(400, 'ValidationError', 'RoleSessionName must be 2-64 characters of [\\w+=,.@-].');
    const m = /^arn:(aws[a-z-]*):iam::(\d{12}):role\/(.+)$/.exec(roleArn);
    if (!m) throw new StsError(400, 'ValidationError', `${roleArn} is not a valid role ARN.`);
    const account = m[2]!;
    const caller = this.accountOf(req);
    if (!this.opts.accounts().includes(account))
      throw new StsError(
        403,
        'AccessDenied',
        `User: arn:aws:iam::${caller}:user/sandbox is not authorized to perform: sts:AssumeRole on resource: ${roleArn}`,
      );
    const seconds = Number(params.get('DurationSeconds') ?? DEFAULT_SESSION_SECONDS);
    if (!Number.isInteger(seconds) || seconds < 900 || seconds > 43_200)
      throw new StsError(400, 'ValidationError', 'DurationSeconds must be between 900 and 43200.');
    const key = `ASIA${Array.from(randomBytes(16), (b) => KEY_ALPHABET[b % 32]).join('')}`;
    const issued: IssuedCredentials = {
      accessKeyId: key,
      secretAccessKey: randomBytes(30).toString('base64'),
      sessionToken: randomBytes(48).toString('base64'),
      accountId: account,
      roleArn,
      expiresAt: this.opts.now() + seconds * 1000,
    };
    this.issued.set(key, issued);
    const roleName = m[3]!.split('/').pop()!;
    return (
      `<AssumeRoleResponse xmlns="${XMLNS}"><AssumeRoleResult>` +
      `<AssumedRoleUser><AssumedRoleId>AROA${account}:${escapeXml(session)}</AssumedRoleId>` +
      `<Arn>arn:${m[1]}:sts::${account}:assumed-role/${escapeXml(roleName)}/${escapeXml(session)}</Arn></AssumedRoleUser>` +
      `<Credentials><AccessKeyId>${key}</AccessKeyId><SecretAccessKey>${escapeXml(issued.secretAccessKey)}</SecretAccessKey>` +
      `<SessionToken>${escapeXml(issued.sessionToken)}</SessionToken><Expiration>${new Date(issued.expiresAt).toISOString()}</Expiration></Credentials>` +
      `</AssumeRoleResult><ResponseMetadata><RequestId>${requestId}</RequestId></ResponseMetadata></AssumeRoleResponse>`
    );
  }

  private send(res: ServerResponse, status: number, xml: string): void {
    res.writeHead(status, { 'content-type': 'text/xml' });
    res.end(`<?xml version="1.0" encoding="UTF-8"?>\n${xml}`);
  }
}

class StsError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}
