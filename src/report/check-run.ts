/**
 * The check run `chaos-gate / <plan id>`: its conclusion (docs/design/verdicts.md), a summary and a detailed text in
 * Markdown, and annotations on the plan file's own lines for refusals, tripped abort rules, breached
 * SLIs and missing expectations. A pure function of the journal; trimmed to GitHub's limits with a
 * visible notice.
 */
import type { Journal, JournalEvent } from '../journal/types.js';
import { redactDeep } from '../security/redact.js';
import { mdCell, mdText } from '../security/markdown-text.js';
import { formatValue } from '../journal/format.js';
import { judgementOf } from '../journal/judgement.js';
import {
  breachEpisodes,
  cell,
  checkName,
  clockNote,
  code,
  conclusionFor,
  DEFAULT_CONCLUSIONS,
  expectationRows,
  fisConsoleUrl,
  isoTime,
  keyValueMarkdown,
  keyValueTable,
  isSettling,
  measurementCell,
  SLI_COLUMNS,
  sliCells,
  sliRows,
  timingRows,
  budgetRows,
  verdictLabel,
  when,
  type Conclusion,
  type ConclusionPolicy,
} from './common.js';
import {
  ANNOTATION_MESSAGE_LIMIT,
  ANNOTATION_TITLE_LIMIT,
  ANNOTATIONS_PER_REQUEST,
  CHECK_RUN_TEXT_LIMIT,
  trimToLimit,
} from './limits.js';

/** A line and column (1-based) in the plan file. */
export interface FieldPosition {
  line: number;
  column: number;
}

/** Finds a plan field (`hypothesis.slis[1].max`) in the plan file; `locateField` from plan/load fits. */
export type Locate = (field: string) => FieldPosition | undefined;

/** One check-run annotation, in the API's shape. */
export interface Annotation {
  path: string;
  start_line: number;
  end_line: number;
  start_column?: number;
  end_column?: number;
  annotation_level: 'notice' | 'warning' | 'failure';
  title: string;
  message: string;
}

export interface CheckRunOptions {
  /** The commit the check belongs to: the PR head on pull_request events. */
  headSha: string;
  /** The plan file, relative to the repository root; defaults to the journal's `planPath`. */
  planPath?: string | undefined;
  /** Locates plan fields for annotations; without it annotations sit on line 1. */
  locate?: Locate | undefined;
  conclusions?: ConclusionPolicy | undefined;
  /** Link to the workflow run (shown in the summary and as the check's details URL). */
  runUrl?: string | undefined;
  /** Extra notes appended to the summary (e.g. where the PR comment went). */
  notes?: string[] | undefined;
  /** Completion time; defaults to the journal's `finishedAt`. */
  completedAt?: number | undefined;
}

/** The body of the create/update request that completes the check run. */
export interface CheckRunPayload {
  name: string;
  head_sha: string;
  status: 'completed';
  conclusion: Conclusion;
  completed_at: string;
  details_url?: string;
  output: { title: string; summary: string; text: string; annotations: Annotation[] };
}

/** The body that creates the check run `in_progress` before preflight. */
export interface CheckRunStartPayload {
  name: string;
  head_sha: string;
  status: 'in_progress';
  started_at: string;
  details_url?: string;
  output: { title: string; summary: string };
}

/** Titles longer than this are shortened with an ellipsis: our choice for a one-line heading, not a GitHub limit. */
const TITLE_MAX = 160;

/** The payload that opens the check run while the gate runs. */
export function checkRunStartPayload(
  planId: string,
  headSha: string,
  startedAt: number,
  runUrl?: string,
): CheckRunStartPayload {
  const p: CheckRunStartPayload = {
    name: checkName(planId),
    head_sha: headSha,
    status: 'in_progress',
    started_at: isoTime(startedAt),
    output: {
      title: 'running: preflight',
      summary: `chaos-gate is running plan ${code(planId)}. The verdict replaces this text when the run ends.`,
    },
  };
  if (runUrl) p.details_url = runUrl;
  return redactDeep(p);
}

