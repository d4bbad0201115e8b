/**
 * Signature Version 4 verification for the AWS stand-in, written from the published algorithm ("Create a
 * signed AWS API request", AWS IAM User Guide) rather than from any SDK's signer, so it proves that
 * chaos-gate's signing — the SDK clients' and its own raw signed calls — is what AWS checks. Used only
 * when the sandbox config holds `credentials`.
 *
 * What AWS answers, by protocol: restJson1 / JSON (FIS, CloudWatch JSON 1.0, Tagging) `403` with
 * `x-amzn-ErrorType: InvalidSignatureException` (`UnrecognizedClientException` for an unknown key,
 * `MissingAuthenticationTokenException` without one); awsQuery (CloudWatch query, STS) `403` with the
 * codes `SignatureDoesNotMatch`, `InvalidClientTokenId` and `MissingAuthenticationToken`.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/** The credentials requests must be signed with. */
export interface SigningCredentials {
  accessKeyId: string;
  secretAccessKey: string;
}

/** How far a request's `X-Amz-Date` may be from the server clock (AWS: 15 minutes). */
export const MAX_CLOCK_SKEW_MS = 15 * 60 * 1000;

/** Why a request was refused; `kind` picks the protocol's error code. */
export interface SignatureFailure {
  kind: 'missing' | 'unknown-key' | 'mismatch' | 'expired' | 'malformed';
  message: string;
}

/** The parts of an `Authorization: AWS4-HMAC-SHA256 …` header. */
export interface ParsedAuthorization {
  accessKeyId: string;
  date: string;
  region: string;
  service: string;
  signedHeaders: string[];
  signature: string;
}

/** Parses the Authorization header; undefined when it is not a SigV4 one. */
export function parseAuthorization(header: string | undefined): ParsedAuthorization | undefined {
  if (!header) return undefined;
  const m =
    /^AWS4-HMAC-SHA256\s+Credential=([^/,\s]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request\s*,\s*SignedHeaders=([^,\s]+)\s*,\s*Signature=([0-9a-f]{64})\s*$/.exec(
      header,
    );
  if (!m) return undefined;
  return {
    accessKeyId: m[1]!,
    date: m[2]!,
    region: m[3]!,
    service: m[4]!,
    signedHeaders: m[5]!.split(';'),
    signature: m[6]!,
  };
}

/** RFC 3986 encoding as SigV4 wants it: everything but unreserved characters, uppercase hex. */
function encode(text: string): string {
  return encodeURIComponent(text).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

/** Decodes one query component; `+` is a literal plus in SigV4 canonical form, as clients send %20 for spaces. */
function decode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * The canonical URI: the path as sent (already URI-encoded once), dot segments and empty segments
 * removed, then URI-encoded again — services other than S3 sign the double-encoded path.
 */
function canonicalUri(rawPath: string): string {
  const segments: string[] = [];
  for (const segment of rawPath.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') segments.pop();
    else segments.push(segment);
  }
  const normal = `/${segments.join('/')}${segments.length > 0 && rawPath.endsWith('/') ? '/' : ''}`;
  return encode(normal).replace(/%2F/g, '/');
}

/** The canonical query string: name=value pairs encoded, sorted by name then value. */
function canonicalQuery(rawQuery: string): string {
  if (!rawQuery) return '';
  const pairs = rawQuery
    .split('&')
    .filter((p) => p !== '')
    .map((p) => {
      const i = p.indexOf('=');
      const name = i < 0 ? p : p.slice(0, i);
      const value = i < 0 ? '' : p.slice(i + 1);
      return [encode(decode(name)), encode(decode(value))] as const;
    })
    .filter(([name]) => name !== 'X-Amz-Signature');
  pairs.sort((a, b) => (a[0] === b[0] ? (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0) : a[0] < b[0] ? -1 : 1));
  return pairs.map(([n, v]) => `${n}=${v}`).join('&');
}

/** Header values as received, all occurrences joined by commas, whitespace folded (SigV4 "Trimall"). */
function headerValues(req: IncomingMessage): Map<string, string> {
  const out = new Map<string, string[]>();
  const raw = req.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    const list = out.get(name) ?? [];
    list.push(raw[i + 1]!.trim().replace(/\s+/g, ' '));
    out.set(name, list);
  }
  return new Map([...out].map(([k, v]) => [k, v.join(',')]));
}

function hmac(key: Buffer | string, data: string): Buffer {
  return createHmac('sha256', key).update(data, 'utf8').digest();
}

/** The signing key for a day, Region and service. */
export function signingKey(secret: string, date: string, region: string, service: string): Buffer {
  return hmac(hmac(hmac(hmac(`AWS4${secret}`, date), region), service), 'aws4_request');
}

/** The string to sign and the canonical request, for a received request (exposed for tests). */
export function stringToSign(
  req: IncomingMessage,
  body: Buffer,
  auth: ParsedAuthorization,
): { stringToSign: string; canonicalRequest: string; amzDate: string } {
  const url = req.url ?? '/';
  const q = url.indexOf('?');
  const rawPath = q < 0 ? url : url.slice(0, q);
  const rawQuery = q < 0 ? '' : url.slice(q + 1);
  const headers = headerValues(req);
  const amzDate = headers.get('x-amz-date') ?? '';
  const canonicalHeaders = auth.signedHeaders.map((h) => `${h}:${headers.get(h) ?? ''}\n`).join('');
  const payloadHash =
    headers.get('x-amz-content-sha256') && headers.get('x-amz-content-sha256') !== 'UNSIGNED-PAYLOAD'
      ? (headers.get('x-amz-content-sha256') as string)
      : createHash('sha256').update(body).digest('hex');
  const canonicalRequest = [
    req.method ?? 'GET',
    canonicalUri(rawPath),
    canonicalQuery(rawQuery),
    canonicalHeaders,
    auth.signedHeaders.join(';'),
    payloadHash,
  ].join('\n');
  const scope = `${auth.date}/${auth.region}/${auth.service}/aws4_request`;
  return {
    canonicalRequest,
    amzDate,
    stringToSign: [
      'AWS4-HMAC-SHA256',
      amzDate,
      scope,
      createHash('sha256').update(canonicalRequest, 'utf8').digest('hex'),
    ].join('\n'),
  };
}

/** Parses `20240102T030405Z`. */
function amzDateMs(text: string): number | undefined {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(text);
  if (!m) return undefined;
  return Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6]));
}

