/** The error a policy file that cannot be read or is not valid raises (src/preflight/policy.ts). */
import { DocumentError, type DocumentIssue } from '../files/issue.js';

/** Thrown when a policy file cannot be read or is not valid; every issue names file:line:col and field. */
export class PolicyError extends DocumentError {
  override name = 'PolicyError';
  constructor(file: string, issues: DocumentIssue[]) {
    super(file, issues, 'policy');
  }
}