/** The payload that completes the check run: the first 50 annotations ride along; see `annotationBatches`. */
export function checkRunPayload(journal: Journal, opts: CheckRunOptions): CheckRunPayload {
  const conclusion = conclusionFor(journal.verdict, opts.conclusions ?? DEFAULT_CONCLUSIONS);
  const annotations = checkRunAnnotations(journal, opts);
  const payload: CheckRunPayload = {
    name: checkName(journal.planId),
    head_sha: opts.headSha,
    status: 'completed',
    conclusion,
    completed_at: isoTime(opts.completedAt ?? journal.timings.finishedAt ?? journal.startedAt),
    output: {
      title: shorten(
        `${journal.verdict ?? 'unfinished'}: ${journal.reason ?? 'the run did not finish'}`,
        TITLE_MAX,
      ),
      summary: trimToLimit(
        renderSummary(journal, opts, conclusion, annotations.length),
        CHECK_RUN_TEXT_LIMIT,
        'check-run summary',
      ),
      text: trimToLimit(renderText(journal), CHECK_RUN_TEXT_LIMIT, 'check-run text'),
      annotations: annotations.slice(0, ANNOTATIONS_PER_REQUEST),
    },
  };
  if (opts.runUrl) payload.details_url = opts.runUrl;
  // GitHub request bodies pass the one redactor where they are built (docs/design/principles.md#security).
  return redactDeep(payload);
}

/** Annotations beyond the first request, in batches of 50 for follow-up updates (GitHub appends them). */
export function annotationBatches(journal: Journal, opts: CheckRunOptions): Annotation[][] {
  const rest = checkRunAnnotations(journal, opts).slice(ANNOTATIONS_PER_REQUEST);
  const batches: Annotation[][] = [];
  for (let i = 0; i < rest.length; i += ANNOTATIONS_PER_REQUEST)
    batches.push(rest.slice(i, i + ANNOTATIONS_PER_REQUEST));
  return redactDeep(batches);
}

/** Every annotation for the plan file, most important first (refusals, aborts, breaches, gaps). */
export function checkRunAnnotations(
  journal: Journal,
  opts: Pick<CheckRunOptions, 'planPath' | 'locate'>,
): Annotation[] {
  const path = opts.planPath ?? journal.planPath;
  if (!path) return [];
  const out: Annotation[] = [];
  const add = (
    field: string | undefined,
    level: Annotation['annotation_level'],
    title: string,
    message: string,
  ): void => {
    const pos = field === undefined ? undefined : opts.locate?.(field);
    const a: Annotation = {
      path,
      start_line: pos?.line ?? 1,
      end_line: pos?.line ?? 1,
      annotation_level: level,
      title: shorten(title, ANNOTATION_TITLE_LIMIT),
      message: shorten(message, ANNOTATION_MESSAGE_LIMIT),
    };
    if (pos) {
      a.start_column = pos.column;
      a.end_column = pos.column;
    }
    out.push(a);
  };

  for (const e of journal.events) {
    if (e.type !== 'refused' && e.type !== 'not-run') continue;
    const level = e.type === 'refused' ? 'failure' : 'warning';
    const listed = refusalList(e);
    if (listed.length) for (const r of listed) add(r.field, level, `${e.type}: ${r.field}`, r.message);
    else if (typeof e.data?.field === 'string')
      add(e.data.field, level, `${e.type}: ${e.data.field}`, e.message);
  }

  for (const e of journal.events) {
    if (e.type !== 'abort' || e.data?.cause !== 'rule' || typeof e.data.sli !== 'string') continue;
    const i = journal.abortRules.findIndex((r) => r.sli === e.data?.sli);
    add(i >= 0 ? `abort.rules[${i}]` : undefined, 'failure', `abort rule tripped: ${e.data.sli}`, e.message);
  }
  for (const e of journal.events) {
    if (e.type === 'abort' && e.data?.cause === 'blind')
      add('abort.blindAfter', 'warning', 'blind: measurements failed', e.message);
  }

  const rows = sliRows(journal);
  for (const ep of breachEpisodes(journal)) {
    const i = journal.slis.findIndex((s) => s.name === ep.sli);
    const row = rows.find((r) => r.name === ep.sli);
    const judged = row
      ? ` In all, ${row.outside} measurements during the fault outside, tolerated ${row.tolerated}.`
      : '';
    const key = ep.bound.startsWith('<=') ? 'max' : ep.bound.startsWith('>=') ? 'min' : 'between';
    const span =
      ep.count === 1
        ? `at ${when(journal, ep.from)}`
        : `from ${when(journal, ep.from)} to ${when(journal, ep.to)}`;
    add(
      i >= 0 ? `hypothesis.slis[${i}].${key}` : undefined,
      'failure',
      `${ep.sli} outside ${ep.bound}`,
      `${ep.sli} broke its bound ${ep.bound} ${span}: ${ep.count} measurement${ep.count === 1 ? '' : 's'}, worst ${formatValue(ep.worst)}.${judged}`,
    );
  }

  if (journal.timings.injectedAt !== undefined && journal.verdict !== 'held') {
    const judged = judgementOf(journal).expectations;
    (journal.expectations ?? []).forEach((x, i) => {
      const e = judged.find((j) => j.name === x.name);
      if (e && e.status !== 'met') {
        const [, what] =
          expectationRows(journal).find(([k]) => k.startsWith(`${x.name} `) || k === x.name) ?? [];
        add(
          `hypothesis.expect[${i}]`,
          'failure',
          `expectation not met: ${x.name}`,
          `${x.name} ${x.bound}: ${what ?? e.status}.`,
        );
      }
    });
  }

  for (const r of rows) {
    const c = r.counts;
    if (!c || c.noData === 0) continue;
    const i = journal.slis.findIndex((x) => x.name === r.name);
    add(
      `hypothesis.slis[${i}]`,
      'warning',
      `${r.name}: measurements missing`,
      `${r.name} had no data in ${c.noData} of ${c.measured} measurements${r.sli.fault ? ' during the fault' : ''}.`,
    );
  }
  return out;
}

