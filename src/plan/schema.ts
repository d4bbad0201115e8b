/**
 * The plan file: one experiment, validated by zod. Endpoints and secrets are deliberately absent
 * (they come from inputs and the environment) so one plan runs against any environment.
 * `schema/plan.schema.json` is generated from this file (`npm run schema`).
 */
import { z } from 'zod';
import { DURATION_EXPECTED, DURATION_PATTERN, parseDuration } from './duration.js';
import { Fis } from './fis.js';

export { DURATION_EXPECTED } from './duration.js';

/** A duration string (`500ms`, `5s`, `2m`, `1h`, `30d`) parsed to milliseconds. */
export const Duration = z
  .string()
  .regex(new RegExp(DURATION_PATTERN), { message: DURATION_EXPECTED })
  .transform((s) => parseDuration(s) ?? NaN)
  .meta({ description: 'Duration: a number followed by ms, s, m, h or d (e.g. 5s, 2m).' });

const Slug = z.string().regex(/^[a-z0-9][a-z0-9-]{0,62}$/, {
  message: 'a slug: lowercase letters, digits and dashes, at most 63',
});

const Dimensions = z.record(z.string(), z.string());

/**
 * CloudWatch accepts a metric period of 1, 5, 10, 20 or 30 s (high resolution) or a multiple of 60 s
 * (PutMetricAlarm/GetMetricData `Period`, SEMANTICS §5.2); anything else fails only at run time.
 */
const CloudWatchPeriod = Duration.refine(
  (ms) => [1000, 5000, 10_000, 20_000, 30_000].includes(ms) || (ms > 0 && ms % 60_000 === 0),
  {
    message: 'a CloudWatch period: 1s, 5s, 10s, 20s, 30s or a multiple of 60s',
  },
);

/**
 * How long after a period ends its datapoints may still be arriving. Readings cover only periods that
 * ended at least this long before the tick (metrics/cloudwatch/window.ts holds the defaults: 5s for
 * sub-minute periods, 2m for a minute or more).
 */
const IngestionDelay = Duration.describe(
  'How long after a period ends its data may still arrive; only periods that ended at least this long ago are read. Default 5s for periods under a minute, 2m otherwise.',
).optional();

/** A CloudWatch metric stat query, or a metric-math expression over such queries. */
export const CloudWatchSource = z.union([
  z.strictObject({
    namespace: z.string().min(1),
    metricName: z.string().min(1),
    dimensions: Dimensions.optional(),
    stat: z.string().min(1).default('Sum'),
    period: CloudWatchPeriod.prefault('60s'),
    unit: z.string().optional(),
    ingestionDelay: IngestionDelay,
  }),
  z.strictObject({
    expression: z.string().min(1),
    metrics: z
      .record(
        z.string().regex(/^[a-z][a-zA-Z0-9_]*$/, { message: 'a metric-math id (lowercase first letter)' }),
        z.strictObject({
          namespace: z.string().min(1),
          metricName: z.string().min(1),
          dimensions: Dimensions.optional(),
          stat: z.string().min(1).default('Sum'),
        }),
      )
      .default({}),
    period: CloudWatchPeriod.prefault('60s'),
    ingestionDelay: IngestionDelay,
  }),
]);

/** A selector in PromQL notation, e.g. `http_requests_total{status=~"5.."}`. */
const Selector = z.string().min(1);

/** An SLI computed from the difference between two scrapes of a `/metrics` endpoint. */
export const ScrapeSource = z
  .strictObject({
    /** URL of the metrics endpoint; `${VAR}` expands a variable the plan declares in `env:`. */
    url: z
      .string()
      .min(1)
      .describe(
        'URL of the metrics endpoint; ${NAME} expands a variable declared in the top-level env: list.',
      ),
    /** errors / total over the window (counter increases). */
    ratio: z.strictObject({ numerator: Selector, denominator: Selector }).optional(),
    /** Counter increase over the window. */
    increase: Selector.optional(),
    /** Counter increase per second over the window. */
    rate: Selector.optional(),
    /** Quantile of a histogram's bucket increases, as Prometheus's histogram_quantile. */
    quantile: z.strictObject({ q: z.number().min(0).max(1), histogram: Selector }).optional(),
    /** Current value of a gauge (summed over matching series). */
    gauge: Selector.optional(),
  })
  .refine(
    (s) => [s.ratio, s.increase, s.rate, s.quantile, s.gauge].filter((v) => v !== undefined).length === 1,
    { message: 'exactly one of ratio, increase, rate, quantile, gauge' },
  );

