/**
 * `chaos-gate import` from a saved CreateExperimentTemplate input (the `--cli-input-json` file teams keep):
 * the plan's fis: is the template, field for field, chaos-gate's own tags and alarms left out; the plan
 * loads, and its placeholders are refused by name; a file that is not a template is reported with file,
 * line, column, field, value and what is expected.
 */
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { ImportError, planFromTemplate, readTemplateFile } from '../../src/plan/import.js';
import { parsePlan } from '../../src/plan/load.js';
import { staticRefusals } from '../../src/plan/refusals.js';

const INPUT = {
  clientToken: 'abc',
  description: 'Stop one search node',
  roleArn: 'arn:aws:iam::123456789012:role/fis',
  targets: {
    nodes: {
      resourceType: 'aws:ec2:instance',
      resourceTags: { Service: 'search' },
      filters: [{ path: 'State.Name', values: ['running'] }],
      selectionMode: 'PERCENT(25)',
    },
  },
  actions: {
    stop: {
      actionId: 'aws:ec2:stop-instances',
      parameters: { startInstancesAfterDuration: 'PT3M' },
      targets: { Instances: 'nodes' },
    },
  },
  stopConditions: [
    { source: 'aws:cloudwatch:alarm', value: 'arn:aws:cloudwatch:us-east-1:123456789012:alarm:search-5xx' },
    {
      source: 'aws:cloudwatch:alarm',
      value: 'arn:aws:cloudwatch:us-east-1:123456789012:alarm:chaos-gate-kill-switch',
    },
  ],
  tags: { Owner: 'team-search', 'chaos-gate:digest': 'old' },
  experimentOptions: { emptyTargetResolutionMode: 'skip' },
};

describe('import from a CreateExperimentTemplate input', () => {
  const text = JSON.stringify(INPUT, null, 2);
  const { template, fieldPrefix } = readTemplateFile(text, 'input.json');
  const out = planFromTemplate(
    template,
    { label: 'input.json' },
    { file: 'input.json', sourceText: text, fieldPrefix },
  );

  it("keeps every field, without chaos-gate's own tags and alarms", () => {
    const fis = (parseYaml(out.text) as { fis: Record<string, unknown> }).fis;
    expect(fis).toEqual({
      description: INPUT.description,
      roleArn: INPUT.roleArn,
      targets: INPUT.targets,
      actions: INPUT.actions,
      stopConditions: [INPUT.stopConditions[0]],
      tags: { Owner: 'team-search' },
      experimentOptions: INPUT.experimentOptions,
    });
    expect(out.planId).toBe('stop-one-search-node');
  });

  it('writes ceilings the template fits in, so only the placeholders are refused', () => {
    const loaded = parsePlan(out.text, 'plan.yaml');
    expect(loaded.plan.blastRadius).toMatchObject({ maxPercent: 25, maxActionDuration: 180_000 });
    expect(loaded.plan.owner).toBe('team-search');
    expect(staticRefusals(loaded.plan, loaded).map((r) => `${r.rule} ${r.field}`)).toEqual([
      'placeholder service',
      'placeholder environment',
      'placeholder hypothesis.slis[0].prometheus',
      'placeholder abort.rules[0].sli',
    ]);
  });
});

describe('a file that is not a template', () => {
  it('names the unknown field where it is written', () => {
    const text =
      '{\n  "description": "x",\n  "roleArn": "arn:aws:iam::123456789012:role/fis",\n  "acions": {}\n}';
    expect(() => readTemplateFile(text, 'bad.json')).toThrow(ImportError);
    try {
      readTemplateFile(text, 'bad.json');
    } catch (e) {
      expect((e as ImportError).issues[0]).toMatchObject({
        file: 'bad.json',
        line: 4,
        column: 3,
        message: expect.stringMatching(
          /^unknown field acions; expected the fields of an FIS experiment template: description, roleArn, targets, actions/,
        ),
      });
    }
  });

  it('names file, line, field, value and expectation for a value FIS refuses', () => {
    const bad = structuredClone(INPUT);
    bad.targets.nodes.selectionMode = 'SOME(3)';
    const text = JSON.stringify(bad, null, 2);
    const { template, fieldPrefix } = readTemplateFile(text, 'bad.json');
    try {
      planFromTemplate(template, { label: 'bad.json' }, { file: 'bad.json', sourceText: text, fieldPrefix });
      expect.unreachable();
    } catch (e) {
      expect((e as ImportError).issues).toEqual([
        {
          file: 'bad.json',
          line: 19,
          column: 24,
          field: 'targets.nodes.selectionMode',
          value: 'SOME(3)',
          expected: 'ALL, COUNT(n) or PERCENT(n)',
          message: '"SOME(3)" is not valid; expected ALL, COUNT(n) or PERCENT(n)',
        },
      ]);
    }
  });
});
