/**
 * The plan's `fis:` section is FIS's own CreateExperimentTemplate shape, every field, held against the
 * official Smithy model (`fixtures/aws-models/fis.json`): templates derived from plans validate against
 * the model, and the model's length limits are the plan's. The template digest covers every field, and
 * each action's documented parameter limits refuse a template FIS would refuse, with file, line, field,
 * value and what is expected.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parsePlan, PlanError, formatIssue } from '../../src/plan/load.js';
import { stopConditionAlarms, type Plan } from '../../src/plan/schema.js';
import {
  contentDigest,
  contentOfTemplate,
  templateContent,
  type TemplateContent,
} from '../../src/injector/fis/template.js';
import { AWS_MODELS_DIR, loadModel, validateShape } from '../helpers/smithy.js';

const MODEL = `${AWS_MODELS_DIR}/fis.json`;
const FIXTURE = 'fixtures/plans/fis-template.yaml';
const ALARMS = {
  lease: 'arn:aws:cloudwatch:us-east-1:123456789012:alarm:chaos-gate-lease-x',
  killSwitch: 'arn:aws:cloudwatch:us-east-1:123456789012:alarm:chaos-gate-kill-switch',
};

const text = readFileSync(FIXTURE, 'utf8');
const plan = (t = text): Plan => parsePlan(t, 'plan.yaml').plan;

function issues(t: string): string[] {
  try {
    parsePlan(t, 'plan.yaml');
    return [];
  } catch (error) {
    if (error instanceof PlanError) return error.issues.map(formatIssue);
    throw error;
  }
}

/** The CreateExperimentTemplate input chaos-gate sends for a plan (as injector.ts builds it). */
function createInput(content: TemplateContent): Record<string, unknown> {
  return {
    clientToken: 'cg-test',
    description: content.description,
    roleArn: content.roleArn,
    targets: content.targets,
    actions: content.actions,
    stopConditions: content.stopConditions,
    tags: { ...content.tags, 'chaos-gate:plan': 'x', 'chaos-gate:digest': 'd', 'chaos-gate:service': 's' },
    ...(content.logConfiguration ? { logConfiguration: content.logConfiguration } : {}),
    experimentOptions: {
      ...(content.accountTargeting ? { accountTargeting: content.accountTargeting } : {}),
      ...(content.emptyTargetResolutionMode
        ? { emptyTargetResolutionMode: content.emptyTargetResolutionMode }
        : {}),
    },
    ...(content.experimentReportConfiguration
      ? { experimentReportConfiguration: content.experimentReportConfiguration }
      : {}),
  };
}

