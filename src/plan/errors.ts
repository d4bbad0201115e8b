/** The error a plan file that cannot be read or is not a valid plan raises (src/plan/load.ts). */
import { DocumentError, type DocumentIssue } from '../files/issue.js';

/** One problem with a plan file, located in the file (the one loader's issue). */
export type PlanIssue = DocumentIssue;

/** Thrown by `loadPlan`/`parsePlan` when the file cannot be read or is not a valid plan. */
export class PlanError extends DocumentError {
  override name = 'PlanError';
  constructor(file: string, issues: PlanIssue[]) {
    super(file, issues, 'plan');
  }
}
