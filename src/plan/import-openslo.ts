/**
 * `chaos-gate import <template> --openslo <file>`: the hypothesis and abort rule of a plan from an
 * OpenSLO `openslo/v1` SLO, on top of the fault the FIS template gives. The file may hold several
 * documents: the SLO, the SLI it names by `indicatorRef`, and the DataSource a metric names by
 * `metricSourceRef`. Only Prometheus metric sources are read.
 *
 * - `ratioMetric` (good/total or bad/total): the SLI is the ratio of the two queries, each range
 *   selector (`[5m]`) read as the tick's `$window`; its bound comes from the objective's `target`
 *   (good share ≥ target, or bad share ≤ 1 − target), and the abort rule trips at 14.4 times the
 *   error rate the target allows (the fast-burn rate of multiwindow alerting: 2 % of a 30-day budget in
 *   one hour).
 * - `thresholdMetric`: the SLI is the query; its bound is the objective's `op` and `value`
 *   (lt/lte → max, gt/gte → min), the abort rule at twice the distance from zero (max) or half (min).
 *
 * Every derived number is commented with its source; fields not used (time window, budgeting method,
 * alert policies, further objectives) are named in the plan's header and on stderr.
 */
import type { DocumentOptions, ParsedDocument } from '../files/document.js';
import type { DocumentIssue } from '../files/issue.js';
import { formatDuration } from './duration.js';
import { ImportError } from './import.js';
import { applySections, INTERVAL_COMMENT, SLOTH_PAGE_BURN_RATE, type SloSections } from './import-sloth.js';

type Obj = Record<string, unknown>;

/** Most bytes of an OpenSLO file read. */
export const MAX_OPENSLO_BYTES = 256 * 1024;

export function openSloFile(file: string): DocumentOptions {
  return {
    file,
    what: 'OpenSLO file',
    maxBytes: MAX_OPENSLO_BYTES,
    limitName: 'MAX_OPENSLO_BYTES',
    error: (f, issues) => new ImportError(f, issues),
  };
}

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const num = (v: number): number => Number(v.toPrecision(6));

/** Every PromQL range selector (`[5m]`, `[1h30m]`) as the tick's `$window`. */
export function windowed(query: string): string {
  return query.trim().replaceAll(/\[(?:\d+(?:ms|s|m|h|d|w|y))+\]/g, '[$window]');
}

export interface OpenSloImport {
  slo: string;
  unsupported: string[];
  apply(planText: string): string;
}