describe('fis: as a CreateExperimentTemplate input', () => {
  it('reads every field of the template fixture, stop conditions as {source, value}', () => {
    const p = plan();
    expect(p.fis.stopConditions).toEqual([
      {
        source: 'aws:cloudwatch:alarm',
        value: 'arn:aws:cloudwatch:us-east-1:123456789012:alarm:checkout-5xx',
      },
    ]);
    expect(p.fis.tags).toEqual({ Name: 'checkout-redis-partition', team: 'payments' });
    expect(p.fis.logConfiguration?.logSchemaVersion).toBe(2);
    expect(p.fis.experimentOptions).toEqual({
      accountTargeting: 'single-account',
      emptyTargetResolutionMode: 'fail',
    });
    expect(p.fis.experimentReportConfiguration?.postExperimentDuration).toBe('PT5M');
    expect(p.fis.actions.partitionRedisPrimary?.startAfter).toEqual(['settle']);
  });

  it('keeps an alarm ARN alone as shorthand for {source: aws:cloudwatch:alarm, value}', () => {
    const short = plan(
      text.replace(
        / {2}stopConditions:\n {4}- source: aws:cloudwatch:alarm\n {6}value: (\S+)\n/,
        '  stopConditions:\n    - $1\n',
      ),
    );
    expect(short.fis.stopConditions).toEqual(plan().fis.stopConditions);
    expect(stopConditionAlarms(short.fis)).toEqual([
      'arn:aws:cloudwatch:us-east-1:123456789012:alarm:checkout-5xx',
    ]);
  });

  it('the template derived from every fixture plan validates against the model', () => {
    const model = loadModel(MODEL);
    for (const file of readdirSync('fixtures/plans').filter((f) => f.endsWith('.yaml'))) {
      const p = parsePlan(readFileSync(`fixtures/plans/${file}`, 'utf8'), file).plan;
      expect(
        validateShape(model, 'CreateExperimentTemplateRequest', createInput(templateContent(p, ALARMS))),
        file,
      ).toEqual([]);
      for (const a of p.fis.targetAccountConfigurations ?? [])
        expect(
          validateShape(model, 'CreateTargetAccountConfigurationRequest', {
            ...a,
            experimentTemplateId: 'EXT1',
          }),
          file,
        ).toEqual([]);
    }
  });

  it.each([
    [
      'description',
      'ExperimentTemplateDescription',
      (v: string) => text.replace(/^ {2}description: .*$/m, `  description: ${v}`),
    ],
    ['tags.team', 'TagKey', (v: string) => text.replace('    team: payments', `    ${v}: payments`)],
    ['tags.team value', 'TagValue', (v: string) => text.replace('    team: payments', `    team: ${v}`)],
    [
      'actions.settle.description',
      'ExperimentTemplateActionDescription',
      (v: string) => text.replace('let the dashboards settle before the fault', v),
    ],
    [
      'experimentReportConfiguration prefix',
      'ReportConfigurationS3OutputPrefix',
      (v: string) => text.replace('        prefix: checkout/', `        prefix: ${v}`),
    ],
    [
      'log bucket',
      'S3BucketName',
      (v: string) => text.replace('bucketName: payments-fis-reports', `bucketName: ${v}`),
    ],
  ])('takes the model length limit of %s (%s) as its own', (_field, shape, put) => {
    const traits = loadModel(MODEL).shapes[`com.amazonaws.fis#${shape}`]?.traits as Record<
      string,
      { max: number }
    >;
    const max = traits['smithy.api#length']!.max;
    expect(issues(put('x'.repeat(max)))).toEqual([]);
    const over = issues(put('x'.repeat(max + 1)));
    expect(over).toHaveLength(1);
    expect(over[0]).toMatch(new RegExp(`is not valid; expected .*${max} characters`));
  });

  it('refuses what FIS refuses in the shape: reserved tag keys, a stop condition source FIS lacks, none beside alarms', () => {
    expect(issues(text.replace('    team: payments', '    aws:team: payments'))[0]).toMatch(
      /fis\.tags\["aws:team"\]|not starting with aws:/,
    );
    expect(
      issues(text.replace('    - source: aws:cloudwatch:alarm', '    - source: aws:sns:topic'))[0],
    ).toMatch(
      /fis\.stopConditions\[0\]\.source: "aws:sns:topic" is not valid; expected aws:cloudwatch:alarm or none/,
    );
    expect(issues(text.replace('  stopConditions:\n', '  stopConditions:\n    - source: none\n'))[0]).toMatch(
      /fis\.stopConditions: .* either \{source: none\} alone or alarm stop conditions/,
    );
  });
});

describe('multi-account in the plan', () => {
  const multi = readFileSync('fixtures/plans/multi-account-partition.yaml', 'utf8');

  it('reads the target account configurations of a multi-account plan', () => {
    expect(plan(multi).fis.targetAccountConfigurations).toEqual([
      {
        accountId: '210987654321',
        roleArn: 'arn:aws:iam::210987654321:role/chaos-gate-fis-target',
        description: 'staging',
      },
    ]);
  });

  it('refuses multi-account without target accounts, target accounts without multi-account, and a role in another account', () => {
    expect(
      issues(multi.replace(/ {2}targetAccountConfigurations:[\s\S]*?description: staging\n/, ''))[0],
    ).toMatch(/fis\.targetAccountConfigurations: .*at least one target account/);
    expect(
      issues(multi.replace('    accountTargeting: multi-account', '    accountTargeting: single-account'))[0],
    ).toMatch(/experimentOptions\.accountTargeting: multi-account/);
    expect(
      issues(multi.replace('arn:aws:iam::210987654321:role', 'arn:aws:iam::111111111111:role'))[0],
    ).toMatch(
      /plan\.yaml:\d+:\d+: fis\.targetAccountConfigurations\[0\]\.roleArn: .*a role in account 210987654321/,
    );
  });
});

