/**
 * The FIS template lifecycle (docs/design/run.md#provisioning) against the sandbox: created once, reused while the plan is
 * unchanged, updated when the plan changes, and — when someone edits it by hand through the FIS API —
 * repaired by default or refused with `--drift refuse`, leaving it untouched. The plan's steady state
 * cannot hold (p95 ≤ 1 ms), so each run ends `not-run` after provisioning and never injects.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  GetExperimentTemplateCommand,
  UpdateExperimentTemplateCommand,
  type ExperimentTemplate,
} from '@aws-sdk/client-fis';
import { copyPlan, eventOf, startE2E, type E2E, type PlanRun } from './harness.js';

const HAND_EDIT = 'edited by hand in the console';
const WRITING_OPS = ['CreateExperimentTemplate', 'UpdateExperimentTemplate', 'TagResource'];

let e2e: E2E;

beforeAll(async () => {
  e2e = await startE2E();
}, 60_000);

afterAll(async () => {
  await e2e?.close();
}, 30_000);

function provisioned(run: PlanRun): unknown {
  return eventOf(run.journal, 'provision')?.data?.action;
}

async function template(id: string): Promise<ExperimentTemplate> {
  const out = await e2e.fis.send(new GetExperimentTemplateCommand({ id }));
  if (!out.experimentTemplate) throw new Error(`no template ${id}`);
  return out.experimentTemplate;
}

async function editByHand(id: string): Promise<void> {
  await e2e.fis.send(new UpdateExperimentTemplateCommand({ id, description: HAND_EDIT }));
}

async function writesSince(mark: number): Promise<string[]> {
  return (await e2e.requests({ service: 'fis', since: mark }))
    .map((r) => r.operation ?? '')
    .filter((op) => WRITING_OPS.includes(op));
}

/** Real (non-dry-run) StartExperiment calls since the mark. */
async function startsSince(mark: number): Promise<number> {
  const starts = await e2e.requests({ service: 'fis', operation: 'StartExperiment', since: mark });
  return starts.filter((r) => !JSON.stringify(r.body ?? '').includes('skip-all')).length;
}

describe('FIS template provisioning', () => {
  let templateId = '';
  let changedPlan = '';

  it('creates the template on the first run, tagged with the plan and its digest', async () => {
    const run = await e2e.run('e2e-template.yaml');
    expect(run.json.verdict, run.stderr).toBe('not-run');
    expect(run.json.reason).toMatch(/steady state broken before injection: p95_latency_s/);
    expect(provisioned(run)).toBe('created');
    templateId = run.journal.templateId ?? '';
    const t = await template(templateId);
    expect(t.tags?.['chaos-gate:plan']).toBe('e2e-template');
    expect(t.tags?.['chaos-gate:digest']).toMatch(/^[0-9a-f]{32}$/);
    // Stop conditions: chaos-gate's lease and kill-switch alarms.
    // The lease is the run's own alarm: `chaos-gate-lease-<plan>-<run key>`.
    const names = t.stopConditions?.map((s) => s.value?.replace(/^.*:alarm:/, '') ?? '');
    expect(names?.map((n) => n.replace(/-[0-9a-f]{12}$/, '')).sort()).toEqual([
      'chaos-gate-kill-switch',
      'chaos-gate-lease-e2e-template',
    ]);
    expect(await e2e.actions()).toEqual([]);
  });

  it('reuses it untouched when the plan is unchanged', async () => {
    const mark = await e2e.mark();
    const run = await e2e.run('e2e-template.yaml');
    expect(provisioned(run)).toBe('reused');
    expect(run.journal.templateId).toBe(templateId);
    expect(await writesSince(mark)).toEqual([]);
  });

  it('updates it (and its digest tag) when the plan changes', async () => {
    const before = (await template(templateId)).tags?.['chaos-gate:digest'];
    changedPlan = copyPlan(e2e.dir, 'e2e-template.yaml', (text) =>
      text.replace('duration: PT1M', 'duration: PT1M30S'),
    );
    const run = await e2e.run(changedPlan);
    expect(provisioned(run)).toBe('updated');
    expect(run.journal.templateId).toBe(templateId);
    const t = await template(templateId);
    expect(t.actions?.partitionRedisPrimary?.parameters?.duration).toBe('PT1M30S');
    expect(t.tags?.['chaos-gate:digest']).not.toBe(before);
  });

  it('repairs a template edited by hand (the default)', async () => {
    await editByHand(templateId);
    expect((await template(templateId)).description).toBe(HAND_EDIT);
    const run = await e2e.run(changedPlan);
    expect(provisioned(run)).toBe('repaired');
    expect((await template(templateId)).description).toBe(
      'Partition the subnet of redis-pay-primary-01 for 10 s',
    );
  });

  it('refuses a template edited by hand with --drift refuse: exit 2, nothing touched, nothing started', async () => {
    await editByHand(templateId);
    const mark = await e2e.mark();
    const run = await e2e.run(changedPlan, ['--drift', 'refuse']);
    expect(run.json.verdict, run.stderr).toBe('refused');
    expect(run.code).toBe(2);
    expect(run.json.reason).toContain(templateId);
    expect(run.json.reason).toMatch(/edited outside chaos-gate/);
    expect((await template(templateId)).description).toBe(HAND_EDIT);
    expect(await writesSince(mark)).toEqual([]);
    expect(await startsSince(mark)).toBe(0);
    expect(await startsSince(0)).toBe(0);
  });

  it('leaves no experiment running in the stand-in', async () => {
    await e2e.sweep();
    expect(await e2e.liveExperiments()).toEqual([]);
  });
});
