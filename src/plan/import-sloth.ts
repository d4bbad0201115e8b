/**
 * `chaos-gate import <template> --sloth <spec>`: the hypothesis, abort rule and budget of a plan from one
 * SLO of a Sloth `prometheus/v1` spec, on top of the plan the FIS template gives (the fault).
 *
 * - The SLI is the SLO's own indicator, `(error_query) / (total_query)` with Sloth's `{{.window}}` read
 *   as chaos-gate's `$window` — the tick's short window, not a 5-minute recording rule the tripwire
 *   would have to wait for.
 * - Its bound is the objective's error rate, 1 − objective: during the fault the service must not spend
 *   budget faster than its SLO allows over the whole period.
 * - The abort rule trips at 14.4 times that rate, the burn rate at which Sloth's page alert fires (2 %
 *   of a 30-day budget in one hour), capped at 1.
 * - The budget is read from Sloth's own series (`budget.from.sloth`); `budget.total` converts the rate
 *   query to events over Sloth's default 30-day period.
 *
 * Every derived number carries a comment naming its source. Spec fields chaos-gate does not use are
 * named in the plan's header and returned, never dropped silently.
 */
import { isScalar, parseDocument, type Node as YamlNode } from 'yaml';
import type { DocumentOptions, ParsedDocument } from '../files/document.js';
import type { DocumentIssue } from '../files/issue.js';
import { formatDuration } from './duration.js';
import { ImportError } from './import.js';
import { placeholderFields } from './placeholders.js';

/** Most bytes of a Sloth spec read. */
export const MAX_SLOTH_SPEC_BYTES = 256 * 1024;

/** The burn rate of Sloth's default page alert (its multiwindow alerts: 14.4 over 1 h and 5 m). */
export const SLOTH_PAGE_BURN_RATE = 14.4;
/** Sloth's default SLO period when the spec names none (its `--default-slo-period`). */
export const SLOTH_DEFAULT_PERIOD_DAYS = 30;

export function slothFile(file: string): DocumentOptions {
  return {
    file,
    what: 'Sloth spec',
    maxBytes: MAX_SLOTH_SPEC_BYTES,
    limitName: 'MAX_SLOTH_SPEC_BYTES',
    error: (f, issues) => new ImportError(f, issues),
  };
}

/** The plan sections one SLO of the spec gives, with their comments, and what the spec held unused. */
export interface SlothImport {
  service: string;
  slo: string;
  owner?: string | undefined;
  /** `slos[1].alerting`, …: fields read from the spec that the plan does not use. */
  unsupported: string[];
  /** Applies the sections to a plan document written by `planFromTemplate`. */
  apply(planText: string): string;
}

const SPEC_FIELDS = new Set(['version', 'service', 'labels', 'slos']);
const SLO_FIELDS = new Set(['name', 'objective', 'description', 'sli', 'labels', 'alerting', 'id']);

/** A PromQL identifier from an SLO name: `requests-availability` → `requests_availability`. */
function identifierOf(name: string): string {
  const id = name.replace(/[^A-Za-z0-9_]/g, '_');
  return /^[A-Za-z_]/.test(id) ? id : `slo_${id}`;
}

/** A number as the plan writes it: at most 6 significant digits. */
function num(v: number): number {
  return Number(v.toPrecision(6));
}

/**
 * Reads one SLO of a Sloth spec (`slo`, or the only one). Throws {@link ImportError} naming the file,
 * line and field when the spec is not one Sloth would take or the SLO cannot be imported.
 */
