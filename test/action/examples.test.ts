import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const DIR = new URL('../../.github/workflows/examples/', import.meta.url);

interface Step {
  uses?: string;
  run?: string;
  with?: Record<string, string>;
}
interface Job {
  permissions?: Record<string, string>;
  steps?: Step[];
  needs?: string | string[];
  if?: string;
  environment?: string;
}

function load(file: string): { jobs: Record<string, Job> } {
  return parse(readFileSync(new URL(file, DIR), 'utf8')) as { jobs: Record<string, Job> };
}

/** The permissions a chaos-gate step needs for what its inputs ask. */
function needed(step: Step): Record<string, string> {
  const w = step.with ?? {};
  const command = w.command ?? 'run';
  const need: Record<string, string> = { contents: 'read' };
  if (command === 'run') {
    need['id-token'] = 'write';
    if (w['check-run'] !== 'false') need.checks = 'write';
  }
  if (w.findings === 'issue') need.issues = 'write';
  if (w.environment || w['deployment-id']) need.deployments = 'write';
  if (w['attest-subject-name']) {
    need['id-token'] = 'write';
    need.attestations = 'write';
  }
  if (command === 'plan' && w['pr-comment'] !== 'false') need['pull-requests'] = 'write';
  return need;
}

describe('example workflows', () => {
  const files = readdirSync(DIR).filter((f) => f.endsWith('.yml'));

  it('ship the four documented examples', () => {
    expect(files.sort()).toEqual([
      'canary-gated-deploy.yml',
      'nightly-chaos.yml',
      'pr-plan-review.yml',
      'promotion-ladder.yml',
    ]);
  });

  for (const file of files) {
    it(`${file}: every chaos-gate job grants the permissions its inputs need, and run jobs use OIDC`, () => {
      const wf = load(file);
      const gateJobs = Object.entries(wf.jobs).filter(([, j]) =>
        j.steps?.some((s) => s.uses?.includes('/chaos-gate@')),
      );
      expect(gateJobs.length).toBeGreaterThan(0);
      for (const [name, job] of gateJobs) {
        const step = job.steps?.find((s) => s.uses?.includes('/chaos-gate@')) as Step;
        expect(job.permissions, `${file} ${name}`).toMatchObject(needed(step));
        if ((step.with?.command ?? 'run') === 'run') {
          const oidc =
            job.steps?.findIndex((s) => s.uses?.startsWith('aws-actions/configure-aws-credentials@')) ?? -1;
          expect(oidc, `${file} ${name}: OIDC step`).toBeGreaterThanOrEqual(0);
          expect(oidc).toBeLessThan(job.steps?.indexOf(step) ?? -1);
        }
      }
    });
  }

  it('the deploy example promotes only after the gate (needs:) and a PASSED attestation of this run', () => {
    const wf = load('canary-gated-deploy.yml');
    expect(wf.jobs.promote?.needs).toContain('chaos-gate');
    expect(wf.jobs['chaos-gate']?.needs).toBe('canary');
    // The gate names its environment as an input: a job `environment:` would add a deployment of its own.
    expect(wf.jobs['chaos-gate']?.environment).toBeUndefined();
    const gate = wf.jobs['chaos-gate']?.steps?.find((s) => s.uses?.includes('/chaos-gate@'));
    expect(gate?.with).toMatchObject({
      environment: 'staging',
      'attest-subject-name': expect.stringContaining('needs.canary.outputs'),
      'attest-subject-digest': expect.stringContaining('needs.canary.outputs.digest'),
    });
    const verify = wf.jobs.promote?.steps?.find((s) => s.run?.includes('gh attestation verify'))?.run ?? '';
    expect(verify).toContain('--predicate-type https://in-toto.io/attestation/test-result/v0.1');
    // A signature alone is no pass: a FAILED verdict is signed too.
    expect(verify).toMatch(/predicate\.result == "PASSED"/);
    expect(verify).toMatch(/predicate\.url == \$run/);
    expect(wf.jobs.promote?.permissions).toMatchObject({ attestations: 'read' });
  });

  it('the deploy example has an un-skippable required check: it always runs and fails unless the gate succeeded', () => {
    const job = load('canary-gated-deploy.yml').jobs['gate-passed'];
    expect(job?.needs).toBe('chaos-gate');
    expect(job?.if).toBe('always()');
    expect(job?.steps?.map((s) => s.run ?? '').join('\n')).toMatch(/test "\$RESULT" = success/);
  });

  it('the nightly summary job reads every journal artifact of the matrix, whatever the matrix did', () => {
    const job = load('nightly-chaos.yml').jobs.summary as Job & { steps: Step[] };
    expect(job.needs).toBe('chaos');
    expect(job.if).toBe('always()');
    const download = job.steps.find((s) => s.uses?.startsWith('actions/download-artifact@'));
    expect(download?.with?.pattern).toBe('chaos-gate-*');
    expect(job.steps.some((s) => s.run?.includes('report --matrix'))).toBe(true);
    expect(job.steps.some((s) => s.run?.includes('history') && s.run.includes('--artifacts'))).toBe(true);
    expect(job.permissions?.actions).toBe('read');
  });

  it('the ladder climbs one rung at a time, each in its environment with its own policy and the history before it', () => {
    const { jobs } = load('promotion-ladder.yml');
    const order = ['staging-canary', 'production-canary', 'production'];
    expect(Object.keys(jobs)).toEqual(order);
    const policies = new Set<string>();
    order.forEach((name, i) => {
      const job = jobs[name]!;
      expect(job.environment, name).toBe(name === 'staging-canary' ? 'staging' : name);
      if (i > 0) expect(job.needs, name).toBe(order[i - 1]);
      const step = job.steps?.find((s) => s.uses?.includes('/chaos-gate@')) as Step;
      policies.add(step.with?.policy ?? '');
      if (i > 0) {
        expect(step.with?.history, name).toBeDefined();
        const download = job.steps?.find((s) => s.uses?.startsWith('actions/download-artifact@'));
        expect(download?.with?.pattern, name).toBe(`chaos-gate-checkout-${order[i - 1]}`);
      }
    });
    expect(policies.size).toBe(3);
  });
});
