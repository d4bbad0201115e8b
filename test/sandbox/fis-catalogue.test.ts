/**
 * Every action of the FIS actions reference rehearses on the sandbox: for each one, a template built
 * from the reference's own data (its target key and resource type, a valid value for each required
 * parameter) is accepted by CreateExperimentTemplate, resolves its target in a dry run (actionsMode
 * skip-all: resolved, nothing run) and runs to `completed`, switching on the canary fault its effect
 * names where the effect reaches the canary. One sandbox process, every action side by side (FIS lets
 * five experiments run at once per account), durations scaled down to milliseconds.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CreateExperimentTemplateCommand,
  ListExperimentResolvedTargetsCommand,
  StartExperimentCommand,
  type CreateExperimentTemplateCommandInput,
} from '@aws-sdk/client-fis';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { FIS_REFERENCE, type ParameterRule, type ReferenceAction } from '../../src/fis-reference/actions.js';
import { ACTION_CATALOG, type ActionEffect } from '../../src/sandbox/fis/catalog.js';
import { cliArgs } from '../helpers/cli.js';
import { startSandboxProcess, type RunningSandbox } from '../helpers/sandbox.js';
import { recordingFis, waitForExperiment, type RecordingFis } from './fis-client.js';

const ROLE = 'arn:aws:iam::123456789012:role/FisExperimentRole';
/** FIS runs at most five experiments at once per account and Region (Service Quotas L-F5FCA485). */
const AT_ONCE = 5;

interface Resource {
  arn: string;
  resourceType: string;
  role: 'app' | 'dependency' | 'none';
  tags: Record<string, string>;
}
interface ActionRecord {
  actionId: string;
  targets: string[];
  endedAs: string | null;
  canaryFault: string | null;
}

/** The canary fault kinds each effect may switch on when its target is the canary's or its dependency's. */
const FAULT_OF: Record<ActionEffect, readonly string[]> = {
  partition: ['partition', 'outage'],
  'stop-compute': ['error-burst'],
  failover: ['error-burst'],
  'cpu-stress': ['cpu-stress'],
  latency: ['latency'],
  'packet-loss': ['latency'],
  errors: ['errors'],
  'io-pause': ['partition', 'outage'],
  'custom-resource': [],
  'control-plane': [],
  wait: [],
  'assert-alarm': [],
};

let sandbox: RunningSandbox;
let fis: RecordingFis;
let dryFis: RecordingFis;
let inventory: Resource[];
const outcomes = new Map<string, Promise<Outcome>>();

interface Outcome {
  target: Resource | undefined;
  dryStatus: string | undefined;
  dryActionStatus: string | undefined;
  resolved: string[];
  dryActions: ActionRecord[];
  runStatus: string | undefined;
  runActions: ActionRecord[];
}

beforeAll(async () => {
  sandbox = await startSandboxProcess({
    args: ['--no-load'],
    // PT1M × 0.002 = 120 ms; the longest minimum (ten minutes, Direct Connect) is 1.2 s.
    config: { fis: { initiatingMs: 20, stoppingMs: 20, durationScale: 0.002, stopConditionPollMs: 100 } },
  });
  fis = recordingFis(sandbox.urls.aws);
  dryFis = recordingFis(sandbox.urls.aws);
  dryFis.patch.experimentOptions = { actionsMode: 'skip-all' };
  inventory = (await sandbox.admin.get<{ targets: Resource[] }>('/targets')).targets;
  // Every action's dry run and run, five experiments at a time; each test below reads its own.
  const queue = [...FIS_REFERENCE];
  const workers = Array.from({ length: AT_ONCE }, async () => {
    for (let a = queue.shift(); a; a = queue.shift()) {
      const outcome = rehearse(a);
      outcomes.set(a.id, outcome);
      await outcome.catch(() => undefined);
    }
  });
  await Promise.all(workers);
}, 60_000);

const ROOT = path.resolve(import.meta.dirname, '../..');
const dir = mkdtempSync(path.join(tmpdir(), 'fis-catalogue-'));

