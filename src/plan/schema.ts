/**
 * The plan file: one experiment, validated by zod. Endpoints and secrets are deliberately absent
 * (they come from inputs and the environment) so one plan runs against any environment.
 * `schema/plan.schema.json` is generated from this file (`npm run schema`).
 */
import * as z from 'zod/mini';
import {
  DURATION_EXPECTED,
  DURATION_PATTERN,
  MAX_DURATION_MS,
  formatDuration,
  parseDuration,
} from './duration.js';
import { Fis } from './fis.js';
import { describe, meta } from '../files/zod.js';

export { DURATION_EXPECTED } from './duration.js';

// zod/mini (src/files/zod.ts says why): each classic method call becomes its function here, one for one and in
// the same order (`.min(1)` → `.check(z.minLength(1))`, `.default(v)` → `z._default(x, v)`,
// `.describe(t)` → `describe(x, t)`), so the schemas, their issues and schema/plan.schema.json are those
// classic zod built.

/** A duration string (`500ms`, `5s`, `2m`, `1h`, `30d`) parsed to milliseconds; at most a year and a day. */
export const Duration = meta(
  z
    .pipe(
      z.string().check(z.regex(new RegExp(DURATION_PATTERN), { message: DURATION_EXPECTED })),
      z.transform((s: string) => parseDuration(s) ?? NaN),
    )
    .check(
      z.refine((ms: number) => ms <= MAX_DURATION_MS, {
        message: `a duration of at most ${formatDuration(MAX_DURATION_MS)} (a year and a day)`,
      }),
    ),
  { description: 'Duration: a number followed by ms, s, m, h or d (e.g. 5s, 2m), at most 366d.' },
);

/**
 * The longest error-budget window: 90 days. Prometheus and CloudWatch keep that much at the resolutions
 * an SLO is read at (CloudWatch keeps 1-hour data for 455 days, 5-minute data for 63), and SLO windows are
 * 7, 28 or 30 days in practice; a longer one is almost always a unit mistake.
 */
export const MAX_BUDGET_WINDOW_MS = 90 * 86_400_000;

const Slug = z.string().check(
  z.regex(/^[a-z0-9][a-z0-9-]{0,62}$/, {
    message: 'a slug: lowercase letters, digits and dashes, at most 63',
  }),
);

const Dimensions = z.record(z.string(), z.string());

/** A string of at least one character (classic `z.string().min(1)`). */
const nonEmpty = () => z.string().check(z.minLength(1));

/**
 * CloudWatch accepts a metric period of 1, 5, 10, 20 or 30 s (high resolution) or a multiple of 60 s
 * (PutMetricAlarm/GetMetricData `Period`, docs/design/cloudwatch.md#getmetricdata); anything else fails only at run time.
 */
const CloudWatchPeriod = Duration.check(
  z.refine((ms) => [1000, 5000, 10_000, 20_000, 30_000].includes(ms) || (ms > 0 && ms % 60_000 === 0), {
    message: 'a CloudWatch period: 1s, 5s, 10s, 20s, 30s or a multiple of 60s',
  }),
);

/**
 * How long after a period ends its datapoints may still be arriving. Readings cover only periods that
 * ended at least this long before the tick (metrics/cloudwatch/window.ts holds the defaults: 5s for
 * sub-minute periods, 2m for a minute or more).
 */
const IngestionDelay = z.optional(
  describe(
    Duration,
    'How long after a period ends its data may still arrive; only periods that ended at least this long ago are read. Default 5s for periods under a minute, 2m otherwise.',
  ),
);

