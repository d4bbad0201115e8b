/**
 * The verdict attestation in the action, once the verdict is decided and the journal written: the
 * in-toto Statement (src/report/attestation.ts) is always written unsigned to `attestation-path` (the
 * `attestation` output), so a workflow without OIDC can still keep it; with `attest-subject-name` and
 * `attest-subject-digest` it is also signed and stored through the {@link Attester} port — in production
 * `@actions/attest`'s `attest()` (Sigstore via the job's OIDC token, GitHub's attestation store), in
 * tests a stand-in of that outside service. Nothing here changes the verdict or the exit code: a
 * signing that fails or runs out of time is a warning naming what failed.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { relative } from 'node:path';
import type { Journal } from '../journal/types.js';
import { writeOutput } from '../files/write.js';
import { DEADLINES, withDeadline } from '../net/deadline.js';
import { errorMessage } from '../errors/message.js';
import { redactDeep } from '../security/redact.js';
import {
  TEST_RESULT_PREDICATE_TYPE,
  verdictStatement,
  type ResourceDescriptor,
  type VerdictStatement,
} from '../report/attestation.js';
import type { ActionInputs } from './inputs.js';

/** What `@actions/attest`'s `attest()` is given (its `AttestOptions`, the fields chaos-gate sets). */
export interface AttestRequest {
  subjects: { name: string; digest: Record<string, string> }[];
  predicateType: string;
  predicate: object;
  token: string;
}

/** What it answers: the id GitHub stored the attestation under, and the Rekor entry. */
export interface AttestResult {
  attestationID?: string | undefined;
  tlogID?: string | undefined;
}

/** The signing port: `@actions/attest` in production. */
export type Attester = (request: AttestRequest, signal: AbortSignal) => Promise<AttestResult>;

export interface AttestContext {
  inputs: ActionInputs;
  env: Record<string, string | undefined>;
  workspace: string;
  planFile: string;
  policyFile: string | undefined;
  journalPath: string;
  attestationPath: string;
  roots: readonly string[];
  runUrl: string | undefined;
  attester?: Attester | undefined;
  /** The deadline of the signing (default {@link DEADLINES.attestation}). */
  deadlineMs?: number | undefined;
  log: { info(m: string): void; warning(m: string): void; notice(m: string, title?: string): void };
  setOutput(name: string, value: string): void;
}

function sha256(path: string): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}

/** A file as a ResourceDescriptor: its workspace-relative name and sha256. */
function fileDescriptor(
  path: string,
  workspace: string,
  annotations: Record<string, unknown>,
): ResourceDescriptor {
  return {
    name: relative(workspace, path).split('\\').join('/'),
    digest: { sha256: sha256(path) },
    annotations,
  };
}

/**
 * The subject: the artifact the inputs name; else the commit under test (`gitCommit`), which is what
 * an unsigned statement without an artifact can honestly be about.
 */
function subjectOf(c: AttestContext): VerdictStatement['subject'] | undefined {
  if (c.inputs.attestSubject) return [c.inputs.attestSubject];
  const { GITHUB_SERVER_URL: server, GITHUB_REPOSITORY: repo, GITHUB_SHA: sha } = c.env;
  if (!repo || !sha || !/^[0-9a-f]{40}$/.test(sha)) return undefined;
  return [{ name: `git+${server || 'https://github.com'}/${repo}`, digest: { gitCommit: sha } }];
}

/** Builds the Statement of `journal` from the files on disk. */
export function statementFor(journal: Journal, c: AttestContext): VerdictStatement | string {
  const subject = subjectOf(c);
  if (!subject) return 'no attest-subject-name/-digest and no commit (GITHUB_SHA) to name as its subject';
  if (!existsSync(c.journalPath)) return `the journal ${c.journalPath} was not written`;
  const configuration: ResourceDescriptor[] = [];
  if (existsSync(c.planFile))
    configuration.push(
      fileDescriptor(c.planFile, c.workspace, {
        role: 'plan',
        planId: journal.planId,
        planDigest: journal.planDigest,
      }),
    );
  if (c.policyFile && existsSync(c.policyFile))
    configuration.push(fileDescriptor(c.policyFile, c.workspace, { role: 'policy' }));
  configuration.push(
    fileDescriptor(c.journalPath, c.workspace, {
      role: 'journal',
      runId: journal.runId,
      verdict: journal.verdict,
      reason: journal.reason,
    }),
  );
  // What is written and what is signed are the same bytes' worth of facts, with every secret masked.
  return redactDeep(verdictStatement(journal, { subject, configuration, url: c.runUrl }));
}

/** Writes the unsigned Statement and, when a subject is named, signs it. Never throws. */
export async function attestVerdict(journal: Journal, c: AttestContext): Promise<void> {
  let statement: VerdictStatement | string;
  try {
    statement = statementFor(journal, c);
  } catch (error) {
    statement = errorMessage(error);
  }
  if (typeof statement === 'string') {
    // Asked for (a subject named) it is a warning; otherwise the unsigned statement is a courtesy.
    if (c.inputs.attestSubject) c.log.warning(`chaos-gate: no verdict attestation: ${statement}.`);
    else c.log.info(`chaos-gate: no verdict attestation written: ${statement}.`);
    return;
  }
  try {
    writeOutput(c.attestationPath, `${JSON.stringify(statement, null, 2)}\n`, {
      what: 'attestation (input attestation-path)',
      roots: c.roots,
    });
    c.setOutput('attestation', c.attestationPath);
  } catch (error) {
    c.log.warning(
      `chaos-gate: the verdict attestation could not be written to ${c.attestationPath}: ${errorMessage(error)}`,
    );
  }
  if (!c.inputs.attestSubject) return;
  const why = signingBlocked(c);
  if (why) {
    c.log.warning(
      `chaos-gate: the verdict attestation is not signed: ${why}; the unsigned statement is at ${c.attestationPath}.`,
    );
    return;
  }
  const attester = c.attester as Attester;
  try {
    const result = await withDeadline(
      (signal) =>
        attester(
          {
            subjects: statement.subject.map((s) => ({ name: s.name ?? '_', digest: s.digest })),
            predicateType: TEST_RESULT_PREDICATE_TYPE,
            predicate: statement.predicate,
            token: c.inputs.githubToken as string,
          },
          signal,
        ),
      c.deadlineMs ?? DEADLINES.attestation,
      'signing the verdict attestation',
    );
    const id = result.attestationID ?? '';
    c.setOutput('attestation-id', id);
    const server = c.env.GITHUB_SERVER_URL || 'https://github.com';
    const url =
      id && c.env.GITHUB_REPOSITORY ? `${server}/${c.env.GITHUB_REPOSITORY}/attestations/${id}` : '';
    c.setOutput('attestation-url', url);
    c.log.notice(
      `the verdict (${statement.predicate.result}) is attested for ${c.inputs.attestSubject.name}${url ? `: ${url}` : ''}`,
      'chaos-gate: attestation signed',
    );
  } catch (error) {
    c.log.warning(
      `chaos-gate: the verdict attestation could not be signed: ${errorMessage(error)}; the verdict stands, and the unsigned statement is at ${c.attestationPath}.`,
    );
  }
}

/** Why signing cannot be attempted: no signer, no token, or no OIDC token for the job. */
function signingBlocked(c: AttestContext): string | undefined {
  if (!c.attester) return 'this front door has no signer';
  if (!c.inputs.githubToken) return 'github-token is empty (storing it needs attestations: write)';
  if (!c.env.ACTIONS_ID_TOKEN_REQUEST_URL)
    return 'the job has no OIDC token (give it permissions: id-token: write, and attestations: write)';
  return undefined;
}
