/**
 * Reads a plan file (YAML, or JSON through the same parser) into a validated `Plan`. Parsing and the
 * wording of problems are the one loader's (src/files/document.ts, src/files/validate.ts): every problem
 * is a `PlanIssue` that points at `file:line:col`, names the field path, quotes the bad value and says
 * what was expected, so a user can fix the plan without reading zod's internals.
 */
import {
  parseYamlDocument,
  type DocumentOptions,
  type ParsedDocument,
  type PathSegment,
  type Position,
} from '../files/document.js';
import { loadYamlDocument } from '../files/load.js';
import { validateDocument } from '../files/validate.js';
import { planDigest } from './digest.js';
import { PlanError } from './errors.js';
import { Duration, DURATION_EXPECTED, Plan } from './schema.js';

export { formatIssue, formatPath, locateField, parsePath } from '../files/document.js';
export { PlanError, type PlanIssue } from './errors.js';
export type { PathSegment, Position } from '../files/document.js';

/**
 * Largest plan file accepted. A full plan with a 20-action FIS template (the FIS per-template
 * maximum, docs/design/fis.md#limits) is under 32 KiB; 256 KiB leaves ample room while bounding parse memory.
 */
export const MAX_PLAN_BYTES = 256 * 1024;

/** A plan that parsed and validated, with what reporters need to point back into its text. */
export interface LoadedPlan {
  plan: Plan;
  /** sha256 (hex) of the canonical JSON of the validated plan: key order and comments do not matter. */
  digest: string;
  text: string;
  file: string;
  /** Where a field path (`fis.actions.partition.parameters.duration`) is written in the text. */
  locate(field: string | readonly PathSegment[]): Position | undefined;
}

/** A duration is "a string" to zod; the plan's wording says which strings. */
const NAMED = new Map([[Duration, DURATION_EXPECTED]]);

function planFile(file: string): DocumentOptions {
  return {
    file,
    what: 'plan file',
    maxBytes: MAX_PLAN_BYTES,
    limitName: 'MAX_PLAN_BYTES',
    error: (f, issues) => new PlanError(f, issues),
  };
}

/** Reads and validates a plan file. `displayFile` is the name used in issues (defaults to `path`). */
export async function loadPlan(path: string, displayFile: string = path): Promise<LoadedPlan> {
  // A regular file only, capped while reading (src/files/read.ts): no device, FIFO or directory.
  const doc = await loadYamlDocument(path, planFile(displayFile));
  return validated(doc);
}

/** Parses and validates plan text (YAML or JSON). Throws `PlanError` listing every issue found. */
export function parsePlan(text: string, file: string): LoadedPlan {
  return validated(parseYamlDocument(text, planFile(file)));
}

function validated(doc: ParsedDocument): LoadedPlan {
  const plan = validateDocument(doc, Plan, {
    noun: 'plan',
    named: NAMED,
    error: (f, issues) => new PlanError(f, issues),
  });
  return { plan, digest: planDigest(plan), text: doc.text, file: doc.file, locate: doc.locate };
}