/** Where a number comes from: exactly one of prometheus, cloudwatch, scrape. */
const SourceFields = {
  prometheus: z.string().min(1).optional(),
  cloudwatch: CloudWatchSource.optional(),
  scrape: ScrapeSource.optional(),
};

const BoundFields = {
  max: z.number().optional(),
  min: z.number().optional(),
  between: z.tuple([z.number(), z.number()]).optional(),
};

export const Bound = z.strictObject(BoundFields);

function exactlyOneSource(s: { prometheus?: unknown; cloudwatch?: unknown; scrape?: unknown }): boolean {
  return [s.prometheus, s.cloudwatch, s.scrape].filter((v) => v !== undefined).length === 1;
}
function exactlyOneBound(b: { max?: unknown; min?: unknown; between?: unknown }): boolean {
  return [b.max, b.min, b.between].filter((v) => v !== undefined).length === 1;
}

export const Sli = z
  .strictObject({
    name: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, { message: 'an identifier (letters, digits, _)' }),
    description: z.string().optional(),
    ...SourceFields,
    ...BoundFields,
    /** A tighter bound for the steady state (defaults to the SLI's own bound). */
    steady: Bound.optional().describe('A tighter bound for the steady state (defaults to the SLI bound).'),
    /** false: only a steady-state check, not evaluated while the fault is on. */
    during: z
      .boolean()
      .default(true)
      .describe('false: a steady-state check only, not evaluated while the fault is on.'),
  })
  .refine(exactlyOneSource, { message: 'exactly one source: prometheus, cloudwatch or scrape' })
  .refine(exactlyOneBound, { message: 'exactly one bound: max, min or between' });

/** A positive observation that must be seen while the fault is on (e.g. breaker opened). */
export const Expectation = z
  .strictObject({
    name: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, { message: 'an identifier (letters, digits, _)' }),
    description: z.string().optional(),
    ...SourceFields,
    /** Seen when a measurement is ≥ atLeast (and/or ≤ atMost). */
    atLeast: z.number().optional(),
    atMost: z.number().optional(),
    /** Must be seen within this time of the injection. */
    within: Duration.describe('Must be seen within this time of the injection, e.g. 3s.'),
  })
  .refine(exactlyOneSource, { message: 'exactly one source: prometheus, cloudwatch or scrape' })
  .refine((e) => e.atLeast !== undefined || e.atMost !== undefined, { message: 'atLeast or atMost' });

export const AbortRule = z
  .strictObject({
    sli: z.string().min(1),
    above: z.number().optional(),
    below: z.number().optional(),
    for: Duration,
  })
  .refine((r) => (r.above === undefined) !== (r.below === undefined), {
    message: 'exactly one of above, below',
  });

const TagMap = z.record(z.string(), z.string());

export const BlastRadius = z.strictObject({
  maxTargets: z.number().int().positive().default(1).describe('Most resources one target may select.'),
  maxPercent: z
    .number()
    .gt(0)
    .max(100)
    .default(100)
    .describe('Most percent of matching resources one target may select.'),
  maxActionDuration: Duration.prefault('60s').describe(
    'Ceiling for every FIS action duration (default 60s).',
  ),
  maxRunDuration: Duration.prefault('15m').describe(
    'Ceiling for steady state + actions + recovery (default 15m).',
  ),
  requireTags: TagMap.default({}).describe(
    'Tags every FIS target must select by, e.g. Environment: staging-chaos.',
  ),
  /** Tag key → forbidden values. */
  forbidTags: z.record(z.string(), z.array(z.string())).default({ Environment: ['production', 'prod'] }),
  /** Optional dependency-closure veto from a Backstage service catalog. */
  catalog: z
    .strictObject({
      path: z.string().min(1),
      /** Entity names (as in `component:default/redis`) the targets belong to. */
      components: z.array(z.string().min(1)).min(1),
    })
    .optional(),
});

const Window = z.union([
  z.strictObject({ cron: z.string().min(1), duration: Duration, reason: z.string().min(1) }),
  z.strictObject({ from: z.string().min(1), to: z.string().min(1), reason: z.string().min(1) }),
]);

