/** The limits of a blast radius and a violation of them, shared by the blast-radius gate and its checks. */

/** The limits a selection is compared with: the stricter of the plan and the policy. */
export interface BlastLimits {
  maxTargets: number;
  maxPercent: number;
  /** Tag key → forbidden values (matched case-insensitively: `Production` is as forbidden as `production`). */
  forbidTags: Record<string, string[]>;
  /** Tag key → required value. */
  requireTags: Record<string, string>;
  /** The accounts resolved targets may be in (the policy's `accounts`); undefined: any. */
  accounts?: readonly string[] | undefined;
}

/** A blast-radius violation. */
export interface BlastRefusal {
  field: string;
  reason: string;
}
