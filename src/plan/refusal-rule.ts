/**
 * The names of the static rules and how a check reports one refusal: below refusals.ts, which runs
 * the checks, and the families it runs (refusals-timing.ts, refusals-fis.ts, refusals-queries.ts).
 */
import type { PathSegment } from './load.js';

/** The static rules, named so tests, reports and annotations can refer to them. */
export type RefusalRule =
  | 'no-abort-rules'
  | 'abort-unknown-sli'
  | 'abort-sli-not-observed'
  | 'duplicate-sli'
  | 'no-sli-during-fault'
  | 'action-duration'
  | 'action-duration-format'
  | 'run-duration'
  | 'require-tags'
  | 'forbid-tags'
  | 'select-all'
  | 'count-over-max-targets'
  | 'percent-over-max-percent'
  | 'arns-over-max-targets'
  | 'promql-syntax'
  | 'unknown-target'
  /** A target defined in a way the action does not take (S3 replication: tags only; some: ARNs only). */
  | 'action-targeting'
  | 'unknown-start-after'
  | 'start-after-cycle'
  | 'too-many-stop-conditions'
  | 'too-many-actions'
  | 'budget-damage'
  | 'cloudwatch-period-below-resolution'
  | 'interval-too-short'
  | 'selection-out-of-range'
  | 'blind-after-exceeds-fault'
  | 'abort-for-exceeds-fault'
  | 'settle-exceeds-fault'
  /** A `<fill in: …>` value a generated plan (`chaos-gate import`) left for its author. */
  | 'placeholder'
  /** Raised by the front doors from the failover model (analysis/), which plan/ cannot import. */
  | 'failover-predicted-to-fail';

/** How a check reports one refusal: `staticRefusals` turns it into a located {@link Refusal}. */
export type Add = (
  rule: RefusalRule,
  path: PathSegment[],
  value: string | number,
  limit: string | number,
  why: string,
) => void;
