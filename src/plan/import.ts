/**
 * `chaos-gate import`: a plan from an existing FIS experiment template. The template becomes the plan's
 * `fis:` section field for field (description, role, targets, actions, stop conditions, tags, log and
 * report configurations, experiment options, target accounts); chaos-gate's own bookkeeping — its
 * `chaos-gate:*` tags, its lease and kill-switch alarms — is left out, because a run adds it again.
 * A template says nothing about the service's hypothesis or its tripwires, so those sections are written
 * with `<fill in: …>` placeholders that `validate` refuses by name until the author replaces them.
 *
 * Pure: the CLI reads the template (from FIS by id, or from a saved file) and writes the text.
 */
import { Document, type Node as YamlNode } from 'yaml';
import {
  DocumentError,
  formatPath,
  locateField,
  parseYamlDocument,
  valueAt,
  type DocumentIssue,
  type DocumentOptions,
  type ParsedDocument,
  type Position,
} from '../files/document.js';
import { describeIssue } from '../files/validate.js';
import { Fis } from './fis.js';
import { formatDuration, parseIsoDuration } from './duration.js';
import { placeholder, placeholderFields } from './placeholders.js';

/** A template as FIS returns it (GetExperimentTemplate) or takes it (CreateExperimentTemplate input). */
export interface TemplateInput {
  id?: string | undefined;
  description?: string | undefined;
  roleArn?: string | undefined;
  targets?: Record<string, unknown> | undefined;
  actions?: Record<string, unknown> | undefined;
  stopConditions?: { source?: string | undefined; value?: string | undefined }[] | undefined;
  tags?: Record<string, string> | undefined;
  logConfiguration?: unknown;
  experimentOptions?: unknown;
  experimentReportConfiguration?: unknown;
  targetAccountConfigurations?:
    | { accountId?: string | undefined; roleArn?: string | undefined; description?: string | undefined }[]
    | undefined;
}

/** Where the template came from, for the plan's header and messages. */
export interface ImportSource {
  /** `FIS template EXT… (us-east-1)` or `template.json`. */
  label: string;
  templateId?: string | undefined;
}

/** Largest template file read: a 20-action template (the FIS maximum) is a few tens of KiB. */
export const MAX_TEMPLATE_BYTES = 256 * 1024;

/** Thrown when the input is not a template; every issue names file:line:col, the field, the value and what is expected. */
export class ImportError extends DocumentError {
  override name = 'ImportError';
  constructor(file: string, issues: DocumentIssue[]) {
    super(file, issues, 'FIS experiment template');
  }
}

/** chaos-gate's own alarms, added to every template it writes and added again by every run. */
const OWN_ALARM = /:alarm:chaos-gate-(lease-.+|kill-switch)$/;
/** Template fields the plan carries (the rest of a GetExperimentTemplate answer is FIS's bookkeeping). */
const FIELDS = [
  'description',
  'roleArn',
  'targets',
  'actions',
  'stopConditions',
  'tags',
  'logConfiguration',
  'experimentOptions',
  'experimentReportConfiguration',
  'targetAccountConfigurations',
] as const;

/** The plan's `fis:` section for a template (not yet validated). */
export function fisSectionOf(t: TemplateInput): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of FIELDS) {
    const v = t[f];
    if (v === undefined || v === null) continue;
    out[f] = structuredClone(v);
  }
  out.targets ??= {};
  const tags = Object.fromEntries(Object.entries(t.tags ?? {}).filter(([k]) => !k.startsWith('chaos-gate:')));
  if (Object.keys(tags).length) out.tags = tags;
  else delete out.tags;
  out.stopConditions = (t.stopConditions ?? [])
    .filter((s) => !(s.source === 'aws:cloudwatch:alarm' && s.value && OWN_ALARM.test(s.value)))
    .map((s) => ({ source: s.source, ...(s.value !== undefined ? { value: s.value } : {}) }));
  if ((t.stopConditions ?? []).length > 0 && (out.stopConditions as unknown[]).length === 0)
    out.stopConditions = [{ source: 'none' }];
  if (!(out.stopConditions as unknown[]).length) delete out.stopConditions;
  const accounts = (t.targetAccountConfigurations ?? []).map((a) => ({
    accountId: a.accountId,
    roleArn: a.roleArn,
    ...(a.description ? { description: a.description } : {}),
  }));
  if (accounts.length) out.targetAccountConfigurations = accounts;
  else delete out.targetAccountConfigurations;
  return out;
}