/** A CloudWatch metric stat query, or a metric-math expression over such queries. */
export const CloudWatchSource = z.union([
  z.strictObject({
    namespace: nonEmpty(),
    metricName: nonEmpty(),
    dimensions: z.optional(Dimensions),
    stat: z._default(nonEmpty(), 'Sum'),
    period: z.prefault(CloudWatchPeriod, '60s'),
    unit: z.optional(z.string()),
    ingestionDelay: IngestionDelay,
  }),
  z.strictObject({
    expression: nonEmpty(),
    metrics: z._default(
      z.record(
        z
          .string()
          .check(z.regex(/^[a-z][a-zA-Z0-9_]*$/, { message: 'a metric-math id (lowercase first letter)' })),
        z.strictObject({
          namespace: nonEmpty(),
          metricName: nonEmpty(),
          dimensions: z.optional(Dimensions),
          stat: z._default(nonEmpty(), 'Sum'),
        }),
      ),
      {},
    ),
    period: z.prefault(CloudWatchPeriod, '60s'),
    ingestionDelay: IngestionDelay,
  }),
]);

/** A selector in PromQL notation, e.g. `http_requests_total{status=~"5.."}`. */
const Selector = nonEmpty();

/** An SLI computed from the difference between two scrapes of a `/metrics` endpoint. */
export const ScrapeSource = z
  .strictObject({
    /** URL of the metrics endpoint; `${VAR}` expands a variable the plan declares in `env:`. */
    url: describe(
      nonEmpty(),
      'URL of the metrics endpoint; ${NAME} expands a variable declared in the top-level env: list.',
    ),
    /** errors / total over the window (counter increases). */
    ratio: z.optional(z.strictObject({ numerator: Selector, denominator: Selector })),
    /** Counter increase over the window. */
    increase: z.optional(Selector),
    /** Counter increase per second over the window. */
    rate: z.optional(Selector),
    /** Quantile of a histogram's bucket increases, as Prometheus's histogram_quantile. */
    quantile: z.optional(
      z.strictObject({ q: z.number().check(z.gte(0)).check(z.lte(1)), histogram: Selector }),
    ),
    /** Current value of a gauge (summed over matching series). */
    gauge: z.optional(Selector),
  })
  .check(
    z.refine(
      (s) => [s.ratio, s.increase, s.rate, s.quantile, s.gauge].filter((v) => v !== undefined).length === 1,
      { message: 'exactly one of ratio, increase, rate, quantile, gauge' },
    ),
  );

/** Where a number comes from: exactly one of prometheus, cloudwatch, scrape. */
const SourceFields = {
  prometheus: z.optional(nonEmpty()),
  cloudwatch: z.optional(CloudWatchSource),
  scrape: z.optional(ScrapeSource),
};

const BoundFields = {
  max: z.optional(z.number()),
  min: z.optional(z.number()),
  between: z.optional(z.tuple([z.number(), z.number()])),
};

export const Bound = z.strictObject(BoundFields);

function exactlyOneSource(s: { prometheus?: unknown; cloudwatch?: unknown; scrape?: unknown }): boolean {
  return [s.prometheus, s.cloudwatch, s.scrape].filter((v) => v !== undefined).length === 1;
}
function exactlyOneBound(b: { max?: unknown; min?: unknown; between?: unknown }): boolean {
  return [b.max, b.min, b.between].filter((v) => v !== undefined).length === 1;
}

/** A name an SLI or an expectation is referred to by. */
const identifier = () =>
  z.string().check(z.regex(/^[A-Za-z_][A-Za-z0-9_]*$/, { message: 'an identifier (letters, digits, _)' }));

/**
 * How many fault readings outside the bound the hypothesis forgives (after `settle`). Strict (no
 * tolerance) when absent. `outside` and `share` both limit the count (the smaller wins); `consecutive`
 * limits how many of those may come in a row.
 */
export const Tolerance = z
  .strictObject({
    outside: describe(
      z.optional(z.number().check(z.int()).check(z.gte(0))),
      'At most this many measurements during the fault (after settle) outside the bound.',
    ),
    share: describe(
      z.optional(z.number().check(z.gte(0)).check(z.lt(1))),
      'At most this share (0 to below 1) of the measurements during the fault outside the bound, rounded down.',
    ),
    consecutive: describe(
      z.optional(z.number().check(z.int()).check(z.gte(1))),
      'Never more than this many measurements outside the bound in a row.',
    ),
  })
  .check(
    z.refine((t) => t.outside !== undefined || t.share !== undefined, {
      message:
        'outside or share: how many measurements may lie outside (consecutive only limits runs of them)',
    }),
  );

