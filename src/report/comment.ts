/**
 * The pull-request comment: one per plan, identified by a hidden marker (and, by the reporter, by its
 * author). Before a run it shows the plan review, like a `terraform plan` comment; after a run it
 * shows the verdict. Also the note that replaces it in the job summary when the token cannot write.
 */
import type { Journal } from '../journal/types.js';
import { cell, code, commentMarker, keyValueTable } from './common.js';
import { factsTable, sliTable, verdictHeader } from './check-run.js';
import { COMMENT_BODY_LIMIT, trimToLimit } from './limits.js';
import { redact } from '../security/redact.js';
import { mdText } from '../security/markdown-text.js';

/** What `chaos-gate plan` computed about a plan, for review before anything runs. */
export interface PlanReview {
  kind: 'plan-review';
  planId: string;
  planPath?: string | undefined;
  title: string;
  service: string;
  environment: string;
  digest: string;
  /** Static refusals: the plan would be refused as written. */
  refusals: { field: string; message: string; line?: number | undefined }[];
  /** Review sections in order, e.g. blast radius, hypothesis, schedule, budget, predicted failover. */
  sections: { heading: string; rows: [string, string][]; note?: string | undefined }[];
}

export interface CommentOptions {
  /** Link to the workflow run (artifacts, logs). */
  runUrl?: string | undefined;
  /** Link to the check run with the full record. */
  checkUrl?: string | undefined;
}

/** True for a plan review, false for a journal. */
export function isPlanReview(subject: Journal | PlanReview): subject is PlanReview {
  return (subject as PlanReview).kind === 'plan-review';
}

/** The comment body for a run's verdict or a plan review, starting with the plan's marker. */
export function prComment(subject: Journal | PlanReview, opts: CommentOptions = {}): string {
  const body = isPlanReview(subject) ? reviewBody(subject) : verdictBody(subject, opts);
  const links = [
    opts.checkUrl && `[check run](${opts.checkUrl})`,
    opts.runUrl && `[workflow run and artifacts](${opts.runUrl})`,
  ].filter(Boolean);
  const footer = links.length ? `\n\n<sub>chaos-gate · ${links.join(' · ')}</sub>\n` : '\n';
  const marker = commentMarker(isPlanReview(subject) ? subject.planId : subject.planId);
  // GitHub request bodies pass the one redactor where they are built (docs/design/principles.md#security).
  return redact(trimToLimit(`${marker}\n${body}${footer}`, COMMENT_BODY_LIMIT, 'comment'));
}

function verdictBody(journal: Journal, _opts: CommentOptions): string {
  const parts = [verdictHeader(journal), factsTable(journal)];
  const slis = sliTable(journal);
  if (slis) parts.push(slis);
  return parts.join('\n\n');
}

function reviewBody(r: PlanReview): string {
  const parts: string[] = [];
  const status = r.refusals.length ? `⛔ would be refused (${r.refusals.length})` : '📋 ready to run';
  parts.push(`## ${status} · ${code(r.planId)}`);
  parts.push(
    `**${mdText(r.title)}**: ${code(r.service)} in ${code(r.environment)}, plan digest ${code(r.digest.slice(0, 12))}${r.planPath ? `, file ${code(r.planPath)}` : ''}`,
  );
  if (r.refusals.length) {
    parts.push(
      '### Refusals',
      [
        '| field | line | why |',
        '|---|---|---|',
        ...r.refusals.map((x) => `| ${code(x.field)} | ${x.line ?? ''} | ${cell(x.message)} |`),
      ].join('\n'),
    );
  }
  for (const s of r.sections) {
    parts.push(`### ${mdText(s.heading)}`);
    if (s.rows.length) parts.push(keyValueTable(s.rows, ['check', 'result']));
    if (s.note) parts.push(mdText(s.note));
  }
  return parts.join('\n\n');
}

/**
 * What goes into the job summary when the comment (or check run) cannot be written: a fork PR's token
 * is read-only, so the reader is told why the comment is missing and where the content is.
 */
export function fallbackNotice(reason: 'fork' | 'forbidden', what: string): string {
  const why =
    reason === 'fork'
      ? 'This pull request comes from a fork, and GitHub gives fork workflows a read-only token'
      : 'The token was refused write access (403)';
  return `> ℹ️ ${why}, so the ${what} could not be written. It is shown here in the job summary instead.`;
}