export const IncidentQuery = z
  .strictObject({
    prometheus: z.string().min(1).optional(),
    cloudwatchAlarm: z.string().min(1).optional(),
  })
  .refine((q) => (q.prometheus === undefined) !== (q.cloudwatchAlarm === undefined), {
    message: 'exactly one of prometheus, cloudwatchAlarm',
  });

export const Schedule = z.strictObject({
  timezone: z.string().min(1).default('UTC'),
  allow: z.array(Window).default([]),
  deny: z.array(Window).default([]),
  incidents: IncidentQuery.optional(),
});

const CountQuery = z
  .strictObject({ prometheus: z.string().min(1).optional(), cloudwatch: CloudWatchSource.optional() })
  .refine((q) => (q.prometheus === undefined) !== (q.cloudwatch === undefined), {
    message: 'exactly one of prometheus, cloudwatch',
  });

export const Budget = z.strictObject({
  objective: z.number().gt(0).lt(1),
  window: Duration.prefault('30d'),
  /** Bad events over the window. */
  errors: CountQuery,
  /** All events over the window. */
  total: CountQuery,
  chaosShare: z.number().gt(0).max(1).default(0.1),
  /**
   * The SLI the run's damage is measured from (bad events above the steady-state rate while the fault was
   * on), debited to the chaos ledger after the run: an error ratio or a success ratio.
   */
  damage: z
    .strictObject({
      sli: z.string().min(1),
      kind: z.enum(['error-ratio', 'success-ratio']),
    })
    .optional(),
});

/** The `fis:` section lives in ./fis.ts: FIS's own CreateExperimentTemplate shape, every field. */
export {
  FIS_MAX_PARAMETER_LENGTH,
  FIS_MAX_TARGET_ARNS,
  Fis,
  FisAction,
  FisTarget,
  stopConditionAlarms,
  emptyTargetMode,
} from './fis.js';

/** Inputs of the regional failover model (SPEC §9.2). */
export const Failover = z.strictObject({
  every: z.number().positive(),
  failures: z.number().int().positive(),
  depth: z.enum(['shallow', 'deep']),
  ttl: z.number().positive(),
  capacity: z.enum(['full', 'half', 'zero']),
  replication: z.enum(['async', 'sync']),
  fault: z.enum(['region', 'model']).default('region'),
  minServed: z.number().min(0).max(100).default(70),
  maxFailover: z.number().positive().default(15),
});

export const Hypothesis = z.strictObject({
  interval: Duration.prefault('1s').describe('How often every SLI is measured (default 1s).'),
  minRequests: z
    .number()
    .int()
    .nonnegative()
    .default(0)
    .describe('A window with fewer requests is no-data, never a pass.'),
  /** Request count per window; below minRequests the window is no-data. */
  requests: z
    .strictObject({ ...SourceFields })
    .refine(exactlyOneSource, { message: 'exactly one source: prometheus, cloudwatch or scrape' })
    .optional(),
  slis: z.array(Sli).min(1, { message: 'at least one SLI' }).describe('What must stay within bounds.'),
  expect: z
    .array(Expectation)
    .default([])
    .describe('Positive observations (e.g. breaker opened) that must be seen while the fault is on.'),
  steadyState: z
    .strictObject({ duration: Duration })
    .describe('Measured before injecting; any breach or no-data means not-run.'),
  recovery: z
    .strictObject({ within: Duration })
    .describe('Every SLI back within bounds this soon after the stop.'),
});

/** An environment variable name, as POSIX shells accept it. */
export const ENV_NAME_PATTERN = '^[A-Za-z_][A-Za-z0-9_]*$';

const EnvName = z.string().regex(new RegExp(ENV_NAME_PATTERN), {
  message: 'an environment variable name (letters, digits and _, not starting with a digit)',
});

/**
 * A variable the plan may expand (`${NAME}` in a scrape URL). Its value is a secret — masked in every
 * report and log — unless declared `public: true` (a host name, a port).
 */
export const EnvDeclaration = z.union([
  EnvName,
  z.strictObject({
    name: EnvName,
    public: z.boolean().default(false).describe('true: the value is not a secret and may be shown.'),
  }),
]);

