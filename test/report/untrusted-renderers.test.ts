/**
 * Every renderer that writes Markdown (job summary, check run, PR comment, plan review, findings issue)
 * and the HTML replay, driven on journals the real engine wrote on the simulated world. The plan's
 * title, service, environment and owner, the Prometheus error text (a scenario's failing query) and the
 * FIS failure reason carry a placeholder; each hostile string (test/security/hostile.ts) then takes the
 * placeholder's place everywhere, in the journal and in the plan review. A rendering with the hostile
 * text must have exactly the layout of the one with the placeholder — the same lines, headings, quotes,
 * table rows with the same cell counts, the same `<details>` blocks — and no more raw HTML, mentions
 * or references.
 */
import { describe, expect, it } from 'vitest';
import type { Journal } from '../../src/journal/types.js';
import { checkRunPayload } from '../../src/report/check-run.js';
import { prComment, type PlanReview } from '../../src/report/comment.js';
import { findingsComment, findingsIssue, heldComment } from '../../src/report/findings.js';
import { renderReplayHtml } from '../../src/report/html.js';
import { renderSummary } from '../../src/report/markdown.js';
import { buildPlanReview } from '../../src/report/review.js';
import { loadScenario } from '../../src/sim/scenario.js';
import { planWith, simulate } from '../sim/helpers.js';
import {
  MENTION,
  PAYLOADS,
  RAW_HTML,
  REFERENCE,
  hostileStrings,
  markdownShape,
  outsideCode,
} from '../security/hostile.js';

const MARK = 'UNTRUSTEDVALUE';

/** The checkout plan with the placeholder in every free-text field a reader sees. */
const plan = planWith((p) => {
  p.title = `Checkout ${MARK}`;
  p.service = MARK;
  p.environment = MARK;
  p.owner = MARK;
});

/** A copy of `value` with the placeholder replaced by `text` in every string. */
function substitute<T>(value: T, text: string): T {
  return JSON.parse(JSON.stringify(value), (_k, v: unknown) =>
    typeof v === 'string' ? v.replaceAll(MARK, text) : v,
  ) as T;
}

/** Runs a scenario with the placeholder in the Prometheus error or the FIS reason; adds targets with tags. */
async function journalOf(kind: 'prometheus' | 'fis'): Promise<Journal> {
  const s = loadScenario(
    kind === 'prometheus'
      ? 'fixtures/scenarios/inconclusive-blind.yaml'
      : 'fixtures/scenarios/failed-fis.yaml',
  );
  if (kind === 'prometheus') {
    const gap = s.metrics.p95_latency_s?.gaps[0];
    if (!gap) throw new Error('inconclusive-blind has no gap');
    gap.message = `server returned HTTP 503: ${MARK}`;
  } else {
    if (!s.injector.failsAt) throw new Error('failed-fis has no failure');
    s.injector.failsAt.reason = `Unable to start: ${MARK}`;
  }
  const { result } = await simulate(s, { plan, deps: () => ({ region: 'eu-west-1' }) });
  const j = result.journal;
  const raw = JSON.stringify(j);
  // The placeholder reached the journal through the engine itself: the reason and the event trace.
  expect(raw).toContain(MARK);
  expect(j.events.some((e) => e.message.includes(MARK))).toBe(true);
  expect(j.reason).toContain(MARK);
  j.resolvedTargets = (j.resolvedTargets ?? []).map((t) => ({ ...t, tags: { Owner: MARK } }));
  return j;
}

interface Rendered {
  name: string;
  markdown: string;
}

function renderAll(j: Journal, review: PlanReview): Rendered[] {
  const check = checkRunPayload(j, {
    headSha: 'abc123',
    runUrl: 'https://github.com/acme/shop/actions/runs/1',
  });
  const issue = findingsIssue(j, {
    runUrl: 'https://github.com/acme/shop/actions/runs/1',
    artifactName: 'x',
  });
  return [
    { name: 'job summary', markdown: renderSummary(j) },
    { name: 'check-run summary', markdown: check.output.summary },
    { name: 'check-run text', markdown: check.output.text },
    { name: 'PR comment', markdown: prComment(j, { runUrl: 'https://github.com/acme/shop/actions/runs/1' }) },
    { name: 'plan review comment', markdown: prComment(review) },
    { name: 'findings issue', markdown: issue.body },
    { name: 'findings comment', markdown: findingsComment(j) },
    { name: 'held comment', markdown: heldComment(j) },
  ];
}

const count = (text: string, re: RegExp): number => text.match(re)?.length ?? 0;

/** Hostile strings for the renderers: every payload behind a line break, and all of them at once. */
const CASES = hostileStrings().filter((h) => h.includes('\n') || h === PAYLOADS.join('\n'));

describe('untrusted text in every Markdown renderer', () => {
  for (const kind of ['prometheus', 'fis'] as const) {
    it(`keeps the layout of each report whatever the plan fields and the ${kind === 'prometheus' ? 'Prometheus error' : 'FIS reason'} say`, async () => {
      const journal = await journalOf(kind);
      const review = buildPlanReview({ plan, digest: 'sha256:0123456789abcdef', refusals: [] });
      const baseline = renderAll(journal, review);
      for (const b of baseline) expect(b.markdown, b.name).toContain(MARK);
      for (const h of CASES) {
        const hostile = renderAll(substitute(journal, h), substitute(review, h));
        for (const [i, r] of hostile.entries()) {
          const base = baseline[i]!;
          const why = `${r.name} with ${JSON.stringify(h)}`;
          expect(r.markdown, why).not.toContain(MARK);
          expect(markdownShape(r.markdown), why).toEqual(markdownShape(base.markdown));
          const text = outsideCode(r.markdown);
          const baseText = outsideCode(base.markdown);
          expect(count(text, /<details>/g), why).toBe(count(baseText, /<details>/g));
          expect(count(text, /<\/details>/g), why).toBe(count(baseText, /<\/details>/g));
          expect(count(text, RAW_HTML), why).toBe(count(baseText, RAW_HTML));
          expect(count(text, MENTION), why).toBe(0);
          expect(count(text, REFERENCE), why).toBe(count(baseText, REFERENCE));
        }
      }
    });
  }
});

describe('untrusted text in the HTML replay', () => {
  it('stays text: escaped in the page, and unable to end the embedded JSON <script>', async () => {
    const journal = await journalOf('prometheus');
    const baseline = renderReplayHtml(journal);
    const tags = (html: string): number => count(html, /<[A-Za-z/!]/g);
    for (const h of CASES) {
      const html = renderReplayHtml(substitute(journal, h));
      const why = JSON.stringify(h);
      expect(tags(html), why).toBe(tags(baseline));
      const data =
        /<script type="application\/json" id="replay-data">([\s\S]*?)<\/script>/.exec(html)?.[1] ?? '';
      expect(data, why).not.toContain('<');
      // The JSON still reads back whole: the hostile text is in it, as data.
      expect(JSON.stringify(JSON.parse(data)), why).toContain(JSON.stringify(h).slice(1, 12));
    }
  });
});
