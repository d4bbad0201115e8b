/**
 * The sandbox config file (YAML or JSON): account, Region, ports, FIS timings, canary behaviour and
 * load. Every field is optional; a bad field is reported with the file, the field, the value and what
 * is expected.
 */
import type { $ZodError } from 'zod/v4/core';
import * as z from 'zod/mini';
import { DocumentError, type DocumentIssue } from '../files/document.js';
import { loadYamlDocumentSync } from '../files/load.js';
import { validateDocument } from '../files/validate.js';
import '../files/zod.js';
import { LOAD_TRANSPORTS, MAX_CONCURRENCY, MAX_RATE } from './loadgen.js';

// zod/mini, one function per classic method call and in the same order (src/files/zod.ts says why: a
// classic schema anywhere in the bundle keeps all of zod in the chunk `validate` shares with it).
const Port = z.number().check(z.int()).check(z.gte(0)).check(z.lte(65535));
const Ms = z
  .number()
  .check(z.gte(0))
  .check(z.lte(12 * 3600 * 1000));

/** FIS timings (see `FisTimings`). */
export const FisTimingsConfig = z.strictObject({
  pendingMs: z.optional(Ms),
  initiatingMs: z.optional(Ms),
  stoppingMs: z.optional(Ms),
  durationScale: z.optional(z.number().check(z.gt(0)).check(z.lte(1000))),
  stopConditionPollMs: z.optional(z.number().check(z.gte(10)).check(z.lte(600_000))),
  leverEngagingMs: z.optional(Ms),
});

/** FIS quotas a test may lower (see `FisQuotas`); FIS's own are the default. */
export const FisQuotasConfig = z.strictObject({
  activeExperiments: z.optional(z.number().check(z.int()).check(z.gte(1)).check(z.lte(5))),
});

/** Canary behaviour (see `CanaryBehaviour`). */
export const CanaryConfig = z.strictObject({
  fallback: z.optional(z.boolean()),
  baseLatencyMs: z.optional(z.number().check(z.gte(0)).check(z.lte(10_000))),
  dependencyTimeoutMs: z.optional(z.number().check(z.gte(0)).check(z.lte(60_000))),
  breakerThreshold: z.optional(z.number().check(z.int()).check(z.gte(1)).check(z.lte(1000))),
  breakerResetMs: z.optional(z.number().check(z.gte(0)).check(z.lte(600_000))),
  errorBurstMs: z.optional(z.number().check(z.gte(0)).check(z.lte(600_000))),
  cpuStressLatencyMs: z.optional(z.number().check(z.gte(0)).check(z.lte(60_000))),
});

/** Load generator settings. */
export const LoadConfig = z.strictObject({
  enabled: z.optional(z.boolean()),
  transport: z.optional(z.enum(LOAD_TRANSPORTS)),
  rate: z.optional(z.number().check(z.gte(0)).check(z.lte(MAX_RATE))),
  concurrency: z.optional(z.number().check(z.int()).check(z.gte(1)).check(z.lte(MAX_CONCURRENCY))),
});

/** The whole config file. */
export const SandboxConfig = z.strictObject({
  accountId: z.optional(z.string().check(z.regex(/^\d{12}$/, { message: 'a 12-digit account id' }))),
  region: z.optional(
    z.string().check(z.regex(/^[a-z]{2}(-[a-z]+)+-\d$/, { message: 'a Region such as us-east-1' })),
  ),
  ports: z.optional(
    z.strictObject({
      aws: z.optional(Port),
      canary: z.optional(Port),
      admin: z.optional(Port),
      github: z.optional(Port),
    }),
  ),
  /**
   * Further accounts the stand-in holds (each a copy of the sandbox resources under its own account id),
   * for multi-account experiments; default one, `210987654321`.
   */
  targetAccounts: z.optional(
    z
      .array(z.string().check(z.regex(/^\d{12}$/, { message: 'a 12-digit account id' })))
      .check(z.maxLength(10)),
  ),
  /**
   * When given, every AWS request must carry a valid SigV4 signature made with these credentials (any
   * other key is refused as AWS refuses it); without it any signature is accepted.
   */
  credentials: z.optional(
    z.strictObject({
      accessKeyId: z
        .string()
        .check(z.minLength(16, { message: 'an access key id of at least 16 characters' }))
        .check(z.maxLength(128)),
      secretAccessKey: z.string().check(z.minLength(1)),
    }),
  ),
  fis: z.optional(FisTimingsConfig),
  /** FIS quotas lowered for tests: `activeExperiments` (1–5; FIS allows 5 per account and Region). */
  fisQuotas: z.optional(FisQuotasConfig),
  canary: z.optional(CanaryConfig),
  load: z.optional(LoadConfig),
  /** How often the canary publishes to CloudWatch and alarms are evaluated. */
  publishIntervalMs: z.optional(z.number().check(z.gte(100)).check(z.lte(60_000))),
});

export type SandboxConfig = z.output<typeof SandboxConfig>;

/** Formats zod issues as `<file>: <field>: <problem> (got <value>)` lines. */
export function describeIssues(source: string, raw: unknown, error: $ZodError): string {
  return error.issues
    .map((issue) => {
      const field = issue.path.join('.') || '(root)';
      let value: unknown = raw;
      for (const key of issue.path)
        value = (value as Record<PropertyKey, unknown> | undefined)?.[key as PropertyKey];
      const got = value === undefined ? '' : ` (got ${JSON.stringify(value)})`;
      return `${source}: ${field}: ${issue.message}${got}`;
    })
    .join('\n');
}

/** A sandbox config is a page of settings; 64 KiB bounds parse memory with room to spare. */
export const MAX_SANDBOX_CONFIG_BYTES = 64 * 1024;

/** A config file that cannot be used; every issue names file:line:col, the field, the value and the expectation. */
export class SandboxConfigError extends DocumentError {
  override name = 'SandboxConfigError';
  constructor(file: string, issues: DocumentIssue[]) {
    super(file, issues, 'sandbox config');
  }
}

/** Reads and validates a config file (YAML or JSON) through the one loader. Throws `SandboxConfigError`. */
export function loadSandboxConfig(file: string): SandboxConfig {
  const error = (f: string, issues: DocumentIssue[]): Error => new SandboxConfigError(f, issues);
  const doc = loadYamlDocumentSync(file, {
    what: 'sandbox config',
    maxBytes: MAX_SANDBOX_CONFIG_BYTES,
    limitName: 'MAX_SANDBOX_CONFIG_BYTES',
    error,
  });
  // Every field is optional: an empty file is the defaults.
  return validateDocument(doc, SandboxConfig, { noun: 'sandbox config', emptyIsMapping: true, error });
}

/** Drops keys whose value is undefined, so a partial config spreads over defaults without erasing them. */
export function defined<T extends object>(o: T | undefined): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(o ?? {}).filter(([, v]) => v !== undefined)) as {
    [K in keyof T]?: Exclude<T[K], undefined>;
  };
}
