/**
 * The sandbox's stand-in for AWS Systems Manager Parameter Store (awsJson1_1, `X-Amz-Target:
 * AmazonSSM.<Operation>`, API version 2014-11-06): the operations chaos-gate coordinates runs with —
 * PutParameter, GetParameter, GetParameters, GetParametersByPath and DeleteParameter.
 *
 * What chaos-gate relies on, as AWS documents it:
 * - PutParameter without `Overwrite` on an existing name fails with `ParameterAlreadyExists` and changes
 *   nothing: the atomic conditional create every claim is built on. With `Overwrite` it adds a version.
 * - A parameter's versions count from 1; deleting it and creating it again starts at 1 again.
 * - Parameter policies (`Policies`, a JSON list) need the Advanced tier; an `Expiration` policy deletes the
 *   parameter at its `Timestamp`. AWS does not promise to delete it at that very second, so chaos-gate
 *   never depends on the deletion: every claim carries its own expiry in its value too. The sandbox
 *   deletes an expired parameter before answering any request made after its timestamp.
 * - Names: `a-zA-Z0-9_.-` and `/` for hierarchy, a hierarchy must start with `/`, at most 15 levels, not
 *   prefixed `aws` or `ssm` (case-insensitive), at most 1011 characters.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { errorMessage } from '../../errors/message.js';

export const SSM_TARGET_PREFIX = 'AmazonSSM.';
/** Longest parameter name (the API reference's stated maximum for the fully qualified name). */
export const MAX_NAME_LENGTH = 1011;
/** Most levels of a hierarchy. */
export const MAX_HIERARCHY_LEVELS = 15;
/** Largest value: 4 KB for Standard, 8 KB for Advanced parameters. */
export const MAX_VALUE_STANDARD = 4096;
export const MAX_VALUE_ADVANCED = 8192;
/** Versions kept per parameter; past it the oldest goes. */
export const MAX_VERSIONS = 100;
/** GetParameters takes 1–10 names; GetParametersByPath answers at most 10 a page. */
export const MAX_GET_PARAMETERS = 10;
export const MAX_PATH_RESULTS = 10;
const MAX_BODY_BYTES = 1024 * 1024;
/** Parameter events kept for tests (the oldest go first). */
export const MAX_HISTORY = 10_000;
const POLICY_TYPES = new Set(['Expiration', 'ExpirationNotification', 'NoChangeNotification']);
const TIERS = new Set(['Standard', 'Advanced', 'Intelligent-Tiering']);
const TYPES = new Set(['String', 'StringList', 'SecureString']);

type Json = Record<string, unknown>;

export class SsmError extends Error {
  override name = 'SsmError';
  constructor(
    readonly type: string,
    message: string,
    readonly status = 400,
  ) {
    super(message);
  }
}

const validation = (message: string) => new SsmError('ValidationException', message);

/** One version of a parameter. */
interface Version {
  value: string;
  type: string;
  version: number;
  tier: 'Standard' | 'Advanced';
  policies: { type: string; text: string }[];
  /** Epoch ms of the Expiration policy, if any. */
  expiresAt?: number | undefined;
  modifiedAt: number;
  description?: string | undefined;
}

/** What a test can read of a parameter: its history of creations and deletions. */
export interface ParameterEvent {
  at: number;
  name: string;
  kind: 'created' | 'overwritten' | 'deleted' | 'expired';
  version: number;
  value?: string;
}