function refusalList(e: JournalEvent): { field: string; message: string }[] {
  const list = e.data?.refusals;
  if (!Array.isArray(list)) return [];
  return list.flatMap((r: unknown) => {
    const o = r as { field?: unknown; message?: unknown };
    return typeof o.field === 'string'
      ? [{ field: o.field, message: typeof o.message === 'string' ? o.message : e.message }]
      : [];
  });
}

function shorten(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** The headline block shared by the check summary and the PR comment. */
export function verdictHeader(journal: Journal): string {
  const lines = [`## ${verdictLabel(journal.verdict)} · ${code(journal.planId)}`, ''];
  lines.push(
    `> ${journal.reason === null ? 'The run did not finish: no verdict was recorded.' : mdText(journal.reason)}`,
    '',
  );
  lines.push(
    `**${mdText(journal.title)}**: ${code(journal.service)} in ${code(journal.environment)}, plan digest ${code(journal.planDigest.slice(0, 12))}`,
  );
  return lines.join('\n');
}

/** Key facts: experiment, targets, timings. */
export function factsTable(journal: Journal): string {
  const rows: [string, string][] = [];
  if (journal.experimentId) {
    const link = journal.region
      ? ` ([FIS console](${fisConsoleUrl(journal.region, journal.experimentId)}))`
      : '';
    rows.push(['experiment', `${code(journal.experimentId)}${link}`]);
  }
  const targets = journal.resolvedTargets ?? [];
  if (targets.length)
    rows.push(['targets', `${targets.length}: ${targets.map((t) => code(t.arn)).join(', ')}`]);
  const timings = timingRows(journal);
  rows.push(...timings.map(([k, v]): [string, string] => [mdCell(k), mdCell(v)]));
  rows.push(
    ...expectationRows(journal).map(([k, v]): [string, string] => [mdCell(`expectation ${k}`), mdCell(v)]),
  );
  rows.push([
    'run',
    `${mdCell(journal.runId)}${journal.attempt ? ` (attempt ${journal.attempt})` : ''}, started ${isoTime(journal.startedAt)}`,
  ]);
  // Offsets without their origin are ambiguous (injection? start?), so the table says which it is.
  const table = keyValueMarkdown(rows, ['fact', 'value']);
  return timings.length ? `${table}\n\n${clockNote(journal)}` : table;
}

/** The per-SLI judgement table (src/report/common.ts `sliRows`): the same cells in every report. */
export function sliTable(journal: Journal): string {
  const rows = sliRows(journal);
  if (!rows.length) return '';
  return [
    `| ${SLI_COLUMNS.join(' | ')} |`,
    `|${SLI_COLUMNS.map(() => '---|').join('')}`,
    ...rows.map((r) => `| ${sliCells(r).map(cell).join(' | ')} |`),
  ].join('\n');
}

function renderSummary(
  journal: Journal,
  opts: CheckRunOptions,
  conclusion: Conclusion,
  annotationCount: number,
): string {
  const parts = [verdictHeader(journal), factsTable(journal)];
  const slis = sliTable(journal);
  if (slis)
    parts.push(
      `### SLIs ${journal.timings.injectedAt === undefined ? 'in the steady state' : 'while the fault was on'}`,
      slis,
    );
  const budget = budgetRows(journal);
  if (budget.length) parts.push('### Error budget', keyValueTable(budget, ['figure', 'value']));
  const notes = [...(opts.notes ?? [])];
  if (journal.verdict !== 'held' && journal.verdict !== null && conclusion !== 'failure') {
    notes.push(
      `The ${journal.verdict} verdict is reported as **${conclusion}** by configuration; the action still exits non-zero, so it does not promote.`,
    );
  }
  if (annotationCount > ANNOTATIONS_PER_REQUEST) {
    notes.push(
      `${annotationCount} annotations on the plan file, sent ${ANNOTATIONS_PER_REQUEST} per request.`,
    );
  }
  if (!journal.complete) notes.push('The journal is a prefix recovered after the run stopped unexpectedly.');
  if (opts.runUrl) notes.push(`Workflow run and artifacts: ${opts.runUrl}`);
  if (notes.length) parts.push(notes.map((n) => `- ${n}`).join('\n'));
  return parts.filter(Boolean).join('\n\n') + '\n';
}

function renderText(journal: Journal): string {
  const parts: string[] = [];
  // What the times count from, said once above the first table of times (events, else measurements).
  const clock = clockNote(journal);
  if (journal.abortRules.length) {
    parts.push(
      '### Abort rules',
      [
        '| SLI | rule | for |',
        '|---|---|---|',
        ...journal.abortRules.map(
          (r) =>
            `| ${cell(r.sli)} | ${r.op} ${formatValue(r.threshold)} | ${r.count} measurements (${r.forMs / 1000} s) |`,
        ),
      ].join('\n'),
    );
  }
  if (journal.events.length) {
    parts.push(
      '### Events',
      clock,
      [
        '| time | event | detail |',
        '|---|---|---|',
        ...journal.events.map((e) => `| ${when(journal, e.at)} | ${e.type} | ${cell(e.message)} |`),
      ].join('\n'),
    );
  }
  if (journal.measurements.length) {
    const names = journal.slis.map((s) => s.name);
    const s = journal.summary;
    parts.push(
      '### Measurements',
      ...(journal.events.length ? [] : [clock]),
      // A long run's journal keeps a sample; the judgement above counted every measurement.
      ...(s && s.kept < s.measurements
        ? [
            `${s.kept} of ${s.measurements} measurements: the journal's sample (the first and last of each phase, the rest evenly thinned). The counts above are over all of them.`,
          ]
        : []),
      [
        `| time | phase | requests | ${names.map(cell).join(' | ')} |`,
        `|---|---|---|${names.map(() => '---|').join('')}`,
        ...journal.measurements.map(
          (m) =>
            `| ${when(journal, m.at)} | ${m.phase} | ${m.requests ?? 'n/a'} | ${names.map((n) => measurementCell(m, n, isSettling(journal, m, n))).join(' | ')} |`,
        ),
      ].join('\n'),
    );
  }
  return parts.join('\n\n') + '\n';
}
