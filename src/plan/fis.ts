/**
 * The plan's `fis:` section: FIS's own CreateExperimentTemplate input, every field, so an existing
 * template is used as it is (`chaos-gate import` writes one from a template). Lengths, patterns and enums
 * are those of the official Smithy model (`fixtures/aws-models/fis.json`, shapes named beside each field);
 * `test/plan/fis-schema.test.ts` holds the schema against the model. Two additions that are not template
 * fields: `targetAccountConfigurations` (FIS keeps them beside the template, one API call each) and the
 * shorthands kept from earlier plan versions (`stopConditions` as alarm ARNs, a top-level
 * `emptyTargetResolutionMode`).
 */
import * as z from 'zod/mini';
import { actionLimitProblems } from './fis-actions.js';
import { meta } from '../files/zod.js';

// zod/mini, one function per classic method call and in the same order (src/files/zod.ts and ./schema.ts say why).

/** ARNs FIS accepts in one target's `resourceArns` (M-FIS `ResourceArnList` max 5, docs/design/fis.md#field-limits). */
export const FIS_MAX_TARGET_ARNS = 5;
/** Longest action parameter value FIS accepts (M-FIS `ExperimentTemplateActionParameter`, docs/design/fis.md#field-limits). */
export const FIS_MAX_PARAMETER_LENGTH = 1024;
/** Tags per resource (M-FIS `TagMap` length max 50). */
export const FIS_MAX_TAGS = 50;
/** Target account configurations per experiment template (FIS quotas page, "Target account configurations per experiment template": 10). */
export const FIS_MAX_TARGET_ACCOUNTS = 10;
/** The source of a CloudWatch-alarm stop condition, and the one meaning "no stop condition" (docs/design/fis.md#stop-conditions). */
export const ALARM_SOURCE = 'aws:cloudwatch:alarm';
export const NO_STOP_CONDITION = 'none';

/** A string of `min`–`max` characters (code points, as the model counts them) matching `pattern`. */
function modelString(shape: string, min: number, max: number, pattern?: RegExp, what?: string) {
  const expected = `${what ?? 'a string'} of ${min === max ? min : `${min}–${max}`} characters (FIS ${shape})`;
  return meta(
    z.string().check(
      z.refine((s) => {
        const n = [...s].length;
        return n >= min && n <= max && (pattern === undefined || pattern.test(s));
      }, expected),
    ),
    { description: expected },
  );
}
const NO_SPACE = /^\S+$/u;
const ANY = /^[\s\S]+$/u;

/** A map key's constraint: what is expected of it, or undefined when it is fine. */
type KeyRule = (key: string) => string | undefined;

function keyRule(shape: string, min: number, max: number, pattern: RegExp, what: string): KeyRule {
  return (k) => {
    const n = [...k].length;
    return n >= min && n <= max && pattern.test(k)
      ? undefined
      : `${what} of ${min}–${max} characters (FIS ${shape})`;
  };
}

/**
 * A map whose keys the model constrains. Keys are checked here rather than by a key schema so that a bad
 * key is reported at its own field path with what was expected of it.
 */
function keyedRecord<V extends z.ZodMiniType>(rules: KeyRule[], value: V) {
  return z.record(z.string(), value).check(
    z.superRefine((record, ctx) => {
      for (const key of Object.keys(record))
        for (const rule of rules) {
          const expected = rule(key);
          if (expected) {
            ctx.addIssue({ code: 'custom', path: [key], message: `its key to be ${expected}` });
            break;
          }
        }
    }),
  );
}

const TargetName = modelString('ExperimentTemplateTargetName', 1, 64, NO_SPACE, 'a name without spaces');
const ActionName = modelString('ExperimentTemplateActionName', 1, 64, NO_SPACE, 'a name without spaces');
const TARGET_NAME_KEY = keyRule('ExperimentTemplateTargetName', 1, 64, NO_SPACE, 'a name without spaces');
const ACTION_NAME_KEY = keyRule('ExperimentTemplateActionName', 1, 64, NO_SPACE, 'a name without spaces');
const RoleArn = z
  .string()
  .check(z.regex(/^arn:aws[a-z-]*:iam::\d{12}:role\/\S+$/, { message: 'an IAM role ARN' }))
  .check(z.maxLength(2048, { message: 'an IAM role ARN of at most 2048 characters (FIS RoleArn)' }));
const TAG_KEY: KeyRule = keyRule('TagKey', 1, 128, ANY, 'a tag key');
const NOT_AWS: KeyRule = (k) =>
  k.startsWith('aws:') ? 'a tag key not starting with aws: (reserved by AWS)' : undefined;
const NOT_OURS: KeyRule = (k) =>
  k.startsWith('chaos-gate:')
    ? 'a tag key not starting with chaos-gate: (chaos-gate writes those itself)'
    : undefined;