export interface SsmStandInOptions {
  now?: (() => number) | undefined;
  region: string;
  accountId: string;
}

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** ValidationException for a name Parameter Store would not accept. */
export function checkName(name: unknown): string {
  if (typeof name !== 'string' || name.length === 0)
    throw validation(
      '1 validation error detected: Value at name failed to satisfy constraint: Member must not be null',
    );
  if (name.length > MAX_NAME_LENGTH)
    throw validation(`Parameter name: can't be longer than ${MAX_NAME_LENGTH} characters.`);
  const bare = name.replace(/^\//, '').toLowerCase();
  if (bare.startsWith('aws') || bare.startsWith('ssm'))
    throw validation('Parameter name: can\'t be prefixed with "aws" or "ssm" (case-insensitive).');
  if (!/^[a-zA-Z0-9_.\-/]+$/.test(name))
    throw validation(
      'Parameter name must be a fully qualified name; it can include only a-zA-Z0-9_.-/ and no spaces.',
    );
  if (name.includes('/') && !name.startsWith('/'))
    throw validation('Parameter name must be a fully qualified name: a hierarchy starts with "/".');
  if (name.includes('//') || (name.length > 1 && name.endsWith('/')))
    throw validation('Parameter name: a sub-path of a hierarchy cannot be empty.');
  if (name.split('/').length - 1 > MAX_HIERARCHY_LEVELS)
    throw new SsmError(
      'HierarchyLevelLimitExceededException',
      `A hierarchy can have a maximum of ${MAX_HIERARCHY_LEVELS} levels.`,
    );
  return name;
}

/** Parses `Policies`: a JSON list of `{Type, Version, Attributes}`; returns them and the expiry. */
function parsePolicies(text: string, now: number): { policies: Version['policies']; expiresAt?: number } {
  let list: unknown;
  try {
    list = JSON.parse(text);
  } catch {
    throw new SsmError('InvalidPolicyAttributeException', 'Policies is not valid JSON.');
  }
  if (!Array.isArray(list))
    throw new SsmError('InvalidPolicyAttributeException', 'Policies must be a JSON list.');
  if (list.length > 10)
    throw new SsmError('PoliciesLimitExceededException', 'You can specify a maximum of 10 policies.');
  const policies: Version['policies'] = [];
  let expiresAt: number | undefined;
  for (const p of list) {
    if (!isObject(p) || typeof p.Type !== 'string')
      throw new SsmError('InvalidPolicyAttributeException', 'Every policy needs a Type.');
    if (!POLICY_TYPES.has(p.Type))
      throw new SsmError(
        'InvalidPolicyTypeException',
        `The policy type ${p.Type} is not supported; Parameter Store supports Expiration, ExpirationNotification and NoChangeNotification.`,
      );
    if (policies.some((q) => q.type === p.Type))
      throw new SsmError(
        'IncompatiblePolicyException',
        `You can't specify two ${p.Type} policies for a parameter.`,
      );
    const attrs = isObject(p.Attributes) ? p.Attributes : {};
    if (p.Type === 'Expiration') {
      const ts = attrs.Timestamp;
      const at = typeof ts === 'string' ? Date.parse(ts) : NaN;
      if (Number.isNaN(at))
        throw new SsmError(
          'InvalidPolicyAttributeException',
          'The Expiration policy needs Attributes.Timestamp in ISO 8601 format.',
        );
      if (at <= now)
        throw new SsmError(
          'InvalidPolicyAttributeException',
          'The Expiration timestamp must be in the future.',
        );
      expiresAt = at;
    }
    policies.push({ type: p.Type, text: JSON.stringify(p) });
  }
  return expiresAt !== undefined ? { policies, expiresAt } : { policies };
}

export class SsmStandIn {
  private readonly now: () => number;
  /** Name → its versions, oldest first. */
  private readonly params = new Map<string, Version[]>();
  /** Every creation, overwrite, deletion and expiry, in order (for tests). */
  readonly history: ParameterEvent[] = [];
  private record(e: ParameterEvent): void {
    this.history.push(e);
    if (this.history.length > MAX_HISTORY) this.history.splice(0, this.history.length - MAX_HISTORY);
  }

  constructor(private readonly opts: SsmStandInOptions) {
    this.now = opts.now ?? Date.now;
  }

  handles(req: IncomingMessage): boolean {
    const target = req.headers['x-amz-target'];
    return typeof target === 'string' && target.startsWith(SSM_TARGET_PREFIX);
  }

  handle(req: IncomingMessage, body: Buffer, res: ServerResponse): Promise<void> {
    const operation = String(req.headers['x-amz-target'] ?? '').slice(SSM_TARGET_PREFIX.length);
    try {
      if (req.method !== 'POST') throw new SsmError('UnknownOperationException', 'Only POST is accepted.');
      if (body.length > MAX_BODY_BYTES)
        throw new SsmError(
          'SerializationException',
          `The request body exceeds ${MAX_BODY_BYTES} bytes.`,
          413,
        );
      let input: unknown;
      try {
        input = body.length === 0 ? {} : JSON.parse(body.toString('utf8'));
      } catch {
        throw new SsmError('SerializationException', 'The request body is not valid JSON.');
      }
      if (!isObject(input))
        throw new SsmError('SerializationException', 'The request body must be a JSON object.');
      this.send(res, 200, this.call(operation, input));
    } catch (error) {
      const err =
        error instanceof SsmError ? error : new SsmError('InternalServerError', errorMessage(error), 500);
      this.send(res, err.status, { __type: err.type, message: err.message }, err.type);
    }
    return Promise.resolve();
  }

  /** One operation on a parsed input (exported for tests that need no HTTP). */
  call(operation: string, input: Json): Json {
    this.expire();
    switch (operation) {
      case 'PutParameter':
        return this.put(input);
      case 'GetParameter':
        return { Parameter: this.view(...this.select(input.Name)) };
      case 'GetParameters':
        return this.getMany(input);
      case 'GetParametersByPath':
        return this.byPath(input);
      case 'DeleteParameter':
        return this.delete(input);
      default:
        throw new SsmError(
          'UnknownOperationException',
          `The operation ${operation || '(none)'} is not supported by the sandbox's SSM stand-in ` +
            '(PutParameter, GetParameter, GetParameters, GetParametersByPath and DeleteParameter are).',
        );
    }
  }

  /** Deletes every parameter whose Expiration timestamp has passed. */
  expire(now = this.now()): void {
    for (const [name, versions] of this.params) {
      const latest = versions[versions.length - 1];
      if (latest?.expiresAt !== undefined && latest.expiresAt <= now) {
        this.params.delete(name);
        this.record({ at: now, name, kind: 'expired', version: latest.version });
      }
    }
  }

  private put(input: Json): Json {
    const name = checkName(input.Name);
    const value = input.Value;
    if (typeof value !== 'string' || value.length === 0)
      throw validation(
        "1 validation error detected: Value '' at 'value' failed to satisfy constraint: Member must have length greater than or equal to 1.",
      );
    const overwrite = input.Overwrite === true;
    const existing = this.params.get(name);
    const latest = existing?.[existing.length - 1];
    if (latest && !overwrite)
      throw new SsmError(
        'ParameterAlreadyExists',
        'The parameter already exists. To overwrite this value, set the overwrite option in the request to true.',
      );
    const type = input.Type ?? latest?.type;
    if (typeof type !== 'string')
      throw validation('A parameter type is required when you create a parameter.');
    if (!TYPES.has(type))
      throw validation(
        `1 validation error detected: Value '${type}' at 'type' failed to satisfy constraint: Member must satisfy enum value set: [SecureString, StringList, String]`,
      );
    if (latest && input.Type !== undefined && input.Type !== latest.type)
      throw new SsmError('HierarchyTypeMismatchException', 'The parameter type cannot be changed.');
    const requested = input.Tier ?? 'Standard';
    if (typeof requested !== 'string' || !TIERS.has(requested))
      throw validation(
        `1 validation error detected: Value '${String(requested)}' at 'tier' failed to satisfy constraint: Member must satisfy enum value set: [Advanced, Intelligent-Tiering, Standard]`,
      );
    const now = this.now();
    const parsed =
      typeof input.Policies === 'string' && input.Policies.length > 0
        ? parsePolicies(input.Policies, now)
        : undefined;
    const wantsAdvanced = parsed !== undefined || value.length > MAX_VALUE_STANDARD;
    if (requested === 'Standard' && parsed)
      throw validation('Standard tier parameters do not support parameter policies; use the Advanced tier.');
    // Intelligent-Tiering picks Advanced when the request needs it; an Advanced parameter stays Advanced.
    const tier: Version['tier'] =
      requested === 'Advanced' ||
      latest?.tier === 'Advanced' ||
      (requested === 'Intelligent-Tiering' && wantsAdvanced)
        ? 'Advanced'
        : 'Standard';
    const max = tier === 'Advanced' ? MAX_VALUE_ADVANCED : MAX_VALUE_STANDARD;
    if (value.length > max)
      throw validation(
        `The parameter value is longer than ${max} characters, the limit of the ${tier} tier.`,
      );
    const version = (latest?.version ?? 0) + 1;
    const next: Version = {
      value,
      type,
      version,
      tier,
      policies:
        parsed?.policies ?? (overwrite && input.Policies === undefined ? (latest?.policies ?? []) : []),
      expiresAt: parsed?.expiresAt ?? (input.Policies === undefined ? latest?.expiresAt : undefined),
      modifiedAt: now,
      ...(typeof input.Description === 'string' ? { description: input.Description } : {}),
    };
    const versions = existing ?? [];
    versions.push(next);
    if (versions.length > MAX_VERSIONS) versions.splice(0, versions.length - MAX_VERSIONS);
    this.params.set(name, versions);
    this.record({ at: now, name, kind: latest ? 'overwritten' : 'created', version, value });
    return { Version: version, Tier: tier };
  }

  /** `name` or `name:version`; ParameterNotFound / ParameterVersionNotFound. */
  private select(raw: unknown): [string, Version] {
    if (typeof raw !== 'string' || raw.length === 0) throw validation('Name is required.');
    const m = /^(.*):(\d+)$/.exec(raw);
    const name = m ? m[1]! : raw;
    const versions = this.params.get(name);
    if (!versions?.length) throw new SsmError('ParameterNotFound', `Parameter ${name} not found.`);
    if (!m) return [name, versions[versions.length - 1]!];
    const v = versions.find((x) => x.version === Number(m[2]));
    if (!v)
      throw new SsmError(
        'ParameterVersionNotFound',
        `Systems Manager could not find version ${m[2]} of ${name}.`,
      );
    return [name, v];
  }

  private view(name: string, v: Version): Json {
    return {
      Name: name,
      Type: v.type,
      Value: v.value,
      Version: v.version,
      LastModifiedDate: v.modifiedAt / 1000,
      ARN: `arn:aws:ssm:${this.opts.region}:${this.opts.accountId}:parameter${name.startsWith('/') ? '' : '/'}${name}`,
      DataType: 'text',
    };
  }

  private getMany(input: Json): Json {
    const names = input.Names;
    if (!Array.isArray(names) || names.length < 1 || names.length > MAX_GET_PARAMETERS)
      throw validation(`Names must list 1-${MAX_GET_PARAMETERS} parameter names.`);
    const found: Json[] = [];
    const invalid: string[] = [];
    for (const n of names) {
      try {
        found.push(this.view(...this.select(n)));
      } catch (error) {
        if (error instanceof SsmError && error.type.startsWith('ParameterNotFound')) invalid.push(String(n));
        else if (error instanceof SsmError && error.type === 'ParameterVersionNotFound')
          invalid.push(String(n));
        else throw error;
      }
    }
    return { Parameters: found, InvalidParameters: invalid };
  }

  private byPath(input: Json): Json {
    const path = input.Path;
    if (typeof path !== 'string' || !path.startsWith('/'))
      throw validation('The path must start with "/" (a parameter hierarchy).');
    const recursive = input.Recursive === true;
    const max = input.MaxResults ?? MAX_PATH_RESULTS;
    if (typeof max !== 'number' || !Number.isInteger(max) || max < 1 || max > MAX_PATH_RESULTS)
      throw validation(`MaxResults must be 1-${MAX_PATH_RESULTS}.`);
    const prefix = path.endsWith('/') ? path : `${path}/`;
    const names = [...this.params.keys()]
      .filter((n) => n.startsWith(prefix) && (recursive || !n.slice(prefix.length).includes('/')))
      .sort();
    let start = 0;
    if (typeof input.NextToken === 'string') {
      const after = Buffer.from(input.NextToken, 'base64url').toString('utf8');
      start = names.findIndex((n) => n > after);
      if (start < 0) start = names.length;
    }
    const page = names.slice(start, start + max);
    const out: Json = {
      Parameters: page.map((n) => {
        const versions = this.params.get(n)!;
        return this.view(n, versions[versions.length - 1]!);
      }),
    };
    if (start + max < names.length) out.NextToken = Buffer.from(page[page.length - 1]!).toString('base64url');
    return out;
  }

  private delete(input: Json): Json {
    const name = input.Name;
    if (typeof name !== 'string' || name.length === 0) throw validation('Name is required.');
    const versions = this.params.get(name);
    if (!versions?.length) throw new SsmError('ParameterNotFound', `Parameter ${name} not found.`);
    this.params.delete(name);
    this.record({ at: this.now(), name, kind: 'deleted', version: versions[versions.length - 1]!.version });
    return {};
  }

  private send(res: ServerResponse, status: number, body: Json, errorType?: string): void {
    const text = JSON.stringify(body);
    res.setHeader('content-type', 'application/x-amz-json-1.1');
    res.setHeader('content-length', Buffer.byteLength(text));
    res.setHeader('x-amzn-requestid', randomUUID());
    if (errorType) res.setHeader('x-amzn-errortype', errorType);
    res.writeHead(status);
    res.end(text);
  }
}