describe('documented action parameter limits', () => {
  it('refuses a PT15S disrupt-connectivity partition naming file, line, field, value and the limit', () => {
    const bad = text.replace(
      '        duration: PT1M\n        scope: all',
      '        duration: PT15S\n        scope: all',
    );
    expect(issues(bad)).toEqual([
      'plan.yaml:69:19: fis.actions.partitionRedisPrimary.parameters.duration: "PT15S" is not valid; expected an ISO-8601 duration from PT1M to PT12H (FIS limit of aws:network:disrupt-connectivity)',
    ]);
  });

  it('refuses a missing required parameter, an unknown one, and a target key the action does not take', () => {
    const pods = readFileSync('fixtures/plans/eks-pod-network-latency.yaml', 'utf8');
    expect(issues(pods.replace('        kubernetesServiceAccount: fis-experiment\n', ''))[0]).toMatch(
      /fis\.actions\.slowOnePod\.parameters\.kubernetesServiceAccount: .*which aws:eks:pod-network-latency requires/,
    );
    expect(issues(pods.replace("        delayMilliseconds: '100'", "        delayMs: '100'"))[0]).toMatch(
      /parameters\.delayMs: .*a parameter of aws:eks:pod-network-latency: /,
    );
    expect(
      issues(pods.replace('        Pods: canaryPods', '        Instances: canaryPods')).join('\n'),
    ).toMatch(/targets\.Instances: .*the target key Pods/);
  });
});

describe('the template digest covers every field', () => {
  const base = plan();
  const digest = (p: Plan) => contentDigest(templateContent(p, ALARMS));

  it.each([
    ['description', (p: Plan) => void (p.fis.description = 'other')],
    ['roleArn', (p: Plan) => void (p.fis.roleArn = 'arn:aws:iam::123456789012:role/other')],
    ['targets', (p: Plan) => void (p.fis.targets.redisPrimarySubnet!.selectionMode = 'COUNT(2)')],
    ['actions startAfter', (p: Plan) => void (p.fis.actions.partitionRedisPrimary!.startAfter = [])],
    ['stopConditions', (p: Plan) => void (p.fis.stopConditions = [])],
    ['tags', (p: Plan) => void (p.fis.tags = { team: 'other' })],
    ['logConfiguration', (p: Plan) => void (p.fis.logConfiguration!.logSchemaVersion = 1)],
    [
      'experimentOptions',
      (p: Plan) => void (p.fis.experimentOptions = { emptyTargetResolutionMode: 'skip' }),
    ],
    [
      'experimentReportConfiguration',
      (p: Plan) => void (p.fis.experimentReportConfiguration!.preExperimentDuration = 'PT1M'),
    ],
    [
      'targetAccountConfigurations',
      (p: Plan) =>
        void (
          (p.fis.experimentOptions = { accountTargeting: 'multi-account' }),
          (p.fis.targetAccountConfigurations = [
            { accountId: '210987654321', roleArn: 'arn:aws:iam::210987654321:role/r' },
          ])
        ),
    ],
  ])('a change of %s changes the digest', (_field, change) => {
    const changed = structuredClone(base);
    change(changed);
    expect(digest(changed)).not.toBe(digest(base));
  });

  it('reading the template back as FIS returns it gives the same digest (defaults and chaos-gate tags aside)', () => {
    const content = templateContent(base, ALARMS);
    const asFisReturnsIt = contentOfTemplate({
      ...createInput(content),
      tags: { ...content.tags, 'chaos-gate:plan': 'x', 'chaos-gate:digest': 'old' },
      experimentOptions: { accountTargeting: 'single-account', emptyTargetResolutionMode: 'fail' },
    } as Parameters<typeof contentOfTemplate>[0]);
    expect(contentDigest(asFisReturnsIt)).toBe(contentDigest(content));
  });
});
