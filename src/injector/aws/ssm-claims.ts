/**
 * Claims on SSM Parameter Store: how runners that know nothing of each other agree who may do something
 * now. A claim is a parameter created with PutParameter *without* Overwrite, which either creates it or
 * fails with `ParameterAlreadyExists` — one atomic conditional create, no infrastructure of the user's.
 *
 * Every claim expires by itself: its value names its owner and an expiry, and the parameter carries an
 * `Expiration` policy at that time (the Advanced tier: policies need it), so a claim whose runner died is
 * deleted by Parameter Store. AWS does not promise to delete it at that very second, so a contender that
 * finds a claim past the expiry written in its value may take it over — but only atomically: it first
 * creates a takeover key naming the stale owner (again without Overwrite, so of two contenders one wins),
 * re-reads the claim, deletes it only if it still names that owner, and then creates its own.
 *
 * Release deletes only a claim whose value names this owner (read before delete).
 */
import { createHash } from 'node:crypto';
import {
  DeleteParameterCommand,
  GetParameterCommand,
  GetParametersByPathCommand,
  PutParameterCommand,
  SSMClient,
} from '@aws-sdk/client-ssm';
import { withDeadline } from '../../net/deadline.js';
import { awsClientConfig, type AwsOptions } from './config.js';

/** One SSM call, retries included: Parameter Store answers in milliseconds. */
export const SSM_CALL_MS = 5_000;
/** Where chaos-gate's parameters live. */
export const CLAIM_PREFIX = '/chaos-gate/claims/';
export const BUDGET_LOCK_PREFIX = '/chaos-gate/budget-locks/';
export const RESERVATION_PREFIX = '/chaos-gate/reservations/';
/**
 * A claim is taken over only this long after the expiry its value names: the runners' clocks may differ
 * by this much (GitHub-hosted runners keep NTP time; 30 s is generous).
 */
export const CLOCK_SKEW_MS = 30_000;

export function createSsmClient(opts: AwsOptions & { region: string }): SSMClient {
  const { region, ...rest } = opts;
  return new SSMClient(awsClientConfig(region, rest));
}

/** A valid parameter name segment for any text (an ARN, a service name): hex of its SHA-256. */
export function keyOf(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 40);
}

/** What a claim's value says. */
export interface ClaimValue {
  /** Unique per run (a per-process nonce): the only thing release and takeover compare. */
  owner: string;
  runId: string;
  attempt: number;
  planId: string;
  /** Epoch ms after which the claim is stale. */
  expiresAt: number;
  /** What it claims (a target ARN, a service), for messages. */
  subject: string;
  /** Reservations: the error budget held. */
  amount?: number;
}

export function parseClaim(text: string | undefined): ClaimValue | undefined {
  if (!text) return undefined;
  try {
    const v = JSON.parse(text) as Partial<ClaimValue>;
    if (typeof v.owner !== 'string' || typeof v.expiresAt !== 'number' || !Number.isFinite(v.expiresAt))
      return undefined;
    return {
      owner: v.owner,
      runId: String(v.runId ?? ''),
      attempt: Number(v.attempt ?? 0),
      planId: String(v.planId ?? ''),
      expiresAt: v.expiresAt,
      subject: String(v.subject ?? ''),
      ...(typeof v.amount === 'number' && Number.isFinite(v.amount) ? { amount: v.amount } : {}),
    };
  } catch {
    return undefined;
  }
}

/** Who holds a claim, in words. */
export function holderText(v: ClaimValue | undefined): string {
  if (!v) return 'an unreadable claim';
  return `run ${v.runId} attempt ${v.attempt} of plan ${v.planId} (until ${new Date(v.expiresAt).toISOString()})`;
}

function errorName(error: unknown): string {
  return (error as { name?: string } | undefined)?.name ?? '';
}

export type TryClaim = { ok: true } | { ok: false; holder: ClaimValue | undefined };

/** Claims on one Parameter Store, for one owner. */
export class SsmClaims {
  constructor(
    private readonly ssm: SSMClient,
    private readonly now: () => number,
    private readonly signal?: AbortSignal,
  ) {}

  private send<T>(label: string, call: (s: AbortSignal) => Promise<T>): Promise<T> {
    return withDeadline(call, SSM_CALL_MS, `SSM ${label}`, this.signal);
  }

  private async read(name: string): Promise<{ value: ClaimValue | undefined; raw: string } | undefined> {
    try {
      const out = await this.send('GetParameter', (s) =>
        this.ssm.send(new GetParameterCommand({ Name: name }), { abortSignal: s }),
      );
      const raw = out.Parameter?.Value ?? '';
      return { value: parseClaim(raw), raw };
    } catch (error) {
      if (errorName(error) === 'ParameterNotFound') return undefined;
      throw error;
    }
  }

