/**
 * Faults the GitHub stand-in answers on demand, for reliability tests of a GitHub client: a secondary
 * rate limit (403 or 429 with `Retry-After` and GitHub's message), a server error (5xx), or a late answer
 * (the request takes effect, the response comes after `delayMs` — a client that timed out may retry a
 * create that landed). Added with `POST /_sandbox/faults` or `GitHubStandIn.faults.add`.
 */
import * as z from 'zod/mini';
import '../../files/zod.js';

/** GitHub's message for a secondary rate limit (REST docs, "About secondary rate limits"). */
export const SECONDARY_RATE_LIMIT_MESSAGE =
  'You have exceeded a secondary rate limit. Please wait a few minutes before you try again. If you reach out to GitHub Support for help, please include the request ID.';

/** Where GitHub's secondary rate-limit answers point. */
export const SECONDARY_RATE_LIMIT_DOCS =
  'https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits';

/** The longest delay a `delay` fault may add (ms): past any client deadline, short of a stuck test. */
export const MAX_GITHUB_FAULT_DELAY_MS = 120_000;

/** A fault as requested: which operation, what answer, how many times. */
// zod/mini, one function per classic method call and in the same order (src/files/zod.ts says why).
export const GitHubFaultSpec = z
  .strictObject({
    /** GitHub operation id (`checks/create`, `checks/update`, `issues/create-comment`) or `*`. */
    operation: z._default(z.string().check(z.minLength(1)), '*'),
    kind: z.enum(['secondary-rate-limit', 'error', 'delay']),
    /** `secondary-rate-limit`: 403 (default) or 429. `error`: a 5xx (default 502). */
    status: z.optional(z.number().check(z.int()).check(z.gte(400)).check(z.lte(599))),
    /** `secondary-rate-limit`: the `Retry-After` header in seconds (default 1). */
    retryAfter: z.optional(z.number().check(z.int()).check(z.gte(0)).check(z.lte(3600))),
    /** `delay`: how late the answer comes (ms). */
    delayMs: z.optional(z.number().check(z.int()).check(z.gte(1)).check(z.lte(MAX_GITHUB_FAULT_DELAY_MS))),
    /** Answer this many matching requests, then go away (default: until removed). */
    count: z.optional(z.number().check(z.int()).check(z.gte(1)).check(z.lte(1_000_000))),
  })
  .check(
    z.refine(
      (f) => f.kind !== 'secondary-rate-limit' || f.status === undefined || [403, 429].includes(f.status),
      {
        message: 'a secondary-rate-limit status must be 403 or 429',
      },
    ),
  )
  .check(
    z.refine((f) => f.kind !== 'error' || f.status === undefined || f.status >= 500, {
      message: 'an error status must be 5xx',
    }),
  )
  .check(
    z.refine((f) => f.kind !== 'delay' || f.delayMs !== undefined, {
      message: 'a delay fault needs delayMs',
    }),
  );

export type GitHubFaultSpec = z.input<typeof GitHubFaultSpec>;

/** An active fault with how often it has fired. */
export interface GitHubFault extends z.output<typeof GitHubFaultSpec> {
  id: number;
  fired: number;
}

/** What a fault makes the stand-in answer instead of (or after) the real response. */
export type FaultAnswer =
  | { kind: 'reply'; status: number; headers: Record<string, string>; body: unknown; fault: string }
  | { kind: 'delay'; ms: number; fault: string };

/** The active faults; `answer` consumes one firing of the first fault matching an operation. */
export class GitHubFaults {
  private faults: GitHubFault[] = [];
  private seq = 0;

  /** Adds a fault; throws a ZodError naming the field when the spec is invalid. */
  add(spec: GitHubFaultSpec): GitHubFault {
    const fault: GitHubFault = { ...GitHubFaultSpec.parse(spec), id: ++this.seq, fired: 0 };
    this.faults.push(fault);
    return { ...fault };
  }

  list(): GitHubFault[] {
    return this.faults.map((f) => ({ ...f }));
  }

  /** Removes one fault, or all of them. */
  clear(id?: number): void {
    this.faults = id === undefined ? [] : this.faults.filter((f) => f.id !== id);
  }

  /** The answer for a request to `operationId`, or undefined when no fault applies. */
  answer(operationId: string): FaultAnswer | undefined {
    const fault = this.faults.find((f) => f.operation === '*' || f.operation === operationId);
    if (!fault) return undefined;
    fault.fired++;
    if (fault.count !== undefined && fault.fired >= fault.count)
      this.faults = this.faults.filter((f) => f !== fault);
    const name = `${fault.kind}#${fault.id}`;
    switch (fault.kind) {
      case 'delay':
        return { kind: 'delay', ms: fault.delayMs ?? 0, fault: name };
      case 'error': {
        const status = fault.status ?? 502;
        return {
          kind: 'reply',
          status,
          headers: {},
          body: { message: 'Server Error', status: String(status) },
          fault: name,
        };
      }
      case 'secondary-rate-limit': {
        const status = fault.status ?? 403;
        return {
          kind: 'reply',
          status,
          headers: { 'retry-after': String(fault.retryAfter ?? 1) },
          body: {
            message: SECONDARY_RATE_LIMIT_MESSAGE,
            documentation_url: SECONDARY_RATE_LIMIT_DOCS,
            status: String(status),
          },
          fault: name,
        };
      }
    }
  }
}