/** How long after the injection the fault bound starts to apply. */
const Settle = describe(
  Duration,
  'Readings taken less than this long after the injection are settling: shown, not held to the fault bound (abort rules still apply). Default 0s.',
);

export const Sli = z
  .strictObject({
    name: identifier(),
    description: z.optional(z.string()),
    ...SourceFields,
    ...BoundFields,
    /** A tighter bound for the steady state (defaults to the SLI's own bound). */
    steady: describe(z.optional(Bound), 'A tighter bound for the steady state (defaults to the SLI bound).'),
    /** false: only a steady-state check, not evaluated while the fault is on. */
    during: describe(
      z._default(z.boolean(), true),
      'false: a steady-state check only, not evaluated while the fault is on.',
    ),
    /** Overrides `hypothesis.settle` for this SLI. */
    settle: z.optional(Settle),
    /** Overrides `hypothesis.tolerance` for this SLI. */
    tolerance: z.optional(Tolerance),
  })
  .check(z.refine(exactlyOneSource, { message: 'exactly one source: prometheus, cloudwatch or scrape' }))
  .check(z.refine(exactlyOneBound, { message: 'exactly one bound: max, min or between' }));

/** A positive observation that must be seen while the fault is on (e.g. breaker opened). */
export const Expectation = z
  .strictObject({
    name: identifier(),
    description: z.optional(z.string()),
    ...SourceFields,
    /** Seen when a measurement is ≥ atLeast (and/or ≤ atMost). */
    atLeast: z.optional(z.number()),
    atMost: z.optional(z.number()),
    /** Must be seen within this time of the injection. */
    within: describe(Duration, 'Must be seen within this time of the injection, e.g. 3s.'),
  })
  .check(z.refine(exactlyOneSource, { message: 'exactly one source: prometheus, cloudwatch or scrape' }))
  .check(
    z.refine((e) => e.atLeast !== undefined || e.atMost !== undefined, { message: 'atLeast or atMost' }),
  );

export const AbortRule = z
  .strictObject({
    sli: nonEmpty(),
    above: z.optional(z.number()),
    below: z.optional(z.number()),
    for: Duration,
  })
  .check(
    z.refine((r) => (r.above === undefined) !== (r.below === undefined), {
      message: 'exactly one of above, below',
    }),
  );

/** A matcher as Alertmanager's API v2 `filter` takes it (kept in step with metrics/alertmanager.ts). */
const ALERT_MATCHER = /^\s*[A-Za-z_][A-Za-z0-9_]*\s*(=~|!~|!=|=)\s*"(?:[^"\\]|\\.)*"\s*$/;

/** Alerts the team already runs: a matching one that starts firing during the fault aborts the run. */
export const AbortAlerts = z.strictObject({
  matchers: describe(
    z
      .array(
        z.string().check(
          z.regex(ALERT_MATCHER, {
            message:
              'an Alertmanager matcher: label="value", label!="value", label=~"regex" or label!~"regex"',
          }),
        ),
      )
      .check(z.minLength(1, { message: 'at least one matcher, e.g. severity="critical"' })),
    'Alertmanager matchers an alert must meet, all of them (e.g. severity="critical", service="checkout"). A matching alert that was not firing at injection aborts the run; an Alertmanager that cannot be read counts toward blindness.',
  ),
});

/** The most alarms one DescribeAlarms call names (its AlarmNames member limit). */
export const DESCRIBE_ALARMS_MAX_NAMES = 100;

/** Existing CloudWatch alarms (metric or composite): one that goes to ALARM during the fault aborts the run. */
export const AbortAlarms = z.strictObject({
  names: describe(
    z
      .array(
        z
          .string()
          .check(z.minLength(1))
          .check(z.maxLength(255, { message: 'an alarm name of at most 255 characters' })),
      )
      .check(z.minLength(1, { message: 'at least one alarm name' }))
      .check(z.maxLength(DESCRIBE_ALARMS_MAX_NAMES, { message: 'at most 100 alarm names' })),
    'Names of existing CloudWatch metric or composite alarms. Any of them in ALARM before the start means not-run; one that goes to ALARM during the fault aborts the run.',
  ),
  stopConditions: describe(
    z._default(z.boolean(), false),
    'true: also attach these alarms to the FIS template as stop conditions, so FIS stops the fault itself (FIS allows five stop conditions, the lease and kill-switch alarms included).',
  ),
});

