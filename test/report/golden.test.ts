/**
 * Golden tests for the GitHub renderers: fixture journals in `fixtures/github/journals/`, committed
 * output in `fixtures/github/golden/`. Regenerate with `UPDATE_GOLDEN=1 npx vitest run test/report`
 * and review the diff.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Journal } from '../../src/journal/types.js';
import { locateField, parsePlan } from '../../src/plan/load.js';
import { staticRefusals } from '../../src/plan/refusals.js';
import {
  annotationBatches,
  checkRunAnnotations,
  checkRunPayload,
  type Locate,
} from '../../src/report/check-run.js';
import { fallbackNotice, prComment } from '../../src/report/comment.js';
import { findingsComment, findingsIssue, heldComment } from '../../src/report/findings.js';
import { buildPlanReview } from '../../src/report/review.js';
import { ANNOTATIONS_PER_REQUEST, CHECK_RUN_TEXT_LIMIT } from '../../src/report/limits.js';
import { commentMarker } from '../../src/report/common.js';
import { expectGolden } from '../helpers/golden.js';

const ROOT = new URL('../../fixtures/github/', import.meta.url);
const GOLDEN = new URL('golden/', ROOT);
const planText = readFileSync(new URL('plans/redis-partition.yaml', ROOT), 'utf8');
const locate: Locate = (field) => locateField(planText, field);
const SHA = '5f3c2a1b0e9d8c7b6a5f4e3d2c1b0a9f8e7d6c5b';
const RUN_URL = 'https://github.com/acme/payments/actions/runs/8123456789';

function journal(name: string): Journal {
  return JSON.parse(readFileSync(new URL(`journals/${name}.json`, ROOT), 'utf8')) as Journal;
}

function golden(file: string, actual: string): void {
  expectGolden(new URL(file, GOLDEN), actual);
}

const checkOpts = { headSha: SHA, locate, runUrl: RUN_URL };
const CONCLUSION = {
  held: 'success',
  deviated: 'failure',
  aborted: 'failure',
  inconclusive: 'failure',
  'not-run': 'failure',
  refused: 'failure',
  failed: 'failure',
} as const;

describe('check-run, comment and findings goldens', () => {
  for (const name of Object.keys(CONCLUSION) as (keyof typeof CONCLUSION)[]) {
    it(`renders the ${name} journal as committed (check run ${CONCLUSION[name]})`, () => {
      const j = journal(name);
      const payload = checkRunPayload(j, checkOpts);
      expect(payload.conclusion).toBe(CONCLUSION[name]);
      expect(payload.name).toBe('chaos-gate / redis-partition');
      expect(payload.head_sha).toBe(SHA);
      golden(
        `${name}.check-run.json`,
        JSON.stringify({ payload, batches: annotationBatches(j, checkOpts) }, null, 2) + '\n',
      );
      golden(`${name}.comment.md`, prComment(j, { runUrl: RUN_URL }));
      if (name === 'deviated' || name === 'aborted') {
        const issue = findingsIssue(j, { runUrl: RUN_URL, artifactName: 'chaos-gate-redis-partition' });
        golden(`${name}.issue.md`, `# ${issue.title}\nlabels: ${issue.labels.join(', ')}\n\n${issue.body}`);
        golden(`${name}.issue-comment.md`, findingsComment(j, { runUrl: RUN_URL }));
      }
      if (name === 'held') golden('held.close-comment.md', heldComment(j, { runUrl: RUN_URL }));
    });
  }

  it('trims an oversized report to 65 535 characters with a visible notice and batches annotations by 50', () => {
    const j = journal('oversized');
    const payload = checkRunPayload(j, checkOpts);
    expect(payload.output.text.length).toBeLessThanOrEqual(CHECK_RUN_TEXT_LIMIT);
    expect(payload.output.summary.length).toBeLessThanOrEqual(CHECK_RUN_TEXT_LIMIT);
    expect(payload.output.text).toContain(
      "**Trimmed:** this check-run text was cut to GitHub's limit of 65,535 characters",
    );
    const all = checkRunAnnotations(j, checkOpts);
    expect(all.length).toBeGreaterThan(2 * ANNOTATIONS_PER_REQUEST);
    expect(payload.output.annotations).toEqual(all.slice(0, ANNOTATIONS_PER_REQUEST));
    const batches = annotationBatches(j, checkOpts);
    expect(batches.every((b) => b.length <= ANNOTATIONS_PER_REQUEST)).toBe(true);
    expect(batches.flat()).toEqual(all.slice(ANNOTATIONS_PER_REQUEST));
    expect(payload.output.summary).toContain(
      `${all.length} annotations on the plan file, sent 50 per request.`,
    );
    golden('oversized.check-run.json', JSON.stringify({ payload, batches: batches.length }, null, 2) + '\n');
  });

  it('puts annotations on the plan lines of the breached bound and the tripped abort rule', () => {
    const deviated = checkRunAnnotations(journal('deviated'), checkOpts);
    const p95Max = locate('hypothesis.slis[1].max');
    expect(p95Max?.line).toBe(planText.split('\n').findIndex((l) => l.trim() === 'max: 0.18') + 1);
    expect(deviated).toContainEqual(
      expect.objectContaining({
        path: 'chaos/redis-partition.yaml',
        start_line: p95Max?.line,
        annotation_level: 'failure',
      }),
    );
    const aborted = checkRunAnnotations(journal('aborted'), checkOpts);
    const rule = locate('abort.rules[0]');
    expect(aborted).toContainEqual(
      expect.objectContaining({ start_line: rule?.line, title: 'abort rule tripped: error_ratio' }),
    );
    const refused = checkRunAnnotations(journal('refused'), checkOpts);
    expect(refused.map((a) => a.start_line)).toEqual([
      locate('fis.actions.partitionRedisPrimary.parameters.duration')?.line,
      locate('blastRadius.maxTargets')?.line,
    ]);
  });

  it('reports inconclusive as neutral when configured, and never as success', () => {
    const j = journal('inconclusive');
    expect(
      checkRunPayload(j, { ...checkOpts, conclusions: { inconclusive: 'neutral', notRun: 'failure' } })
        .conclusion,
    ).toBe('neutral');
    expect(
      checkRunPayload(journal('not-run'), {
        ...checkOpts,
        conclusions: { inconclusive: 'neutral', notRun: 'skipped' },
      }).conclusion,
    ).toBe('skipped');
  });

  it('completes an unfinished journal as cancelled', () => {
    const j = { ...journal('aborted'), verdict: null, reason: null, complete: false };
    const payload = checkRunPayload(j, checkOpts);
    expect(payload.conclusion).toBe('cancelled');
    expect(payload.output.summary).toContain('prefix recovered after the run stopped unexpectedly');
  });

  it('renders the plan review comment, a refused plan review, and the fork fallback summary', () => {
    const loaded = parsePlan(planText, 'chaos/redis-partition.yaml');
    const review = buildPlanReview({
      plan: loaded.plan,
      digest: loaded.digest,
      planPath: 'chaos/redis-partition.yaml',
      refusals: staticRefusals(loaded.plan, loaded),
    });
    const body = prComment(review, { runUrl: RUN_URL });
    expect(body.startsWith(commentMarker('redis-partition'))).toBe(true);
    golden('review.comment.md', body);

    const wide = planText.replace('duration: PT60S', 'duration: PT10M');
    const wideLoaded = parsePlan(wide, 'chaos/redis-partition.yaml');
    const refusedReview = buildPlanReview({
      plan: wideLoaded.plan,
      digest: wideLoaded.digest,
      planPath: 'chaos/redis-partition.yaml',
      refusals: staticRefusals(wideLoaded.plan, wideLoaded),
    });
    expect(refusedReview.refusals.length).toBeGreaterThan(0);
    golden('review-refused.comment.md', prComment(refusedReview));

    golden('fork-review.summary.md', `${fallbackNotice('fork', 'plan review comment')}\n\n${body}`);
  });
});