function slug(text: string): string {
  const s = text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 63)
    .replace(/-+$/, '');
  if (s === '') return '';
  return /^[a-z0-9]/.test(s) ? s : `fis-${s}`.slice(0, 63);
}

/**
 * The plan id: `--id`, else the first of the template's `chaos-gate:plan` tag, `Name` tag, description
 * and id that leaves a slug (a description in another script leaves none), else `imported-fis-template`.
 */
export function planIdFor(t: TemplateInput, explicit?: string): string {
  if (explicit) return explicit;
  const tags = t.tags ?? {};
  for (const text of [tags['chaos-gate:plan'], tags.Name, t.description, t.id]) {
    const id = text === undefined ? '' : slug(text);
    if (id !== '') return id;
  }
  return 'imported-fis-template';
}

/** Limits that let the template's own selection and durations through: the author reviews them. */
function blastRadiusFor(fis: Fis): Record<string, unknown> {
  let maxTargets = 1;
  let maxPercent = 0;
  for (const t of Object.values(fis.targets)) {
    const count = /^COUNT\((\d+)\)$/.exec(t.selectionMode);
    const percent = /^PERCENT\((\d+)\)$/.exec(t.selectionMode);
    if (count) maxTargets = Math.max(maxTargets, Number(count[1]));
    else if (t.selectionMode === 'ALL') {
      maxTargets = Math.max(maxTargets, t.resourceArns?.length ?? 1);
      maxPercent = 100;
    } else if (percent) maxPercent = Math.max(maxPercent, Number(percent[1]));
  }
  let longest = 60_000;
  for (const a of Object.values(fis.actions))
    for (const [k, v] of Object.entries(a.parameters ?? {}))
      if (/duration/i.test(k)) longest = Math.max(longest, parseIsoDuration(v) ?? 0);
  const chain = Object.keys(fis.actions).length * longest;
  const run = Math.max(15 * 60_000, 5 * 60_000 + chain + 2 * 60_000);
  return {
    maxTargets,
    ...(maxPercent > 0 && maxPercent < 100 ? { maxPercent } : {}),
    maxActionDuration: formatDuration(Math.ceil(longest / 60_000) * 60_000),
    maxRunDuration: formatDuration(Math.ceil(run / 60_000) * 60_000),
  };
}

/**
 * The plan text for a template. Throws {@link ImportError} when the template is not one FIS would take,
 * with positions in `sourceText` (the saved file) when there is one.
 */
export function planFromTemplate(
  t: TemplateInput,
  source: ImportSource,
  opts: {
    id?: string | undefined;
    file?: string | undefined;
    sourceText?: string | undefined;
    fieldPrefix?: (string | number)[];
  } = {},
): { text: string; planId: string; placeholders: number } {
  const section = fisSectionOf(t);
  const parsed = Fis.safeParse(section);
  if (!parsed.success) {
    const file = opts.file ?? source.label;
    const issues = parsed.error.issues.map((issue): DocumentIssue => {
      const path = issue.path.map((p) => (typeof p === 'number' ? p : String(p)));
      const where = opts.sourceText
        ? locateField(opts.sourceText, [...(opts.fieldPrefix ?? []), ...path])
        : undefined;
      const value = valueAt(section, path);
      const { expected, message } = describeIssue(issue, value, path, Fis, {
        noun: 'FIS experiment template',
      });
      return {
        file,
        line: where?.line ?? 1,
        column: where?.column ?? 1,
        field: formatPath([...(opts.fieldPrefix ?? []), ...path]),
        ...(value === undefined ? {} : { value }),
        expected,
        message,
      };
    });
    throw new ImportError(file, issues);
  }
  const planId = planIdFor(t, opts.id);
  const tags = parsed.data.tags ?? {};
  const environment = tags.Environment ?? tags.environment;
  const plan = {
    version: 1,
    id: planId,
    title: t.description ?? `FIS template ${source.templateId ?? planId}`,
    service: tags.Service ?? tags.service ?? placeholder('the service this experiment puts at risk'),
    environment: environment ?? placeholder('the environment the targets are in, e.g. staging'),
    owner: tags.Owner ?? tags.Team ?? placeholder('the team that owns this experiment'),
    hypothesis: {
      interval: '1s',
      minRequests: 100,
      slis: [
        {
          name: 'error_ratio',
          prometheus: placeholder(
            'PromQL of the share of failed requests over $window, e.g. sum(rate(http_requests_total{status=~"5.."}[$window])) / sum(rate(http_requests_total[$window])) — or a cloudwatch: source instead',
          ),
          max: 0.01,
          steady: { max: 0.001 },
        },
      ],
      steadyState: { duration: '5m' },
      recovery: { within: '2m' },
    },
    abort: {
      rules: [
        {
          sli: placeholder(
            'the SLI whose breach stops the experiment (error_ratio above), with its threshold and for',
          ),
          above: 0.05,
          for: '10s',
        },
      ],
    },
    blastRadius: blastRadiusFor(parsed.data),
    fis: section,
  };
  const doc = new Document(plan);
  const fis = doc.get('fis', true) as YamlNode | undefined;
  if (fis)
    fis.commentBefore = ` ${source.label}, as FIS holds it. chaos-gate adds its lease and kill-switch alarms as stop conditions.`;
  const hypothesis = doc.get('hypothesis', true) as YamlNode | undefined;
  if (hypothesis)
    hypothesis.commentBefore =
      ' What must stay true while the fault is on: an FIS template does not say, so fill in every <fill in: …>.';
  const radius = doc.get('blastRadius', true) as YamlNode | undefined;
  if (radius)
    radius.commentBefore =
      ' Ceilings wide enough for the template as it is: narrow them to what you mean to risk.';
  doc.commentBefore = [
    ` Written by chaos-gate import from ${source.label}.`,
    ' `chaos-gate validate` refuses this plan until every "<fill in: …>" placeholder is replaced.',
  ].join('\n');
  const text = doc.toString({ lineWidth: 0 });
  const placeholders = placeholderFields(plan).length;
  return { text, planId, placeholders };
}

