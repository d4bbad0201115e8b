/**
 * `chaos-gate import <template-id | file> [--out plan.yaml]`: a plan from an FIS experiment template,
 * read from FIS by id or from a saved file (`aws fis get-experiment-template` output or a
 * CreateExperimentTemplate input). The plan's `fis:` section is the template; its hypothesis and abort
 * sections are placeholders `validate` refuses until they are filled in.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { formatIssue, parseYamlStream } from '../../files/document.js';
import { loadYamlDocument, readIssue } from '../../files/load.js';
import { FileReadError, readFileBounded } from '../../files/read.js';
import { importOpenSlo, openSloFile } from '../../plan/import-openslo.js';
import {
  ImportError,
  planFromTemplate,
  templateFile,
  templateFromDocument,
  type TemplateInput,
} from '../../plan/import.js';
import { confinedOutputPath, parseFlags, UsageError, writeCliOutput, type CliCommand } from '../command.js';
import { exitCodesHelp } from '../exit-codes.js';
import { importSloth, slothFile } from '../../plan/import-sloth.js';
import { parseDuration } from '../../plan/duration.js';
import { placeholderFields } from '../../plan/placeholders.js';
import { parse as parseYaml } from 'yaml';

/** Unreadable input or a template FIS does not have (docs/design/verdicts.md). */
const EXIT_BAD_INPUT = 2;

const usage = `Usage: chaos-gate import <template-id | file> [--out <plan.yaml>] [--id <slug>] [--force]
       [--aws-region <region>] [--sloth <spec.yaml> | --openslo <file>] [--slo <name>]
       [--interval <duration>]

Writes a plan from an existing FIS experiment template: from FIS by id (EXT…, through the standard AWS
credential chain; AWS_ENDPOINT_URL reaches the sandbox), or from a saved file — the output of
'aws fis get-experiment-template' or a CreateExperimentTemplate input (--cli-input-json), JSON or YAML.
The plan's fis: section is the template, every field; chaos-gate's own tags and alarms are left out.
The hypothesis and abort sections are "<fill in: …>" placeholders: 'chaos-gate validate' refuses the
plan, naming each one, until you replace them.

Options:
  --out <file>           write the plan there (default: print it)
  --id <slug>            the plan id (default: the template's chaos-gate:plan or Name tag, or its description)
  --force                overwrite --out when it exists
  --aws-region <region>  the Region of the template (default AWS_REGION)
  --sloth <spec.yaml>    take the hypothesis, abort rule and budget from an SLO of a Sloth prometheus/v1
                         spec instead of placeholders (docs/slos.md); every derived number is commented
  --openslo <file>       the same from an OpenSLO openslo/v1 SLO (with its SLI and DataSource documents;
                         Prometheus sources), without a budget
  --slo <name>           which SLO of the spec or file (needed when it has several)
  --interval <duration>  the window the imported SLI is read over (default 30s: two scrapes at 15 s)
  -h, --help             show this help

${exitCodesHelp('import')}`;