const TagMap = z.record(z.string(), z.string());

export const BlastRadius = z.strictObject({
  maxTargets: describe(
    z._default(z.number().check(z.int()).check(z.gt(0)), 1),
    'Most resources one target may select.',
  ),
  maxPercent: describe(
    z._default(z.number().check(z.gt(0)).check(z.lte(100)), 100),
    'Most percent of matching resources one target may select.',
  ),
  maxActionDuration: describe(
    z.prefault(Duration, '60s'),
    'Ceiling for every FIS action duration (default 60s).',
  ),
  maxRunDuration: describe(
    z.prefault(Duration, '15m'),
    'Ceiling for steady state + actions + recovery (default 15m).',
  ),
  requireTags: describe(
    z._default(TagMap, {}),
    'Tags every FIS target must select by, e.g. Environment: staging-chaos.',
  ),
  /** Tag key → forbidden values. */
  forbidTags: z._default(z.record(z.string(), z.array(z.string())), { Environment: ['production', 'prod'] }),
  /** Optional dependency-closure veto from a Backstage service catalog. */
  catalog: z.optional(
    z.strictObject({
      path: nonEmpty(),
      /** Entity names (as in `component:default/redis`) the targets belong to. */
      components: z.array(nonEmpty()).check(z.minLength(1)),
    }),
  ),
});

const Window = z.union([
  z.strictObject({ cron: nonEmpty(), duration: Duration, reason: nonEmpty() }),
  z.strictObject({ from: nonEmpty(), to: nonEmpty(), reason: nonEmpty() }),
]);

export const IncidentQuery = z
  .strictObject({
    prometheus: z.optional(nonEmpty()),
    cloudwatchAlarm: z.optional(nonEmpty()),
  })
  .check(
    z.refine((q) => (q.prometheus === undefined) !== (q.cloudwatchAlarm === undefined), {
      message: 'exactly one of prometheus, cloudwatchAlarm',
    }),
  );

export const Schedule = z.strictObject({
  timezone: z._default(nonEmpty(), 'UTC'),
  allow: z._default(z.array(Window), []),
  deny: z._default(z.array(Window), []),
  incidents: z.optional(IncidentQuery),
});

const CountQuery = z
  .strictObject({ prometheus: z.optional(nonEmpty()), cloudwatch: z.optional(CloudWatchSource) })
  .check(
    z.refine((q) => (q.prometheus === undefined) !== (q.cloudwatch === undefined), {
      message: 'exactly one of prometheus, cloudwatch',
    }),
  );

/** The default SLO window of a budget written in the plan: 30 days. */
export const DEFAULT_BUDGET_WINDOW_MS = 30 * 86_400_000;

/** A Prometheus label value as a plan names an SLO by it. */
const SloLabel = () => z.string().check(z.minLength(1)).check(z.maxLength(256));

/**
 * Where the error budget is kept when the team already keeps it: the recording rules Sloth or Pyrra
 * generate, read from the run's Prometheus. The store gives the objective, the window and what is left.
 */
export const BudgetFrom = z.union([
  z.strictObject({
    sloth: describe(
      z.strictObject({
        service: describe(SloLabel(), 'The sloth_service label of the SLO.'),
        slo: describe(SloLabel(), 'The sloth_slo label of the SLO.'),
      }),
      "Sloth's series: slo:period_error_budget_remaining:ratio, slo:objective:ratio and slo:time_period:days with these labels.",
    ),
  }),
  z.strictObject({
    pyrra: describe(
      z.strictObject({ slo: describe(SloLabel(), 'The slo label (the SLO name) of the Pyrra objective.') }),
      "Pyrra's series: pyrra_availability, pyrra_objective and pyrra_window with this slo label.",
    ),
  }),
]);