export function importSloth(
  doc: ParsedDocument,
  opts: { slo?: string | undefined; intervalMs: number },
): SlothImport {
  const file = doc.file;
  const issue = (field: string, message: string, expected: string, value?: unknown): ImportError => {
    const at = doc.locate(field);
    return new ImportError(file, [
      {
        file,
        line: at?.line ?? doc.line,
        column: at?.column ?? 1,
        field,
        ...(value === undefined ? {} : { value }),
        expected,
        message,
      } satisfies DocumentIssue,
    ]);
  };
  const spec = doc.data as Record<string, unknown> | null;
  if (!spec || typeof spec !== 'object' || Array.isArray(spec))
    throw issue('', 'the Sloth spec is not a mapping', 'a Sloth prometheus/v1 spec');
  if (spec['version'] !== 'prometheus/v1')
    throw issue(
      'version',
      `version ${JSON.stringify(spec['version'])} is not a Sloth spec chaos-gate reads`,
      'version: prometheus/v1 (Sloth Kubernetes CRDs and OpenSLO files are not read by --sloth)',
      spec['version'],
    );
  const service = spec['service'];
  if (typeof service !== 'string' || service === '')
    throw issue('service', 'the Sloth spec has no service', 'service: <name>', service);
  const slos = spec['slos'];
  if (!Array.isArray(slos) || slos.length === 0)
    throw issue('slos', 'the Sloth spec has no slos', 'slos: a list of at least one SLO');
  const names = slos.map((s) => String((s as Record<string, unknown> | null)?.['name'] ?? ''));
  let index: number;
  if (opts.slo !== undefined) {
    index = names.indexOf(opts.slo);
    if (index < 0)
      throw issue(
        'slos',
        `the Sloth spec has no SLO named ${opts.slo}`,
        `one of ${names.join(', ')}`,
        opts.slo,
      );
  } else if (slos.length === 1) index = 0;
  else
    throw issue(
      'slos',
      `the Sloth spec has ${slos.length} SLOs; choose one with --slo (${names.join(', ')})`,
      `--slo ${names.join(' | ')}`,
    );
  const at = `slos[${index}]`;
  const slo = slos[index] as Record<string, unknown>;
  const name = names[index] as string;
  const objectivePct = slo['objective'];
  if (typeof objectivePct !== 'number' || !(objectivePct > 0 && objectivePct < 100))
    throw issue(
      `${at}.objective`,
      'the SLO has no objective between 0 and 100',
      'a percentage such as 99.9',
      objectivePct,
    );
  const sli = (slo['sli'] ?? {}) as Record<string, unknown>;
  const events = sli['events'] as Record<string, unknown> | undefined;
  const errorQuery = events?.['error_query'];
  const totalQuery = events?.['total_query'];
  if (typeof errorQuery !== 'string' || typeof totalQuery !== 'string') {
    const kind = Object.keys(sli).join(', ') || 'none';
    throw issue(
      `${at}.sli`,
      `the SLO's indicator is ${kind}; chaos-gate imports event SLIs only`,
      'sli.events with error_query and total_query (a raw error_ratio_query or a plugin has no total to count requests by)',
    );
  }

  const unsupported: string[] = [];
  for (const k of Object.keys(spec)) if (!SPEC_FIELDS.has(k)) unsupported.push(k);
  for (const k of Object.keys(slo)) if (!SLO_FIELDS.has(k)) unsupported.push(`${at}.${k}`);
  if (slo['alerting'] !== undefined)
    unsupported.push(
      `${at}.alerting (Sloth's alerts are not imported; abort.alerts can watch them in Alertmanager)`,
    );
  for (const k of Object.keys(events ?? {}))
    if (k !== 'error_query' && k !== 'total_query') unsupported.push(`${at}.sli.events.${k}`);

  const window = (q: string): string => q.trim().replaceAll(/\{\{\s*\.window\s*\}\}/g, '$window');
  const error = window(errorQuery);
  const total = window(totalQuery);
  const objective = num(objectivePct / 100);
  const budgetRate = num(1 - objective);
  const abortAt = num(Math.min(1, SLOTH_PAGE_BURN_RATE * budgetRate));
  const sliName = `${identifierOf(name)}_error_ratio`;
  const intervalS = opts.intervalMs / 1000;
  const periodS = SLOTH_DEFAULT_PERIOD_DAYS * 86_400;
  const labels = (spec['labels'] ?? {}) as Record<string, unknown>;
  const owner = typeof labels['owner'] === 'string' ? labels['owner'] : undefined;
  const source = `${file} ${at}`;

  const hypothesis = {
    interval: formatDuration(opts.intervalMs),
    requests: { prometheus: `(${total}) * ${num(intervalS)}` },
    slis: [
      {
        name: sliName,
        description:
          typeof slo['description'] === 'string' ? slo['description'] : `Sloth SLO ${service}/${name}`,
        prometheus: `(${error})\n/\n(${total})`,
        max: budgetRate,
        steady: { max: budgetRate },
      },
    ],
    steadyState: { duration: formatDuration(opts.intervalMs * 4) },
    recovery: { within: formatDuration(opts.intervalMs * 6) },
  };
  const abort = {
    rules: [{ sli: sliName, above: abortAt, for: formatDuration(opts.intervalMs * 2) }],
    blindAfter: 3,
  };
  const budget = {
    from: { sloth: { service, slo: name } },
    total: { prometheus: `(${total}) * ${periodS}` },
    damage: { sli: sliName, kind: 'error-ratio' },
  };

  return {
    service,
    slo: name,
    owner,
    unsupported,
    apply(planText) {
      return applySections(planText, {
        service,
        owner,
        sections: { hypothesis, abort, budget },
        comments: [
          [['service'], `sloth_service of ${file}`],
          [
            ['hypothesis'],
            `From Sloth SLO ${service}/${name} (${source}): its SLI, read over each tick's window.`,
            true,
          ],
          [['hypothesis', 'interval'], INTERVAL_COMMENT],
          [
            ['hypothesis', 'requests', 'prometheus'],
            `total_query (a rate) × the ${num(intervalS)} s window: requests per tick`,
          ],
          [
            ['hypothesis', 'slis', 0, 'prometheus'],
            `error_query / total_query of ${at}, {{.window}} → $window`,
          ],
          [
            ['hypothesis', 'slis', 0, 'max'],
            `1 − objective ${objectivePct} % (${at}.objective): the error rate that spends the budget exactly over the period`,
          ],
          [['hypothesis', 'slis', 0, 'steady', 'max'], 'the same bound before the fault'],
          [['hypothesis', 'steadyState', 'duration'], '4 intervals'],
          [['hypothesis', 'recovery', 'within'], '6 intervals'],
          [
            ['abort', 'rules', 0, 'above'],
            `${SLOTH_PAGE_BURN_RATE} × ${budgetRate}: the burn rate of Sloth's page alert (2 % of a 30-day budget in 1 h)${abortAt === 1 ? ', capped at 1' : ''}`,
          ],
          [['abort', 'rules', 0, 'for'], '2 intervals'],
          [['budget', 'from'], `Sloth's series for sloth_service ${service}, sloth_slo ${name}`, true],
          [
            ['budget', 'total', 'prometheus'],
            `total_query (a rate) × ${periodS} s: events over Sloth's default ${SLOTH_DEFAULT_PERIOD_DAYS}-day period`,
          ],
          [['budget', 'damage'], 'the imported SLI is an error ratio', true],
        ],
        header: ` hypothesis, abort and budget from Sloth SLO ${service}/${name} (${file}).`,
        unsupported,
        what: 'the spec',
      });
    },
  };
}