/**
 * Verifies a request's SigV4 signature against the accepted credentials (the configured pair plus any
 * temporary keys the sandbox issued, by access key id); undefined when it is valid.
 */
export function verifySignature(
  req: IncomingMessage,
  body: Buffer,
  secretOf: (accessKeyId: string) => string | undefined,
  now: number,
): SignatureFailure | undefined {
  const header = req.headers.authorization;
  if (header === undefined) return { kind: 'missing', message: 'Request is missing Authentication Token' };
  const auth = parseAuthorization(header);
  if (!auth)
    return {
      kind: 'malformed',
      message: `Authorization header requires 'Credential', 'SignedHeaders' and 'Signature' parameters of AWS4-HMAC-SHA256.`,
    };
  const secret = secretOf(auth.accessKeyId);
  if (secret === undefined)
    return { kind: 'unknown-key', message: 'The security token included in the request is invalid.' };
  if (!auth.signedHeaders.includes('host'))
    return { kind: 'mismatch', message: `'Host' must be a signed header.` };
  const signed = stringToSign(req, body, auth);
  const at = amzDateMs(signed.amzDate);
  if (at === undefined || !auth.signedHeaders.includes('x-amz-date'))
    return { kind: 'malformed', message: 'The request must carry a signed X-Amz-Date header.' };
  if (signed.amzDate.slice(0, 8) !== auth.date)
    return {
      kind: 'mismatch',
      message: `Date in Credential scope does not match YYYYMMDD from ISO-8601 version of date from HTTP: '${auth.date}' != '${signed.amzDate.slice(0, 8)}'.`,
    };
  if (Math.abs(now - at) > MAX_CLOCK_SKEW_MS)
    return {
      kind: 'expired',
      message: `Signature expired: ${signed.amzDate} is now earlier than or later than the server time by more than 15 minutes.`,
    };
  const expected = createHmac('sha256', signingKey(secret, auth.date, auth.region, auth.service))
    .update(signed.stringToSign, 'utf8')
    .digest('hex');
  const a = Buffer.from(expected, 'hex');
  const b = Buffer.from(auth.signature, 'hex');
  if (a.length !== b.length || !timingSafeEqual(a, b))
    return {
      kind: 'mismatch',
      message:
        'The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details.',
    };
  return undefined;
}

/** The access key id a request is signed with (for per-caller behaviour), without verifying it. */
export function accessKeyOf(req: IncomingMessage): string | undefined {
  return parseAuthorization(req.headers.authorization)?.accessKeyId;
}