export const Budget = z
  .strictObject({
    from: describe(
      z.optional(BudgetFrom),
      'Read the objective, the window and the budget left from Sloth or Pyrra recording rules instead of writing them here; objective, window and errors are then not written.',
    ),
    objective: z.optional(z.number().check(z.gt(0)).check(z.lt(1))),
    window: describe(
      z.optional(
        Duration.check(
          z.refine((ms: number) => ms > 0 && ms <= MAX_BUDGET_WINDOW_MS, {
            message: 'an SLO window longer than 0 and at most 90d',
          }),
        ),
      ),
      'The SLO window (default 30d); with from, the store gives it.',
    ),
    /** Bad events over the window. */
    errors: z.optional(CountQuery),
    /** All events over the window. */
    total: CountQuery,
    chaosShare: z._default(z.number().check(z.gt(0)).check(z.lte(1)), 0.1),
    /**
     * The SLI the run's damage is measured from (bad events above the steady-state rate while the fault was
     * on), debited to the chaos ledger after the run: an error ratio or a success ratio.
     */
    damage: z.optional(
      z.strictObject({
        sli: nonEmpty(),
        kind: z.enum(['error-ratio', 'success-ratio']),
      }),
    ),
  })
  .check(
    z.superRefine((b, ctx) => {
      if (b.from) {
        for (const k of ['objective', 'window', 'errors'] as const)
          if (b[k] !== undefined)
            ctx.addIssue({
              code: 'custom',
              path: [k],
              message: `no ${k} beside budget.from: the SLO store gives it, and two sources would drift`,
            });
      } else {
        for (const k of ['objective', 'errors'] as const)
          if (b[k] === undefined)
            ctx.addIssue({
              code: 'custom',
              path: [k],
              message: `budget.${k}, or budget.from naming the Sloth or Pyrra SLO that holds the budget`,
            });
      }
    }),
  );

/** A budget's SLO window as the plan writes it (30 days by default); with `from`, the store's decides. */
export function budgetWindowMs(budget: { window?: number | undefined }): number {
  return budget.window ?? DEFAULT_BUDGET_WINDOW_MS;
}

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

/** Inputs of the regional failover model (docs/design/analysis.md#model-failover). */
export const Failover = z.strictObject({
  every: z.number().check(z.gt(0)),
  failures: z.number().check(z.int()).check(z.gt(0)),
  depth: z.enum(['shallow', 'deep']),
  ttl: z.number().check(z.gt(0)),
  capacity: z.enum(['full', 'half', 'zero']),
  replication: z.enum(['async', 'sync']),
  fault: z._default(z.enum(['region', 'model']), 'region'),
  minServed: z._default(z.number().check(z.gte(0)).check(z.lte(100)), 70),
  maxFailover: z._default(z.number().check(z.gt(0)), 15),
});

export const Hypothesis = z.strictObject({
  interval: describe(z.prefault(Duration, '1s'), 'How often every SLI is measured (default 1s).'),
  minRequests: describe(
    z._default(z.number().check(z.int()).check(z.gte(0)), 0),
    'A window with fewer requests is no-data, never a pass.',
  ),
  /** Request count per window; below minRequests the window is no-data. */
  requests: z.optional(
    z
      .strictObject({ ...SourceFields })
      .check(z.refine(exactlyOneSource, { message: 'exactly one source: prometheus, cloudwatch or scrape' })),
  ),
  slis: describe(
    z.array(Sli).check(z.minLength(1, { message: 'at least one SLI' })),
    'What must stay within bounds.',
  ),
  settle: z.optional(Settle),
  tolerance: describe(
    z.optional(Tolerance),
    'How many measurements during the fault (after settle) may lie outside the bound; strict when absent.',
  ),
  expect: describe(
    z._default(z.array(Expectation), []),
    'Positive observations (e.g. breaker opened) that must be seen while the fault is on.',
  ),
  steadyState: describe(
    z.strictObject({ duration: Duration }),
    'Measured before injecting; any breach or no-data means not-run.',
  ),
  recovery: describe(
    z.strictObject({ within: Duration }),
    'Every SLI back within bounds this soon after the stop.',
  ),
});