/** What an SLO importer puts into the plan the FIS template gave. */
export interface SloSections {
  /** The service the SLO names; absent, the template import's stays. */
  service?: string | undefined;
  owner?: string | undefined;
  /** Top-level sections that replace the template import's (hypothesis, abort, budget). */
  sections: Record<string, unknown>;
  /** [path, comment, before?]: a trailing comment, or one above the node. */
  comments: [(string | number)[], string, boolean?][];
  header: string;
  unsupported: readonly string[];
  /** `the spec`, `the OpenSLO file`: where the unimported fields were. */
  what: string;
}

export const INTERVAL_COMMENT =
  "the window every SLI is read over ($window); it must hold two scrapes of the service's Prometheus (--interval)";

/** Writes `s` into the plan text `planFromTemplate` wrote, keeping its comments. */
export function applySections(planText: string, s: SloSections): string {
  const doc = parseDocument(planText);
  if (s.service !== undefined) doc.set('service', s.service);
  if (s.owner !== undefined && isPlaceholderNode(doc.get('owner', true))) doc.set('owner', s.owner);
  for (const [key, value] of Object.entries(s.sections)) doc.set(key, doc.createNode(value));
  for (const [path, text, before] of s.comments) {
    const node = doc.getIn(path, true) as YamlNode | undefined;
    if (!node) continue;
    if (before) node.commentBefore = ` ${text}`;
    else node.comment = ` ${text}`;
  }
  // The template import's "fill in every placeholder" line, once there is none left to fill.
  const left = placeholderFields(doc.toJS()).length;
  const kept = (doc.commentBefore ?? '')
    .split('\n')
    .filter((l) => left > 0 || !l.includes('placeholder is replaced'));
  const header = [
    ...kept,
    s.header,
    s.unsupported.length > 0
      ? ` Not imported from ${s.what}: ${s.unsupported.join('; ')}.`
      : ` Every field of ${s.what} was used.`,
  ];
  doc.commentBefore = header.filter((l) => l !== '').join('\n');
  return doc.toString({ lineWidth: 0 });
}

function isPlaceholderNode(node: unknown): boolean {
  return isScalar(node) && typeof node.value === 'string' && node.value.startsWith('<fill in: ');
}
