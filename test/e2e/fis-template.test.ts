/**
 * FIS as teams already use it, against the sandbox: a plan whose fis: section is a whole
 * CreateExperimentTemplate input validates, `plan --resolve` provisions it field for field and lists its
 * targets; `chaos-gate import` writes a plan from a template — by id from FIS and from a saved
 * `get-experiment-template` file — whose fis: round-trips every field, with placeholders `validate` refuses.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CreateExperimentTemplateCommand,
  CreateTargetAccountConfigurationCommand,
  GetExperimentTemplateCommand,
  ListExperimentTemplatesCommand,
  ListTargetAccountConfigurationsCommand,
} from '@aws-sdk/client-fis';
import { parse as parseYaml } from 'yaml';
import { parsePlan } from '../../src/plan/load.js';
import { addFisPatches } from '../../src/injector/fis/patches.js';
import { PLANS, startE2E, type E2E } from './harness.js';

let e2e: E2E;

beforeAll(async () => {
  e2e = await startE2E();
  addFisPatches(e2e.fis);
}, 60_000);

afterAll(async () => {
  await e2e?.close();
}, 30_000);

describe('a plan whose fis: is an FIS template', () => {
  it('validates', async () => {
    const r = await e2e.cli(['validate', path.join(PLANS, 'fis-template.yaml')]).done;
    expect(r.stdout, r.stderr).toMatch(/fis-template\.yaml: valid/);
    expect(r.code).toBe(0);
  });

  it('plan --resolve provisions the template with every field and lists its targets', async () => {
    const r = await e2e.cli(['plan', path.join(PLANS, 'fis-template.yaml'), '--resolve', '--json']).done;
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { targets: { target: string; arn: string }[] };
    expect(out.targets).toEqual([
      expect.objectContaining({
        target: 'redisPrimarySubnet',
        arn: 'arn:aws:ec2:us-east-1:123456789012:subnet/subnet-0ed15000000000001',
      }),
    ]);
    const summaries = (await e2e.fis.send(new ListExperimentTemplatesCommand({}))).experimentTemplates ?? [];
    const id = summaries.find((t) => t.tags?.['chaos-gate:plan'] === 'fis-template')?.id;
    const t = (await e2e.fis.send(new GetExperimentTemplateCommand({ id: id! })))
      .experimentTemplate! as Record<string, unknown>;
    const plan = parseYaml(readFileSync(path.join(PLANS, 'fis-template.yaml'), 'utf8')) as {
      fis: Record<string, unknown>;
    };
    for (const field of [
      'description',
      'roleArn',
      'targets',
      'logConfiguration',
      'experimentOptions',
      'experimentReportConfiguration',
    ])
      expect(t[field], field).toEqual(plan.fis[field]);
    expect(t.actions).toMatchObject(plan.fis.actions as object);
    expect(t.tags).toMatchObject({ ...(plan.fis.tags as object), 'chaos-gate:plan': 'fis-template' });
    const stops = (t.stopConditions as { value: string }[])
      .map((s) => s.value.replace(/^.*:alarm:/, '').replace(/^(chaos-gate-lease-.*)-[0-9a-f]{12}$/, '$1'))
      .sort();
    expect(stops).toEqual(['chaos-gate-kill-switch', 'chaos-gate-lease-fis-template', 'checkout-5xx']);
  });
});

describe('chaos-gate import', () => {
  const full = {
    description: 'Team template: partition Redis',
    roleArn: 'arn:aws:iam::123456789012:role/FisExperimentRole',
    targets: {
      redis: {
        resourceType: 'aws:ec2:subnet',
        resourceTags: { Environment: 'staging-chaos', 'chaos-target': 'redis-pay-primary-01' },
        selectionMode: 'COUNT(1)',
      },
    },
    actions: {
      partition: {
        actionId: 'aws:network:disrupt-connectivity',
        parameters: { duration: 'PT2M', scope: 'all' },
        targets: { Subnets: 'redis' },
      },
    },
    stopConditions: [
      {
        source: 'aws:cloudwatch:alarm',
        value: 'arn:aws:cloudwatch:us-east-1:123456789012:alarm:checkout-5xx',
      },
    ],
    tags: { Name: 'redis-team-template', Service: 'checkout', Environment: 'staging' },
    logConfiguration: {
      s3Configuration: { bucketName: 'fis-logs-bucket', prefix: 'checkout/' },
      logSchemaVersion: 2,
    },
    experimentOptions: { accountTargeting: 'multi-account', emptyTargetResolutionMode: 'skip' },
    experimentReportConfiguration: {
      outputs: { s3Configuration: { bucketName: 'fis-reports', prefix: 'checkout' } },
      preExperimentDuration: 'PT10M',
    },
  };
  const account = {
    accountId: '210987654321',
    roleArn: 'arn:aws:iam::210987654321:role/FisTargetRole',
    description: 'staging',
  };

  function expectRoundTrip(fis: Record<string, unknown>): void {
    for (const field of [
      'description',
      'roleArn',
      'targets',
      'actions',
      'stopConditions',
      'tags',
      'logConfiguration',
      'experimentOptions',
      'experimentReportConfiguration',
    ] as const)
      expect(fis[field], field).toEqual(full[field]);
    expect(fis.targetAccountConfigurations).toEqual([account]);
  }

  it('writes a plan from FIS by template id whose fis: round-trips every field, and validate refuses its placeholders', async () => {
    const created = await e2e.fis.send(new CreateExperimentTemplateCommand(full as never));
    const id = created.experimentTemplate!.id!;
    await e2e.fis.send(new CreateTargetAccountConfigurationCommand({ experimentTemplateId: id, ...account }));
    const out = path.join(e2e.dir, 'imported.yaml');
    const r = await e2e.cli(['import', id, '--out', out]).done;
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(
      /wrote .*imported\.yaml \(plan redis-team-template\); fill in its 3 placeholders/,
    );
    const text = readFileSync(out, 'utf8');
    expectRoundTrip((parseYaml(text) as { fis: Record<string, unknown> }).fis);
    // The plan loads, so only the placeholders stand between it and a run.
    const loaded = parsePlan(text, 'imported.yaml');
    expect(loaded.plan.fis.targetAccountConfigurations).toEqual([account]);
    const v = await e2e.cli(['validate', out, '--json']).done;
    expect(v.code).toBe(2);
    const refusals = (
      JSON.parse(v.stdout) as { refusals: { rule: string; field: string; message: string }[] }
    ).refusals;
    expect(refusals.map((x) => [x.rule, x.field])).toEqual([
      ['placeholder', 'owner'],
      ['placeholder', 'hypothesis.slis[0].prometheus'],
      ['placeholder', 'abort.rules[0].sli'],
    ]);
    expect(refusals[1]?.message).toMatch(
      /placeholder left to fill in: PromQL of the share of failed requests/,
    );
  });

  it('writes the same fis: from a saved aws fis get-experiment-template file, target accounts beside it', async () => {
    const id = (await e2e.fis.send(new CreateExperimentTemplateCommand(full as never))).experimentTemplate!
      .id!;
    await e2e.fis.send(new CreateTargetAccountConfigurationCommand({ experimentTemplateId: id, ...account }));
    // What `aws fis get-experiment-template` and `aws fis list-target-account-configurations` print.
    const got = await e2e.fis.send(new GetExperimentTemplateCommand({ id }));
    const accounts = await e2e.fis.send(
      new ListTargetAccountConfigurationsCommand({ experimentTemplateId: id }),
    );
    const file = path.join(e2e.dir, 'saved-template.json');
    writeFileSync(
      file,
      JSON.stringify(
        {
          experimentTemplate: got.experimentTemplate,
          targetAccountConfigurations: accounts.targetAccountConfigurations,
        },
        null,
        2,
      ),
    );
    const r = await e2e.cli(['import', file, '--id', 'from-file']).done;
    expect(r.code, r.stderr).toBe(0);
    const plan = parseYaml(r.stdout) as { id: string; fis: Record<string, unknown> };
    expect(plan.id).toBe('from-file');
    expectRoundTrip(plan.fis);
  });

  it('names the file, line, field, value and expectation when a saved template is not one FIS takes', async () => {
    const file = path.join(e2e.dir, 'bad-template.json');
    const bad = structuredClone(full) as typeof full;
    bad.actions.partition.parameters.duration = 'PT15S';
    writeFileSync(file, JSON.stringify(bad, null, 2));
    const r = await e2e.cli(['import', file]).done;
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /bad-template\.json:\d+:\d+: actions\.partition\.parameters\.duration: "PT15S" is not valid; expected an ISO-8601 duration from PT1M to PT12H \(FIS limit of aws:network:disrupt-connectivity\)/,
    );
    const missing = await e2e.cli(['import', 'EXTnosuchtemplate']).done;
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/FIS has no experiment template EXTnosuchtemplate/);
  });
});