/** An environment variable name, as POSIX shells accept it. */
export const ENV_NAME_PATTERN = '^[A-Za-z_][A-Za-z0-9_]*$';

const EnvName = z.string().check(
  z.regex(new RegExp(ENV_NAME_PATTERN), {
    message: 'an environment variable name (letters, digits and _, not starting with a digit)',
  }),
);

/**
 * A variable the plan may expand (`${NAME}` in a scrape URL). Its value is a secret — masked in every
 * report and log — unless declared `public: true` (a host name, a port).
 */
export const EnvDeclaration = z.union([
  EnvName,
  z.strictObject({
    name: EnvName,
    public: describe(z._default(z.boolean(), false), 'true: the value is not a secret and may be shown.'),
  }),
]);

/** The notification sinks a plan may ask for by name (docs/notifications.md). */
export const NOTIFY_KINDS = ['cdevents', 'slack', 'pagerduty', 'grafana'] as const;
export type NotifyKind = (typeof NOTIFY_KINDS)[number];

const PlanFields = z.strictObject({
  version: describe(z.literal(1), 'Plan format version: 1.'),
  id: describe(Slug, 'Slug naming the check run and the FIS template.'),
  title: nonEmpty(),
  service: nonEmpty(),
  environment: nonEmpty(),
  owner: nonEmpty(),
  description: z.optional(z.string()),
  hypothesis: Hypothesis,
  abort: z.strictObject({
    rules: describe(
      z.array(AbortRule),
      'Tripwires: {sli, above|below, for}; for = consecutive time over the threshold.',
    ),
    blindAfter: describe(
      z._default(z.number().check(z.int()).check(z.gt(0)), 3),
      'Failed measurements in a row that stop the run as inconclusive.',
    ),
    alerts: describe(z.optional(AbortAlerts), 'Abort when Alertmanager reports a matching alert firing.'),
    alarms: describe(
      z.optional(AbortAlarms),
      'Abort when one of these existing CloudWatch alarms goes to ALARM.',
    ),
  }),
  blastRadius: z.prefault(BlastRadius, {}),
  schedule: z.prefault(Schedule, {}),
  budget: describe(z.optional(Budget), 'The SLO and the share of its error budget experiments may spend.'),
  fis: describe(Fis, 'The fault, in the FIS experiment template shape.'),
  failover: describe(z.optional(Failover), 'Inputs of the regional failover model.'),
  notify: describe(
    z.optional(z.array(z.enum(NOTIFY_KINDS))),
    'The notification sinks this plan is reported to (cdevents, slack, pagerduty, grafana), of those configured: their URLs and credentials come from inputs and the environment, never from the plan.',
  ),
  env: describe(
    z._default(z.array(EnvDeclaration), []),
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
 * `env:` (docs/design/principles.md#security), so a plan cannot read the runner's whole environment.
 */
export const Plan = PlanFields.check(
  z.superRefine((plan, ctx) => {
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
  }),
);

export type Plan = z.output<typeof Plan>;
export type PlanInput = z.input<typeof Plan>;
export type Sli = z.output<typeof Sli>;
export type Expectation = z.output<typeof Expectation>;
export type AbortRule = z.output<typeof AbortRule>;
export type CloudWatchSource = z.output<typeof CloudWatchSource>;
export type ScrapeSource = z.output<typeof ScrapeSource>;
export type Bound = z.output<typeof Bound>;
export type Tolerance = z.output<typeof Tolerance>;
export type { FisStopCondition, FisTargetAccount } from './fis.js';
export type Failover = z.output<typeof Failover>;
export type EnvDeclaration = z.output<typeof EnvDeclaration>;

/** The source of a number: exactly one of these is set. */
export interface SourceSpec {
  prometheus?: string | undefined;
  cloudwatch?: CloudWatchSource | undefined;
  scrape?: ScrapeSource | undefined;
}
