/**
 * The files a run reads besides the plan — the policy, the service catalog the plan names and the
 * verdict history a policy's `requires` checks — read through the one loader (src/files/, and the one
 * journal reader) and handed to preflight as data, so preflight touches no file.
 */
import { formatIssue } from '../files/document.js';
import { loadYamlDocument, readIssue } from '../files/load.js';
import { FileReadError, type PlanFileReader } from '../files/read.js';
import { errorMessage } from '../errors/message.js';
import type { Plan } from '../plan/schema.js';
import {
  CatalogError,
  MAX_CATALOG_BYTES,
  catalogFile,
  parseCatalog,
  type CatalogInput,
} from '../preflight/catalog.js';
import { policyFile, policyFromDocument, type LoadedPolicy } from '../preflight/policy.js';
import type { VerdictHistory } from '../preflight/requires.js';
import { collectRuns } from '../journal/collect.js';

/** Reads and validates a policy file; `displayFile` names it in messages. Throws `PolicyError`. */
export async function loadPolicy(path: string, displayFile: string = path): Promise<LoadedPolicy> {
  // A regular file only, capped while reading (src/files/read.ts): no device, FIFO or directory.
  return policyFromDocument(await loadYamlDocument(path, policyFile(displayFile)));
}

/**
 * The catalog `plan` names, read with `read` (relative to the plan file, confined to the workspace);
 * undefined when the plan names none. A catalog that cannot be read or parsed is returned as its
 * problem, for the dependency-closure gate to refuse with: reading it is not the place to fail the run.
 */
export async function readCatalog(
  plan: Plan,
  read: PlanFileReader | undefined,
): Promise<CatalogInput | undefined> {
  const spec = plan.blastRadius.catalog;
  // Without a reader the gate refuses a plan that names a catalog (it never reads one itself).
  if (!spec || !read) return undefined;
  try {
    const { text } = await read(spec.path, 'catalog', MAX_CATALOG_BYTES);
    return { catalog: parseCatalog(text, spec.path) };
  } catch (error) {
    if (error instanceof FileReadError)
      return { problem: formatIssue(readIssue(error, catalogFile(spec.path))) };
    if (error instanceof CatalogError) return { problem: error.issues.map(formatIssue).join('; ') };
    return { problem: `${spec.path}: cannot read the catalog: ${errorMessage(error)}` };
  }
}

/** The verdict history under `paths` (journals or directories), or undefined when none was given. */
export function readHistory(paths: readonly string[] | undefined): VerdictHistory | undefined {
  if (!paths?.length) return undefined;
  const { entries, unread } = collectRuns(paths);
  return { entries, unread: unread.map((u) => u.error), source: paths.join(', ') };
}