const PlanFields = z.strictObject({
  version: z.literal(1).describe('Plan format version: 1.'),
  id: Slug.describe('Slug naming the check run and the FIS template.'),
  title: z.string().min(1),
  service: z.string().min(1),
  environment: z.string().min(1),
  owner: z.string().min(1),
  description: z.string().optional(),
  hypothesis: Hypothesis,
  abort: z.strictObject({
    rules: z
      .array(AbortRule)
      .describe('Tripwires: {sli, above|below, for}; for = consecutive time over the threshold.'),
    blindAfter: z
      .number()
      .int()
      .positive()
      .default(3)
      .describe('Failed measurements in a row that stop the run as inconclusive.'),
  }),
  blastRadius: BlastRadius.prefault({}),
  schedule: Schedule.prefault({}),
  budget: Budget.optional().describe('The SLO and the share of its error budget experiments may spend.'),
  fis: Fis.describe('The fault, in the FIS experiment template shape.'),
  failover: Failover.optional().describe('Inputs of the regional failover model.'),
  env: z
    .array(EnvDeclaration)
    .default([])
    .describe(
      'Environment variables the plan may expand as ${NAME} (scrape URLs): nothing else is read from the environment. Values are secrets unless public: true.',
    ),
});

/** `${…}` in a string: a well-formed reference has a variable name inside. */
const ENV_REFERENCE = /\$\{([^}]*)\}?/g;

/** The `${NAME}` references of a string; `valid: false` for `${}`, `${1X}` or an unclosed `${`. */
export function envReferences(text: string): { name: string; valid: boolean }[] {
  const out: { name: string; valid: boolean }[] = [];
  for (const m of text.matchAll(ENV_REFERENCE)) {
    const name = m[1] ?? '';
    out.push({ name, valid: m[0].endsWith('}') && new RegExp(ENV_NAME_PATTERN).test(name) });
  }
  return out;
}

/** Where a plan may write `${NAME}`: every scrape URL, with its field path. */
export function scrapeUrlFields(plan: {
  hypothesis: { slis: SourceSpec[]; expect?: SourceSpec[] | undefined; requests?: SourceSpec | undefined };
}): { path: (string | number)[]; url: string }[] {
  const out: { path: (string | number)[]; url: string }[] = [];
  plan.hypothesis.slis.forEach((s, i) => {
    if (s.scrape) out.push({ path: ['hypothesis', 'slis', i, 'scrape', 'url'], url: s.scrape.url });
  });
  (plan.hypothesis.expect ?? []).forEach((e, i) => {
    if (e.scrape) out.push({ path: ['hypothesis', 'expect', i, 'scrape', 'url'], url: e.scrape.url });
  });
  const r = plan.hypothesis.requests;
  if (r?.scrape) out.push({ path: ['hypothesis', 'requests', 'scrape', 'url'], url: r.scrape.url });
  return out;
}

/** The name of an `env:` entry. */
export function envDeclarationName(d: z.output<typeof EnvDeclaration>): string {
  return typeof d === 'string' ? d : d.name;
}

/**
 * The plan: its fields, and the rule that a `${NAME}` may only expand a variable the plan declares in
 * `env:` (SPEC §11), so a plan cannot read the runner's whole environment.
 */
export const Plan = PlanFields.superRefine((plan, ctx) => {
  const declared = new Set(plan.env.map(envDeclarationName));
  for (const { path, url } of scrapeUrlFields(plan)) {
    for (const ref of envReferences(url)) {
      if (!ref.valid) {
        ctx.addIssue({
          code: 'custom',
          path,
          message: `\${NAME} references with a variable name (found \${${ref.name}})`,
        });
      } else if (!declared.has(ref.name)) {
        ctx.addIssue({
          code: 'custom',
          path,
          message: `\${${ref.name}} declared in the top-level env: list (env: [${ref.name}]); a plan expands only the variables it declares`,
        });
      }
    }
  }
});

export type Plan = z.output<typeof Plan>;
export type PlanInput = z.input<typeof Plan>;
export type Sli = z.output<typeof Sli>;
export type Expectation = z.output<typeof Expectation>;
export type AbortRule = z.output<typeof AbortRule>;
export type CloudWatchSource = z.output<typeof CloudWatchSource>;
export type ScrapeSource = z.output<typeof ScrapeSource>;
export type Bound = z.output<typeof Bound>;
export type { FisStopCondition, FisTargetAccount } from './fis.js';
export type Failover = z.output<typeof Failover>;
export type EnvDeclaration = z.output<typeof EnvDeclaration>;

/** The source of a number: exactly one of these is set. */
export interface SourceSpec {
  prometheus?: string | undefined;
  cloudwatch?: CloudWatchSource | undefined;
  scrape?: ScrapeSource | undefined;
}