const TagValue = z
  .string()
  .check(z.maxLength(256, { message: 'a tag value of at most 256 characters (FIS TagValue)' }));
const Tags = keyedRecord([TAG_KEY, NOT_AWS], TagValue).check(
  z.refine((t) => Object.keys(t).length <= FIS_MAX_TAGS, `at most ${FIS_MAX_TAGS} tags (FIS TagMap)`),
);
/** The template's own tags: `chaos-gate:*` keys are chaos-gate's bookkeeping and cannot be set by a plan. */
const TemplateTags = keyedRecord([TAG_KEY, NOT_AWS, NOT_OURS], TagValue).check(
  z.refine(
    (t) => Object.keys(t).length <= FIS_MAX_TAGS - 3,
    `at most ${FIS_MAX_TAGS - 3} tags (FIS allows ${FIS_MAX_TAGS}; chaos-gate adds 3)`,
  ),
);

/** A target (M-FIS `CreateExperimentTemplateTargetInput`). */
export const FisTarget = z
  .strictObject({
    resourceType: modelString('TargetResourceTypeId', 1, 128, NO_SPACE, 'an FIS resource type'),
    resourceArns: z.optional(
      z.array(modelString('ResourceArn', 20, 2048, NO_SPACE, 'an ARN')).check(
        z.maxLength(FIS_MAX_TARGET_ARNS, {
          message: `at most ${FIS_MAX_TARGET_ARNS} ARNs (FIS limit per target)`,
        }),
      ),
    ),
    resourceTags: z.optional(Tags),
    filters: z.optional(
      z.array(
        z.strictObject({
          path: modelString('ExperimentTemplateTargetFilterPath', 1, 256, NO_SPACE, 'an attribute path'),
          values: z.array(modelString('ExperimentTemplateTargetFilterValue', 1, 128, NO_SPACE, 'a value')),
        }),
      ),
    ),
    selectionMode: z.string().check(
      z.regex(/^(ALL|COUNT\(\d+\)|PERCENT\(\d+\))$/, {
        message: 'ALL, COUNT(n) or PERCENT(n)',
      }),
    ),
    parameters: z.optional(
      keyedRecord(
        [keyRule('ExperimentTemplateTargetParameterName', 1, 64, NO_SPACE, 'a parameter name')],
        modelString(
          'ExperimentTemplateTargetParameterValue',
          1,
          1024,
          /^[\p{L}\p{Z}\p{N}_.:/=+\-@]+$/u,
          'letters, digits, spaces and _.:/=+-@',
        ),
      ),
    ),
  })
  .check(
    z.refine((t) => t.resourceArns === undefined || t.resourceTags === undefined, {
      message: 'resourceArns or resourceTags, not both (FIS rejects a target with both)',
    }),
  );

/** FIS rejects whitespace anywhere in an action parameter value, so JSON parameters must be minified. */
const FisActionParameter = z
  .string()
  .check(
    z.regex(/^\S+$/, { message: 'a value without spaces (FIS rejects whitespace; minify JSON parameters)' }),
  )
  .check(
    z.maxLength(FIS_MAX_PARAMETER_LENGTH, {
      message: `at most ${FIS_MAX_PARAMETER_LENGTH} characters (FIS limit)`,
    }),
  );

/** An action (M-FIS `CreateExperimentTemplateActionInput`), checked against its documented limits. */
export const FisAction = z
  .strictObject({
    actionId: modelString('ActionId', 1, 128, NO_SPACE, 'an FIS action id'),
    description: z.optional(modelString('ExperimentTemplateActionDescription', 1, 512, ANY)),
    parameters: z.optional(
      keyedRecord(
        [keyRule('ExperimentTemplateActionParameterName', 1, 64, NO_SPACE, 'a parameter name')],
        FisActionParameter,
      ),
    ),
    targets: z.optional(
      keyedRecord(
        [keyRule('ExperimentTemplateActionTargetName', 1, 64, NO_SPACE, 'a target key')],
        TargetName,
      ),
    ),
    startAfter: z.optional(z.array(ActionName)),
  })
  .check(
    z.superRefine((action, ctx) => {
      const malformed = (name: string | number | undefined) => {
        const v = typeof name === 'string' ? action.parameters?.[name] : undefined;
        return v !== undefined && !FisActionParameter.safeParse(v).success;
      };
      for (const p of actionLimitProblems(action)) {
        // A value FIS rejects outright (spaces, too long) is reported once, by its own rule.
        if (p.path[0] === 'parameters' && malformed(p.path[1])) continue;
        ctx.addIssue({ code: 'custom', path: p.path, message: p.expected });
      }
    }),
  );