  /** PutParameter without Overwrite, expiring at `value.expiresAt`: true when this call created it. */
  private async create(name: string, value: ClaimValue): Promise<boolean> {
    try {
      await this.send('PutParameter', (s) =>
        this.ssm.send(
          new PutParameterCommand({
            Name: name,
            Value: JSON.stringify(value),
            Type: 'String',
            Tier: 'Advanced',
            Overwrite: false,
            Policies: JSON.stringify([
              {
                Type: 'Expiration',
                Version: '1.0',
                Attributes: { Timestamp: new Date(value.expiresAt).toISOString() },
              },
            ]),
          }),
          { abortSignal: s },
        ),
      );
      return true;
    } catch (error) {
      if (errorName(error) !== 'ParameterAlreadyExists') throw error;
      // The SDK retries a call whose answer was lost: the parameter may be our own first attempt's.
      const again = await this.read(name);
      return again?.value?.owner === value.owner;
    }
  }

  /**
   * Takes the claim `name`, or says who holds it. An expired holder's claim is taken over atomically
   * (see the module comment).
   */
  async tryClaim(name: string, value: ClaimValue): Promise<TryClaim> {
    if (await this.create(name, value)) return { ok: true };
    const current = await this.read(name);
    if (!current) return (await this.create(name, value)) ? { ok: true } : { ok: false, holder: undefined };
    const holder = current.value;
    if (holder?.owner === value.owner) return { ok: true };
    // An unreadable value has no expiry to trust: it waits for Parameter Store's own expiry.
    if (!holder || this.now() < holder.expiresAt + CLOCK_SKEW_MS) return { ok: false, holder };
    const takeover = `${name}.takeover.${keyOf(holder.owner).slice(0, 16)}`;
    if (!(await this.create(takeover, { ...value, expiresAt: this.now() + 5 * 60_000, subject: name })))
      return { ok: false, holder };
    try {
      const still = await this.read(name);
      if (still && still.value?.owner !== holder.owner) return { ok: false, holder: still.value };
      if (still) await this.deleteQuietly(name);
      return (await this.create(name, value)) ? { ok: true } : { ok: false, holder: undefined };
    } finally {
      await this.deleteQuietly(takeover).catch(() => undefined);
    }
  }

  /** Deletes `name` if its value names `owner`; never another's claim. */
  async release(name: string, owner: string): Promise<void> {
    const current = await this.read(name);
    if (current?.value?.owner !== owner) return;
    await this.deleteQuietly(name);
  }

  private async deleteQuietly(name: string): Promise<void> {
    try {
      await this.send('DeleteParameter', (s) =>
        this.ssm.send(new DeleteParameterCommand({ Name: name }), { abortSignal: s }),
      );
    } catch (error) {
      if (errorName(error) !== 'ParameterNotFound') throw error;
    }
  }

  /** Overwrites a parameter this owner alone writes (its own reservation), keeping it expiring. */
  async overwriteOwn(name: string, value: ClaimValue): Promise<void> {
    await this.send('PutParameter', (s) =>
      this.ssm.send(
        new PutParameterCommand({
          Name: name,
          Value: JSON.stringify(value),
          Type: 'String',
          Tier: 'Advanced',
          Overwrite: true,
          Policies: JSON.stringify([
            {
              Type: 'Expiration',
              Version: '1.0',
              Attributes: { Timestamp: new Date(value.expiresAt).toISOString() },
            },
          ]),
        }),
        { abortSignal: s },
      ),
    );
  }

  /** Every claim under `path` (one level), with unreadable values as undefined. */
  async list(path: string): Promise<{ name: string; value: ClaimValue | undefined }[]> {
    const out: { name: string; value: ClaimValue | undefined }[] = [];
    let token: string | undefined;
    let pages = 0;
    do {
      const page = await this.send('GetParametersByPath', (s) =>
        this.ssm.send(
          new GetParametersByPathCommand({
            Path: path,
            Recursive: false,
            MaxResults: 10,
            ...(token ? { NextToken: token } : {}),
          }),
          { abortSignal: s },
        ),
      );
      for (const p of page.Parameters ?? []) out.push({ name: p.Name ?? '', value: parseClaim(p.Value) });
      token = page.NextToken;
      // 1000 reservations of one service at once is no real case; a runaway listing is cut off.
      if (++pages > 100) throw new Error(`SSM GetParametersByPath ${path}: more than 1000 parameters`);
    } while (token);
    return out;
  }
}