export function importOpenSlo(
  docs: readonly ParsedDocument[],
  opts: { slo?: string | undefined; intervalMs: number },
): OpenSloImport {
  const first = docs[0];
  const file = first?.file ?? 'openslo';
  const fail = (doc: ParsedDocument | undefined, field: string, message: string, expected: string): never => {
    const at = doc?.locate(field);
    throw new ImportError(file, [
      {
        file,
        line: at?.line ?? doc?.line ?? 1,
        column: at?.column ?? 1,
        field,
        expected,
        message,
      } satisfies DocumentIssue,
    ]);
  };
  const byKind = (kind: string) =>
    docs.filter((d) => isObj(d.data) && d.data['kind'] === kind && d.data['apiVersion'] === 'openslo/v1');
  const named = (d: ParsedDocument): string =>
    String(((d.data as Obj)['metadata'] as Obj | undefined)?.['name'] ?? '');
  const slos = byKind('SLO');
  if (slos.length === 0)
    fail(first, 'kind', 'the file has no openslo/v1 SLO document', 'apiVersion: openslo/v1 and kind: SLO');
  let sloDoc: ParsedDocument;
  if (opts.slo !== undefined) {
    const found = slos.find((d) => named(d) === opts.slo);
    if (!found)
      return fail(
        first,
        'metadata.name',
        `the file has no SLO named ${opts.slo}`,
        `one of ${slos.map(named).join(', ')}`,
      );
    sloDoc = found;
  } else if (slos.length === 1) sloDoc = slos[0] as ParsedDocument;
  else
    return fail(
      slos[0],
      'metadata.name',
      `the file has ${slos.length} SLOs; choose one with --slo (${slos.map(named).join(', ')})`,
      '--slo <name>',
    );
  const slo = sloDoc.data as Obj;
  const name = named(sloDoc);
  const spec = (slo['spec'] ?? {}) as Obj;
  const unsupported: string[] = [];
  for (const k of ['timeWindow', 'budgetingMethod', 'alertPolicies'])
    if (spec[k] !== undefined) unsupported.push(`spec.${k}`);

  // The indicator: inline, or an SLI document by indicatorRef.
  let indicator = spec['indicator'] as Obj | undefined;
  let indicatorDoc = sloDoc;
  let indicatorPath = 'spec.indicator.spec';
  let indicatorLabel = 'spec.indicator.spec';
  if (!indicator && typeof spec['indicatorRef'] === 'string') {
    const ref = byKind('SLI').find((d) => named(d) === spec['indicatorRef']);
    if (!ref)
      return fail(
        sloDoc,
        'spec.indicatorRef',
        `no SLI document named ${String(spec['indicatorRef'])} in the file`,
        'an SLI of that name beside the SLO',
      );
    indicator = ref.data as Obj;
    indicatorDoc = ref;
    indicatorPath = 'spec';
    indicatorLabel = `SLI ${named(ref)} spec`;
  }
  if (!indicator)
    return fail(
      sloDoc,
      'spec',
      'the SLO has no indicator or indicatorRef',
      'spec.indicator or spec.indicatorRef',
    );
  const ind = (indicator['spec'] ?? {}) as Obj;

  const query = (metric: unknown, path: string): string => {
    const m = (isObj(metric) ? metric['metricSource'] : undefined) as Obj | undefined;
    if (!m)
      return fail(indicatorDoc, path, 'no metricSource', 'metricSource with type Prometheus and spec.query');
    const type = m['type'];
    const ref = m['metricSourceRef'];
    if (type === undefined && typeof ref === 'string') {
      const ds = byKind('DataSource').find((d) => named(d) === ref);
      if (!ds)
        return fail(
          indicatorDoc,
          `${path}.metricSource.metricSourceRef`,
          `no DataSource named ${ref} in the file`,
          'a Prometheus DataSource of that name',
        );
      const dsType = ((ds.data as Obj)['spec'] as Obj | undefined)?.['type'];
      if (dsType !== 'Prometheus')
        return fail(
          ds,
          'spec.type',
          `DataSource ${ref} is ${JSON.stringify(dsType)}; chaos-gate imports Prometheus sources`,
          'type: Prometheus',
        );
    } else if (type !== 'Prometheus')
      return fail(
        indicatorDoc,
        `${path}.metricSource.type`,
        `the metric source is ${JSON.stringify(type)}; chaos-gate imports Prometheus sources`,
        'type: Prometheus (or a metricSourceRef to a Prometheus DataSource)',
      );
    const q = (m['spec'] as Obj | undefined)?.['query'];
    if (typeof q !== 'string' || q.trim() === '')
      return fail(
        indicatorDoc,
        `${path}.metricSource.spec.query`,
        'the metric source has no query',
        'spec.query: <PromQL>',
      );
    return windowed(q);
  };

  const objectives = (spec['objectives'] ?? []) as Obj[];
  const objective = objectives[0];
  if (!isObj(objective))
    return fail(sloDoc, 'spec.objectives', 'the SLO has no objectives', 'objectives: [{target: 0.999, …}]');
  if (objectives.length > 1)
    unsupported.push(`spec.objectives[1..${objectives.length - 1}] (only the first is imported)`);
  for (const k of Object.keys(objective))
    if (!['displayName', 'target', 'op', 'value', 'targetPercent'].includes(k))
      unsupported.push(`spec.objectives[0].${k}`);
  const target =
    typeof objective['target'] === 'number'
      ? objective['target']
      : typeof objective['targetPercent'] === 'number'
        ? objective['targetPercent'] / 100
        : NaN;

  const interval = formatDuration(opts.intervalMs);
  const sliName = name.replace(/[^A-Za-z0-9_]/g, '_').replace(/^(?=\d)/, 'slo_');
  const comments: SloSections['comments'] = [
    [
      ['hypothesis'],
      `From OpenSLO SLO ${name} (${file}): its indicator, read over each tick's window.`,
      true,
    ],
    [['hypothesis', 'interval'], INTERVAL_COMMENT],
    [['hypothesis', 'steadyState', 'duration'], '4 intervals'],
    [['hypothesis', 'recovery', 'within'], '6 intervals'],
    [['abort', 'rules', 0, 'for'], '2 intervals'],
  ];
  let sli: Obj;
  let rule: Obj;
  const ratio = ind['ratioMetric'] as Obj | undefined;
  const threshold = ind['thresholdMetric'] as Obj | undefined;
  if (ratio) {
    if (!(target > 0 && target < 1))
      return fail(
        sloDoc,
        'spec.objectives[0].target',
        'the objective has no target between 0 and 1',
        'target: 0.999',
      );
    if (ratio['raw'] !== undefined)
      return fail(
        indicatorDoc,
        `${indicatorPath}.ratioMetric.raw`,
        'a raw ratio has no total to count requests by',
        'ratioMetric with good or bad, and total',
      );
    const total = query(ratio['total'], `${indicatorPath}.ratioMetric.total`);
    const errorRate = num(1 - target);
    const abortRate = num(Math.min(1, SLOTH_PAGE_BURN_RATE * errorRate));
    if (ratio['good'] !== undefined) {
      const good = query(ratio['good'], `${indicatorPath}.ratioMetric.good`);
      sli = {
        name: `${sliName}_good_ratio`,
        prometheus: `(${good})\n/\n(${total})`,
        min: num(target),
        steady: { min: num(target) },
      };
      rule = { sli: sli['name'], below: num(1 - abortRate), for: formatDuration(opts.intervalMs * 2) };
      comments.push(
        [
          ['hypothesis', 'slis', 0, 'prometheus'],
          `good / total of ${indicatorLabel}.ratioMetric, ranges → $window`,
        ],
        [['hypothesis', 'slis', 0, 'min'], `objective target ${target} (spec.objectives[0].target)`],
        [['hypothesis', 'slis', 0, 'steady', 'min'], 'the same bound before the fault'],
        [
          ['abort', 'rules', 0, 'below'],
          `1 − ${SLOTH_PAGE_BURN_RATE} × ${errorRate}: the fast-burn rate (2 % of a 30-day budget in 1 h)`,
        ],
      );
    } else if (ratio['bad'] !== undefined) {
      const bad = query(ratio['bad'], `${indicatorPath}.ratioMetric.bad`);
      sli = {
        name: `${sliName}_error_ratio`,
        prometheus: `(${bad})\n/\n(${total})`,
        max: errorRate,
        steady: { max: errorRate },
      };
      rule = { sli: sli['name'], above: abortRate, for: formatDuration(opts.intervalMs * 2) };
      comments.push(
        [
          ['hypothesis', 'slis', 0, 'prometheus'],
          `bad / total of ${indicatorLabel}.ratioMetric, ranges → $window`,
        ],
        [['hypothesis', 'slis', 0, 'max'], `1 − objective target ${target} (spec.objectives[0].target)`],
        [['hypothesis', 'slis', 0, 'steady', 'max'], 'the same bound before the fault'],
        [
          ['abort', 'rules', 0, 'above'],
          `${SLOTH_PAGE_BURN_RATE} × ${errorRate}: the fast-burn rate (2 % of a 30-day budget in 1 h)`,
        ],
      );
    } else
      return fail(
        indicatorDoc,
        `${indicatorPath}.ratioMetric`,
        'the ratio has neither good nor bad',
        'good or bad, and total',
      );
    if (ratio['counter'] === false)
      unsupported.push(`${indicatorPath}.ratioMetric.counter: false (the queries are used as written)`);
  } else if (threshold) {
    const q = query(threshold, `${indicatorPath}.thresholdMetric`);
    const op = objective['op'];
    const value = objective['value'];
    if (typeof value !== 'number' || !['lt', 'lte', 'gt', 'gte'].includes(String(op)))
      return fail(
        sloDoc,
        'spec.objectives[0]',
        'a threshold objective needs op and value',
        'op: lt|lte|gt|gte and value: <number>',
      );
    const upper = op === 'lt' || op === 'lte';
    sli = { name: sliName, prometheus: q, [upper ? 'max' : 'min']: value };
    rule = upper
      ? { sli: sliName, above: num(value * 2), for: formatDuration(opts.intervalMs * 2) }
      : { sli: sliName, below: num(value / 2), for: formatDuration(opts.intervalMs * 2) };
    comments.push(
      [['hypothesis', 'slis', 0, 'prometheus'], `${indicatorLabel}.thresholdMetric, ranges → $window`],
      [
        ['hypothesis', 'slis', 0, upper ? 'max' : 'min'],
        `objective ${String(op)} ${value} (spec.objectives[0])`,
      ],
      [
        ['abort', 'rules', 0, upper ? 'above' : 'below'],
        upper ? `twice the objective's value` : `half the objective's value`,
      ],
    );
    if (Number.isFinite(target))
      unsupported.push(
        `spec.objectives[0].target ${target} (a share of good time slices; each tick is held to the value)`,
      );
  } else
    return fail(
      indicatorDoc,
      indicatorPath,
      'the indicator has neither ratioMetric nor thresholdMetric',
      'ratioMetric or thresholdMetric',
    );

  const service = typeof spec['service'] === 'string' ? spec['service'] : undefined;
  return {
    slo: name,
    unsupported,
    apply(planText) {
      return applySections(planText, {
        service,
        sections: {
          hypothesis: {
            interval,
            slis: [sli],
            steadyState: { duration: formatDuration(opts.intervalMs * 4) },
            recovery: { within: formatDuration(opts.intervalMs * 6) },
          },
          abort: { rules: [rule], blindAfter: 3 },
        },
        comments: service ? [[['service'], `spec.service of ${file}`], ...comments] : comments,
        header: ` hypothesis and abort from OpenSLO SLO ${name} (${file}); no budget: OpenSLO keeps none chaos-gate can read.`,
        unsupported,
        what: 'the OpenSLO file',
      });
    },
  };
}
