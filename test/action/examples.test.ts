import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const DIR = new URL('../../.github/workflows/examples/', import.meta.url);

interface Step {
  uses?: string;
  with?: Record<string, string>;
}
interface Job {
  permissions?: Record<string, string>;
  steps?: Step[];
  needs?: string | string[];
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
  if (command === 'plan' && w['pr-comment'] !== 'false') need['pull-requests'] = 'write';
  return need;
}

describe('example workflows', () => {
  const files = readdirSync(DIR).filter((f) => f.endsWith('.yml'));

  it('ship the three documented examples', () => {
    expect(files.sort()).toEqual(['canary-gated-deploy.yml', 'nightly-chaos.yml', 'pr-plan-review.yml']);
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

  it('the deploy example promotes only after the gate (needs:)', () => {
    const wf = load('canary-gated-deploy.yml');
    expect(wf.jobs.promote?.needs).toBe('chaos-gate');
    expect(wf.jobs['chaos-gate']?.needs).toBe('canary');
  });
});