/**
 * Reads a saved template file: the output of `aws fis get-experiment-template` (`{"experimentTemplate":
 * {…}}`) or a CreateExperimentTemplate input (`aws fis create-experiment-template --cli-input-json`), JSON
 * or YAML. A `targetAccountConfigurations` list beside it (as `aws fis list-target-account-configurations`
 * prints it) is taken too. Positions of problems point into the file.
 */
export function readTemplateFile(
  text: string,
  file: string,
): { template: TemplateInput; fieldPrefix: (string | number)[] } {
  return templateFromDocument(parseYamlDocument(text, templateFile(file)));
}

/** How the one loader reads a saved template named `file`. */
export function templateFile(file: string): DocumentOptions {
  return {
    file,
    what: 'template file',
    maxBytes: MAX_TEMPLATE_BYTES,
    limitName: 'MAX_TEMPLATE_BYTES',
    error: (f, issues) => new ImportError(f, issues),
  };
}

/** {@link readTemplateFile} for a document the one loader already parsed. */
export function templateFromDocument(doc: ParsedDocument): {
  template: TemplateInput;
  fieldPrefix: (string | number)[];
} {
  const file = doc.file;
  const fail = (message: string, at: Position = { line: 1, column: 1 }): never => {
    throw new ImportError(file, [
      { file, ...at, field: '', expected: 'an FIS experiment template', message },
    ]);
  };
  const data = doc.data;
  if (!isRecord(data))
    return fail(
      'expected an object: the output of aws fis get-experiment-template or a CreateExperimentTemplate input',
    );
  const wrapped = data.experimentTemplate !== undefined;
  const template = wrapped ? data.experimentTemplate : data;
  if (!isRecord(template))
    return fail('experimentTemplate is not an object', doc.locate(['experimentTemplate']));
  const fieldPrefix = wrapped ? ['experimentTemplate'] : [];
  const known = new Set<string>([
    ...FIELDS,
    'id',
    'arn',
    'clientToken',
    'creationTime',
    'lastUpdateTime',
    'targetAccountConfigurationsCount',
  ]);
  for (const key of Object.keys(template)) {
    if (!known.has(key))
      fail(
        `unknown field ${key}; expected the fields of an FIS experiment template: ${FIELDS.join(', ')}`,
        doc.locateKey([...fieldPrefix, key]),
      );
  }
  const accounts = (template.targetAccountConfigurations ??
    data.targetAccountConfigurations) as TemplateInput['targetAccountConfigurations'];
  return {
    template: {
      ...(template as TemplateInput),
      ...(accounts ? { targetAccountConfigurations: accounts } : {}),
    },
    fieldPrefix,
  };
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}