afterAll(async () => {
  await sandbox?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** A value the reference's rule accepts, at the end of the range that shows the fault most plainly. */
function sample(rule: ParameterRule): string {
  switch (rule.kind) {
    case 'duration':
      return `PT${rule.minMs / 1000}S`;
    case 'integer':
      return String(rule.max ?? rule.min);
    case 'number':
      return String(rule.max);
    case 'enum':
      return rule.values[0]!;
    case 'boolean':
      return 'false';
    case 'json':
      return '{}';
    case 'text':
      return 'sample';
  }
}

/** The canary's resource of the action's type: its own, else its dependency, else any. */
function targetFor(a: ReferenceAction): Resource | undefined {
  const ofType = inventory.filter((r) => r.resourceType === a.target?.resourceType);
  return ofType.find((r) => r.role === 'app') ?? ofType.find((r) => r.role === 'dependency') ?? ofType[0];
}

function templateFor(a: ReferenceAction, target: Resource | undefined): CreateExperimentTemplateCommandInput {
  const parameters = Object.fromEntries(
    Object.entries(a.parameters)
      .filter(([, p]) => p.required)
      .map(([name, p]) => [name, sample(p.rule)]),
  );
  return {
    description: `rehearse ${a.id}`,
    roleArn: ROLE,
    stopConditions: [{ source: 'none' }],
    targets:
      a.target && target
        ? {
            t: {
              resourceType: a.target.resourceType,
              // By tags where the reference allows nothing else (each sandbox resource has its own Name).
              ...(a.targeting === 'tags'
                ? { resourceTags: { Name: target.tags.Name! } }
                : { resourceArns: [target.arn] }),
              selectionMode: 'ALL',
            },
          }
        : {},
    actions: {
      a: { actionId: a.id, parameters, ...(a.target ? { targets: { [a.target.key]: 't' } } : {}) },
    },
    tags: { 'chaos-gate:plan': 'fis-catalogue' },
  };
}

const ended = (s: string | undefined) => s === 'completed' || s === 'failed' || s === 'stopped';

async function actionsOf(experimentId: string): Promise<ActionRecord[]> {
  return (await sandbox.admin.get<{ actions: ActionRecord[] }>(`/actions?experimentId=${experimentId}`))
    .actions;
}

async function rehearse(a: ReferenceAction): Promise<Outcome> {
  const target = targetFor(a);
  const created = await fis.client.send(new CreateExperimentTemplateCommand(templateFor(a, target)));
  const experimentTemplateId = created.experimentTemplate!.id!;

  const dry = await dryFis.client.send(new StartExperimentCommand({ experimentTemplateId }));
  const dryDone = await waitForExperiment(fis.client, dry.experiment!.id!, (e) => ended(e.state?.status));
  const resolved = await fis.client.send(
    new ListExperimentResolvedTargetsCommand({ experimentId: dry.experiment!.id! }),
  );

  const run = await fis.client.send(new StartExperimentCommand({ experimentTemplateId }));
  const runDone = await waitForExperiment(fis.client, run.experiment!.id!, (e) => ended(e.state?.status));
  return {
    target,
    dryStatus: dryDone.state?.status,
    dryActionStatus: dryDone.actions?.a?.state?.status,
    resolved: (resolved.resolvedTargets ?? []).map((t) => String(t.targetInformation?.arn)),
    dryActions: await actionsOf(dry.experiment!.id!),
    runStatus: runDone.state?.status,
    runActions: await actionsOf(run.experiment!.id!),
  };
}

describe('every action of the FIS actions reference rehearses on the sandbox', () => {
  it('knows every action of the reference and nothing else', () => {
    expect([...ACTION_CATALOG.keys()].sort()).toEqual(FIS_REFERENCE.map((a) => a.id).sort());
    // The reference lists about sixty actions across these services.
    const services = new Set(FIS_REFERENCE.map((a) => a.id.split(':')[1]));
    for (const s of ['ecs', 'eks', 'lambda', 'rds', 'ec2', 'ebs', 'network', 'fis', 'arc', 'dynamodb', 's3'])
      expect(services, s).toContain(s);
    for (const s of ['elasticache', 'ssm', 'cloudwatch', 'directconnect', 'kinesis', 'memorydb', 'dsql'])
      expect(services, s).toContain(s);
  });

  it.each(FIS_REFERENCE.map((a) => [a.id, a] as const))(
    '%s: a dry run resolves its target and injects nothing; a run completes',
    async (_id, a) => {
      const o = await outcomes.get(a.id)!;
      expect(o.dryStatus).toBe('completed');
      expect(o.dryActionStatus).toBe('skipped');
      expect(o.dryActions).toEqual([]);
      if (a.target) {
        expect(o.target, `the sandbox owns a ${a.target.resourceType}`).toBeDefined();
        expect(o.resolved).toEqual([o.target!.arn]);
      } else expect(o.resolved).toEqual([]);

      expect(o.runStatus).toBe('completed');
      expect(o.runActions).toHaveLength(1);
      expect(o.runActions[0]).toMatchObject({
        actionId: a.id,
        endedAs: 'completed',
        targets: o.target && a.target ? [o.target.arn] : [],
      });
      const effect = ACTION_CATALOG.get(a.id)!.effect;
      const reaches = o.target !== undefined && o.target.role !== 'none' && FAULT_OF[effect].length > 0;
      if (reaches) expect(FAULT_OF[effect]).toContain(o.runActions[0]!.canaryFault);
      else expect(o.runActions[0]!.canaryFault).toBeNull();
    },
  );
});

/** `chaos-gate plan <plan> --resolve` against the sandbox, as a child (asynchronously: see plan-resolve.test.ts). */
async function planResolve(plan: string): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, cliArgs(['plan', plan, '--resolve']), {
      cwd: ROOT,
      timeout: 60_000,
      env: {
        ...process.env,
        AWS_ENDPOINT_URL: sandbox.urls.aws,
        AWS_ACCESS_KEY_ID: 'sandbox',
        AWS_SECRET_ACCESS_KEY: 'sandbox',
        AWS_REGION: 'us-east-1',
        CHAOS_GATE_PROMETHEUS_URL: 'http://127.0.0.1:9',
      },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

/** The orders fixture with its stop-task action replaced by `action` (YAML lines under `actions:`). */
function ordersPlanWith(name: string, action: string): string {
  const fixture = readFileSync(path.join(ROOT, 'fixtures/plans/ecs-stop-task.yaml'), 'utf8');
  let replaced = fixture.replace(/ {4}stopTasks:\n {6}actionId: aws:ecs:stop-task\n/, action);
  expect(replaced).not.toBe(fixture);
  // A three-minute stress (blindAfter needs three measurements inside the fault) within the blast radius.
  replaced = replaced.replace('maxActionDuration: 60s', 'maxActionDuration: 3m');
  const file = path.join(dir, `${name}.yaml`);
  writeFileSync(file, replaced);
  return file;
}

describe('plan --resolve keeps its documented exit codes', () => {
  it('resolves an ECS task-cpu-stress plan by a dry run (exit 0); an action FIS does not know is exit 2, named', async () => {
    const stress = ordersPlanWith(
      'task-cpu-stress',
      '    stressTasks:\n      actionId: aws:ecs:task-cpu-stress\n      parameters: { duration: PT3M, percent: "80" }\n',
    );
    const typo = ordersPlanWith('typo', '    stressTasks:\n      actionId: aws:ecs:task-cpu-stres\n');
    const [ok, bad] = await Promise.all([planResolve(stress), planResolve(typo)]);
    expect(ok.status, ok.stderr).toBe(0);
    // The dry run resolved the orders tasks (a quarter of eight).
    expect(ok.stdout).toMatch(/task\/orders-staging\/0rde75/);
    expect(bad.status, bad.stderr).toBe(2);
    expect(bad.stderr).toContain('aws:ecs:task-cpu-stres');
    expect(bad.stderr).toContain('the FIS dry run could not be made');
  }, 60_000);
});