export const importCommand: CliCommand = {
  name: 'import',
  usage,
  async run(argv, io) {
    const parsed = parseFlags(argv, {
      out: { type: 'string' },
      id: { type: 'string' },
      force: { type: 'boolean', default: false },
      'aws-region': { type: 'string' },
      sloth: { type: 'string' },
      openslo: { type: 'string' },
      slo: { type: 'string' },
      interval: { type: 'string' },
    });
    const [source, ...extra] = parsed.positionals;
    if (source === undefined) throw new UsageError('missing the template id or file argument');
    if (extra.length > 0)
      throw new UsageError(`expected one template id or file, got also: ${extra.join(' ')}`);
    const v = parsed.values;
    if (v.id !== undefined && !/^[a-z0-9][a-z0-9-]{0,62}$/.test(v.id))
      throw new UsageError(
        `--id ${v.id}: expected a slug (lowercase letters, digits and dashes, at most 63)`,
      );
    if (v.sloth !== undefined && v.openslo !== undefined)
      throw new UsageError('give --sloth or --openslo, not both');
    if (v.sloth === undefined && v.openslo === undefined && (v.slo !== undefined || v.interval !== undefined))
      throw new UsageError('--slo and --interval go with --sloth <spec.yaml> or --openslo <file>');
    const intervalMs = parseDuration(v.interval ?? '30s');
    if (intervalMs === undefined || intervalMs < 1000)
      throw new UsageError(`--interval ${v.interval}: expected a duration of at least 1s, e.g. 30s`);
    const out = v.out === undefined ? undefined : confinedOutputPath(io, '--out', v.out);
    if (out && existsSync(out) && !v.force)
      throw new UsageError(`--out ${v.out} exists; pass --force to overwrite it`);

    let result: ReturnType<typeof planFromTemplate>;
    try {
      const path = resolve(io.cwd, source);
      if (existsSync(path) || /\.(json|ya?ml)$/i.test(source)) {
        // A regular file only, capped while reading (src/files/read.ts), parsed by the one loader.
        const doc = await loadYamlDocument(path, templateFile(source));
        const { template, fieldPrefix } = templateFromDocument(doc);
        result = planFromTemplate(
          template,
          { label: source, templateId: template.id },
          {
            id: v.id,
            file: source,
            sourceText: doc.text,
            fieldPrefix,
          },
        );
      } else {
        if (!/^\S{1,64}$/.test(source))
          throw new UsageError(`${source}: expected an FIS template id (EXT…) or a file`);
        const template = await fromFis(source, v['aws-region'], io.env);
        if (!template) {
          io.err(`FIS has no experiment template ${source} (ResourceNotFoundException)`);
          return EXIT_BAD_INPUT;
        }
        result = planFromTemplate(
          template,
          { label: `FIS template ${source}`, templateId: source },
          { id: v.id },
        );
      }
      if (v.sloth !== undefined) {
        const spec = await loadYamlDocument(resolve(io.cwd, v.sloth), slothFile(v.sloth));
        const sloth = importSloth(spec, { slo: v.slo, intervalMs });
        const text = sloth.apply(result.text);
        result = { ...result, text, placeholders: placeholderFields(parseYaml(text)).length };
        for (const field of sloth.unsupported) io.err(`${v.sloth}: not imported: ${field}`);
      }
      if (v.openslo !== undefined) {
        const options = openSloFile(v.openslo);
        let text: string;
        try {
          text = (await readFileBounded(resolve(io.cwd, v.openslo), { ...options, display: v.openslo })).text;
        } catch (error) {
          if (error instanceof FileReadError) throw new ImportError(v.openslo, [readIssue(error, options)]);
          throw error;
        }
        const slo = importOpenSlo(parseYamlStream(text, options), { slo: v.slo, intervalMs });
        const planText = slo.apply(result.text);
        result = { ...result, text: planText, placeholders: placeholderFields(parseYaml(planText)).length };
        for (const field of slo.unsupported) io.err(`${v.openslo}: not imported: ${field}`);
      }
    } catch (error) {
      if (error instanceof ImportError) {
        for (const issue of error.issues) io.err(formatIssue(issue));
        return EXIT_BAD_INPUT;
      }
      throw error;
    }
    if (out) {
      writeCliOutput(io, '--out', v.out ?? out, result.text);
      io.err(
        result.placeholders === 0
          ? `wrote ${v.out} (plan ${result.planId}); check it with: chaos-gate validate ${v.out}`
          : `wrote ${v.out} (plan ${result.planId}); fill in its ${result.placeholders} placeholder${result.placeholders === 1 ? '' : 's'}, then: chaos-gate validate ${v.out}`,
      );
    } else {
      io.out(result.text.trimEnd());
    }
    return 0;
  },
};

/** The template from FIS, or undefined when FIS has none with that id. */
async function fromFis(
  id: string,
  region: string | undefined,
  env: NodeJS.ProcessEnv,
): Promise<TemplateInput | undefined> {
  // Loaded here: reading a file needs no AWS SDK.
  const { createAwsClients } = await import('../../injector/aws/clients.js');
  const { readTemplate } = await import('../../injector/fis/read-template.js');
  const clients = createAwsClients({ region, env });
  try {
    return await readTemplate(clients.fis, id);
  } catch (error) {
    if ((error as { name?: string }).name === 'ResourceNotFoundException') return undefined;
    throw error;
  } finally {
    clients.fis.destroy();
    clients.cloudwatch.destroy();
  }
}