/** A stop condition as FIS takes it (M-FIS `CreateExperimentTemplateStopConditionInput`). */
export const FisStopCondition = z
  .strictObject({
    source: modelString('StopConditionSource', 1, 64, NO_SPACE, 'aws:cloudwatch:alarm or none'),
    value: z.optional(modelString('StopConditionValue', 20, 2048, ANY, 'a CloudWatch alarm ARN')),
  })
  .check(
    z.superRefine((s, ctx) => {
      if (s.source === ALARM_SOURCE) {
        if (s.value === undefined || !/^arn:aws[a-z-]*:cloudwatch:[a-z0-9-]+:\d{12}:alarm:.+$/.test(s.value))
          ctx.addIssue({
            code: 'custom',
            path: ['value'],
            message: 'a CloudWatch alarm ARN (FIS: required for aws:cloudwatch:alarm)',
          });
      } else if (s.source === NO_STOP_CONDITION) {
        if (s.value !== undefined)
          ctx.addIssue({ code: 'custom', path: ['value'], message: 'no value (source none takes none)' });
      } else {
        ctx.addIssue({
          code: 'custom',
          path: ['source'],
          message: `${ALARM_SOURCE} or ${NO_STOP_CONDITION} (the stop condition sources FIS has)`,
        });
      }
    }),
  );

/** `arn:…:alarm:x` is shorthand for `{source: aws:cloudwatch:alarm, value: arn:…:alarm:x}`. */
const StopConditionShorthand = z.pipe(
  z.string().check(
    z.regex(/^arn:aws[a-z-]*:cloudwatch:[a-z0-9-]+:\d{12}:alarm:.+$/, {
      message: 'a CloudWatch alarm ARN, or {source, value}',
    }),
  ),
  z.transform((value: string) => ({ source: ALARM_SOURCE, value })),
);

/** Where FIS writes the experiment log (M-FIS `CreateExperimentTemplateLogConfigurationInput`). */
export const FisLogConfiguration = z
  .strictObject({
    logSchemaVersion: z
      .number()
      .check(z.int())
      .check(z.gte(1, { message: 'a log schema version: 1 or 2' })),
    cloudWatchLogsConfiguration: z.optional(
      z.strictObject({
        logGroupArn: modelString('CloudWatchLogGroupArn', 20, 2048, NO_SPACE, 'a log group ARN'),
      }),
    ),
    s3Configuration: z.optional(
      z.strictObject({
        bucketName: modelString('S3BucketName', 3, 63, NO_SPACE, 'a bucket name'),
        prefix: z.optional(modelString('S3ObjectKey', 1, 700, ANY)),
      }),
    ),
  })
  .check(
    z.refine((l) => l.cloudWatchLogsConfiguration !== undefined || l.s3Configuration !== undefined, {
      message: 'cloudWatchLogsConfiguration or s3Configuration (a log needs somewhere to go)',
    }),
  );

/** Template options (M-FIS `CreateExperimentTemplateExperimentOptionsInput`). */
export const FisExperimentOptions = z.strictObject({
  accountTargeting: z.optional(z.enum(['single-account', 'multi-account'])),
  emptyTargetResolutionMode: z.optional(z.enum(['fail', 'skip'])),
});

const ReportDuration = modelString(
  'ReportConfigurationDuration',
  1,
  32,
  NO_SPACE,
  'an ISO-8601 duration such as PT20M',
);

/** The experiment report (M-FIS `CreateExperimentTemplateReportConfigurationInput`). */
export const FisReportConfiguration = z.strictObject({
  outputs: z.optional(
    z.strictObject({
      s3Configuration: z.optional(
        z.strictObject({
          bucketName: modelString('S3BucketName', 3, 63, NO_SPACE, 'a bucket name'),
          prefix: z.optional(
            modelString('ReportConfigurationS3OutputPrefix', 1, 256, NO_SPACE, 'a key prefix'),
          ),
        }),
      ),
    }),
  ),
  dataSources: z.optional(
    z.strictObject({
      cloudWatchDashboards: z.optional(
        z.array(
          z.strictObject({
            dashboardIdentifier: modelString(
              'ReportConfigurationCloudWatchDashboardIdentifier',
              1,
              512,
              NO_SPACE,
              'a dashboard ARN',
            ),
          }),
        ),
      ),
    }),
  ),
  preExperimentDuration: z.optional(ReportDuration),
  postExperimentDuration: z.optional(ReportDuration),
});

/** One account a multi-account experiment reaches (M-FIS `CreateTargetAccountConfigurationRequest`). */
export const FisTargetAccount = z.strictObject({
  accountId: z
    .string()
    .check(z.regex(/^\d{12}$/, { message: 'a 12-digit AWS account id (quote it in YAML)' })),
  roleArn: RoleArn,
  description: z.optional(
    z
      .string()
      .check(
        z.maxLength(512, { message: 'at most 512 characters (FIS TargetAccountConfigurationDescription)' }),
      ),
  ),
});

