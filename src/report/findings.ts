/**
 * Findings issues for nightly runs: a plan that deviated or aborted opens (or updates) one issue,
 * labelled `chaos-gate` and marked with the plan id; a later `held` comments and closes it.
 */
import type { Journal, Verdict } from '../journal/types.js';
import { code, findingsMarker, isoTime, verdictLabel } from './common.js';
import { factsTable, sliTable, verdictHeader } from './check-run.js';
import { COMMENT_BODY_LIMIT, trimToLimit } from './limits.js';
import { redact, redactDeep } from '../security/redact.js';
import { mdText } from '../security/markdown-text.js';

/** The label every findings issue carries (the reporter lists issues by it). */
export const FINDINGS_LABEL = 'chaos-gate';

/** Verdicts that open or update a findings issue. */
export const FINDING_VERDICTS: ReadonlySet<Verdict> = new Set(['deviated', 'aborted']);

export interface FindingsOptions {
  runUrl?: string | undefined;
  /** Name of the uploaded journal artifact, quoted in the issue. */
  artifactName?: string | undefined;
}

export interface FindingsIssue {
  title: string;
  body: string;
  labels: string[];
}

/** The issue's title: stable per plan so people can search for it. */
export function findingsTitle(planId: string): string {
  return `chaos-gate finding: ${planId}`;
}

/** The issue for a deviated/aborted run (its body is replaced on every later finding). */
export function findingsIssue(journal: Journal, opts: FindingsOptions = {}): FindingsIssue {
  const parts = [
    findingsMarker(journal.planId),
    `The chaos experiment ${code(journal.planId)} did not hold on ${isoTime(journal.startedAt)}. This issue stays open until a later run holds; each new finding is added as a comment.`,
    verdictHeader(journal),
    factsTable(journal),
  ];
  const slis = sliTable(journal);
  if (slis) parts.push(slis);
  parts.push(evidenceLine(opts));
  // GitHub request bodies pass the one redactor where they are built (docs/design/principles.md#security).
  return redactDeep({
    title: findingsTitle(journal.planId),
    body: trimToLimit(parts.join('\n\n') + '\n', COMMENT_BODY_LIMIT, 'issue body'),
    labels: [FINDINGS_LABEL],
  });
}

/** The comment added to an open issue when the plan deviates or aborts again. */
export function findingsComment(journal: Journal, opts: FindingsOptions = {}): string {
  const text = [
    `### ${verdictLabel(journal.verdict)} again on ${isoTime(journal.startedAt)}`,
    `> ${mdText(journal.reason ?? '')}`,
    factsTable(journal),
    evidenceLine(opts),
  ].join('\n\n');
  return redact(trimToLimit(text + '\n', COMMENT_BODY_LIMIT, 'comment'));
}

/** The comment that closes the issue once the plan holds. */
export function heldComment(journal: Journal, opts: FindingsOptions = {}): string {
  return redact(
    [
      `### ${verdictLabel('held')} on ${isoTime(journal.startedAt)}`,
      `> ${mdText(journal.reason ?? '')}`,
      `The hypothesis held again, so this finding is closed.${opts.runUrl ? ` Run: ${opts.runUrl}` : ''}`,
    ].join('\n\n') + '\n',
  );
}

function evidenceLine(opts: FindingsOptions): string {
  const artifact = opts.artifactName ? `the ${code(opts.artifactName)} artifact` : 'the journal artifact';
  return opts.runUrl
    ? `Evidence: [workflow run](${opts.runUrl}), with every measurement in ${artifact}.`
    : `Evidence: every measurement is in ${artifact} of the workflow run.`;
}
