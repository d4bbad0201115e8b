/**
 * The sandbox config file (YAML or JSON): account, Region, ports, FIS timings, canary behaviour and
 * load. Every field is optional; a bad field is reported with the file, the field, the value and what
 * is expected.
 */
import { z } from 'zod';
import { DocumentError, type DocumentIssue } from '../files/document.js';
import { loadYamlDocumentSync } from '../files/load.js';
import { validateDocument } from '../files/validate.js';
import { LOAD_TRANSPORTS, MAX_CONCURRENCY, MAX_RATE } from './loadgen.js';

const Port = z.number().int().min(0).max(65535);
const Ms = z
  .number()
  .min(0)
  .max(12 * 3600 * 1000);

/** FIS timings (see `FisTimings`). */
export const FisTimingsConfig = z.strictObject({
  pendingMs: Ms.optional(),
  initiatingMs: Ms.optional(),
  stoppingMs: Ms.optional(),
  durationScale: z.number().gt(0).max(1000).optional(),
  stopConditionPollMs: z.number().min(10).max(600_000).optional(),
  leverEngagingMs: Ms.optional(),
});

/** Canary behaviour (see `CanaryBehaviour`). */
export const CanaryConfig = z.strictObject({
  fallback: z.boolean().optional(),
  baseLatencyMs: z.number().min(0).max(10_000).optional(),
  dependencyTimeoutMs: z.number().min(0).max(60_000).optional(),
  breakerThreshold: z.number().int().min(1).max(1000).optional(),
  breakerResetMs: z.number().min(0).max(600_000).optional(),
  errorBurstMs: z.number().min(0).max(600_000).optional(),
  cpuStressLatencyMs: z.number().min(0).max(60_000).optional(),
});

/** Load generator settings. */
export const LoadConfig = z.strictObject({
  enabled: z.boolean().optional(),
  transport: z.enum(LOAD_TRANSPORTS).optional(),
  rate: z.number().min(0).max(MAX_RATE).optional(),
  concurrency: z.number().int().min(1).max(MAX_CONCURRENCY).optional(),
});

/** The whole config file. */
export const SandboxConfig = z.strictObject({
  accountId: z
    .string()
    .regex(/^\d{12}$/, { message: 'a 12-digit account id' })
    .optional(),
  region: z
    .string()
    .regex(/^[a-z]{2}(-[a-z]+)+-\d$/, { message: 'a Region such as us-east-1' })
    .optional(),
  ports: z
    .strictObject({
      aws: Port.optional(),
      canary: Port.optional(),
      admin: Port.optional(),
      github: Port.optional(),
    })
    .optional(),
  /**
   * Further accounts the stand-in holds (each a copy of the sandbox resources under its own account id),
   * for multi-account experiments; default one, `210987654321`.
   */
  targetAccounts: z
    .array(z.string().regex(/^\d{12}$/, { message: 'a 12-digit account id' }))
    .max(10)
    .optional(),
  /**
   * When given, every AWS request must carry a valid SigV4 signature made with these credentials (any
   * other key is refused as AWS refuses it); without it any signature is accepted.
   */
  credentials: z
    .strictObject({
      accessKeyId: z.string().min(16, { message: 'an access key id of at least 16 characters' }).max(128),
      secretAccessKey: z.string().min(1),
    })
    .optional(),
  fis: FisTimingsConfig.optional(),
  canary: CanaryConfig.optional(),
  load: LoadConfig.optional(),
  /** How often the canary publishes to CloudWatch and alarms are evaluated. */
  publishIntervalMs: z.number().min(100).max(60_000).optional(),
});

export type SandboxConfig = z.output<typeof SandboxConfig>;

/** Formats zod issues as `<file>: <field>: <problem> (got <value>)` lines. */
export function describeIssues(source: string, raw: unknown, error: z.ZodError): string {
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
