/**
 * Writes `schema/plan.schema.json` from the zod plan schema so editors can complete and check plans
 * (`# yaml-language-server: $schema=…`). `--check` exits 1 when the committed file is stale (CI).
 */
import { readFile, writeFile, mkdir } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as z from 'zod/mini';
import { Plan } from '../src/plan/schema.js';

/** Where the generated schema lives, relative to the repository root. */
export const SCHEMA_PATH = 'schema/plan.schema.json';

/** Stable identifier of the plan format (version 1); editors key their cache on it. */
export const SCHEMA_ID = 'urn:chaos-gate:plan:1';

/** The JSON Schema text for the plan file, as committed (2-space JSON, trailing newline). */
export function planJsonSchema(): string {
  // Input mode: the schema describes what authors write (`5s`), not the milliseconds zod produces.
  const generated = z.toJSONSchema(Plan, { io: 'input', target: 'draft-2020-12' });
  const { $schema, ...rest } = generated;
  const document = {
    $schema,
    $id: SCHEMA_ID,
    title: 'chaos-gate plan',
    description:
      'One chaos experiment as a deployment gate: hypothesis, abort rules, blast radius, schedule, budget and the AWS FIS template.',
    ...rest,
  };
  return `${JSON.stringify(document, null, 2)}\n`;
}

async function main(argv: string[]): Promise<number> {
  const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
  // `--file <path>` points at another copy (tests use it to prove a stale file is caught).
  const fileFlag = argv.indexOf('--file');
  const target = resolve(root, fileFlag >= 0 ? (argv[fileFlag + 1] ?? SCHEMA_PATH) : SCHEMA_PATH);
  const fresh = planJsonSchema();
  if (argv.includes('--check')) {
    const committed = await readFile(target, 'utf8').catch(() => '');
    if (committed === fresh) {
      process.stdout.write(`${target} is up to date\n`);
      return 0;
    }
    process.stderr.write(`${target} is stale: run \`npm run schema\` and commit the result\n`);
    return 1;
  }
  await mkdir(dirname(target), { recursive: true });
  await writeFile(target, fresh);
  process.stdout.write(`wrote ${SCHEMA_PATH}\n`);
  return 0;
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = await main(process.argv.slice(2));
}