/** The `fis:` section. */
export const Fis = z
  .strictObject({
    description: z.optional(modelString('ExperimentTemplateDescription', 1, 512, ANY)),
    roleArn: RoleArn,
    targets: keyedRecord([TARGET_NAME_KEY], FisTarget),
    actions: keyedRecord([ACTION_NAME_KEY], FisAction),
    /** FIS's `{source, value}` list; an alarm ARN alone is shorthand. chaos-gate adds its lease and kill-switch alarms. */
    stopConditions: z._default(z.array(z.union([StopConditionShorthand, FisStopCondition])), []),
    tags: z.optional(TemplateTags),
    logConfiguration: z.optional(FisLogConfiguration),
    experimentOptions: z.optional(FisExperimentOptions),
    experimentReportConfiguration: z.optional(FisReportConfiguration),
    /** Shorthand for `experimentOptions.emptyTargetResolutionMode` (earlier plan versions). */
    emptyTargetResolutionMode: z.optional(z.enum(['fail', 'skip'])),
    /** The accounts of a multi-account experiment: FIS keeps them beside the template. */
    targetAccountConfigurations: z.optional(z.array(FisTargetAccount)),
  })
  .check(
    z.superRefine((fis, ctx) => {
      if (Object.keys(fis.actions).length === 0)
        ctx.addIssue({
          code: 'custom',
          path: ['actions'],
          message: 'at least one action (FIS rejects a template without)',
        });
      const shorthand = fis.emptyTargetResolutionMode;
      const option = fis.experimentOptions?.emptyTargetResolutionMode;
      if (shorthand !== undefined && option !== undefined && shorthand !== option)
        ctx.addIssue({
          code: 'custom',
          path: ['emptyTargetResolutionMode'],
          message: `the same value as experimentOptions.emptyTargetResolutionMode (${option}), or only one of the two`,
        });
      const multi = fis.experimentOptions?.accountTargeting === 'multi-account';
      const accounts = fis.targetAccountConfigurations ?? [];
      if (multi && accounts.length === 0)
        ctx.addIssue({
          code: 'custom',
          path: ['targetAccountConfigurations'],
          message:
            'at least one target account (accountTargeting multi-account needs one per account to reach)',
        });
      if (!multi && accounts.length > 0)
        ctx.addIssue({
          code: 'custom',
          path: ['targetAccountConfigurations'],
          message:
            'experimentOptions.accountTargeting: multi-account (FIS takes target accounts only for multi-account templates)',
        });
      if (accounts.length > FIS_MAX_TARGET_ACCOUNTS)
        ctx.addIssue({
          code: 'custom',
          path: ['targetAccountConfigurations'],
          message: `at most ${FIS_MAX_TARGET_ACCOUNTS} target accounts (FIS quota per template)`,
        });
      const seen = new Set<string>();
      accounts.forEach((a, i) => {
        if (seen.has(a.accountId))
          ctx.addIssue({
            code: 'custom',
            path: ['targetAccountConfigurations', i, 'accountId'],
            message: 'each account once',
          });
        seen.add(a.accountId);
        const roleAccount = a.roleArn.split(':')[4];
        if (roleAccount !== a.accountId)
          ctx.addIssue({
            code: 'custom',
            path: ['targetAccountConfigurations', i, 'roleArn'],
            message: `a role in account ${a.accountId} (FIS assumes it there; this one is in ${roleAccount})`,
          });
      });
      const none = fis.stopConditions.some((s) => s.source === NO_STOP_CONDITION);
      if (none && fis.stopConditions.length > 1)
        ctx.addIssue({
          code: 'custom',
          path: ['stopConditions'],
          message: 'either {source: none} alone or alarm stop conditions (FIS takes none only on its own)',
        });
    }),
  );

export type Fis = z.output<typeof Fis>;
export type FisTarget = z.output<typeof FisTarget>;
export type FisAction = z.output<typeof FisAction>;
export type FisStopCondition = z.output<typeof FisStopCondition>;
export type FisTargetAccount = z.output<typeof FisTargetAccount>;

/** The alarm ARNs among a plan's stop conditions. */
export function stopConditionAlarms(fis: Pick<Fis, 'stopConditions'>): string[] {
  return fis.stopConditions.flatMap((s) => (s.source === ALARM_SOURCE && s.value ? [s.value] : []));
}

/** The empty-target mode the plan asks for, from either spelling; undefined means FIS's default (fail). */
export function emptyTargetMode(
  fis: Pick<Fis, 'emptyTargetResolutionMode' | 'experimentOptions'>,
): 'fail' | 'skip' | undefined {
  return fis.experimentOptions?.emptyTargetResolutionMode ?? fis.emptyTargetResolutionMode;
}
