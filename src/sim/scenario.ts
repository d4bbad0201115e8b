/**
 * A scenario file describes a simulated world: how each series (SLI, expectation, request rate)
 * behaves before, during and after the fault, and how the injector behaves. Times are offsets from the
 * injection (the start call) unless a field says otherwise.
 */
import * as z from 'zod/mini';
import {
  DocumentError,
  parseYamlDocument,
  type DocumentIssue,
  type DocumentOptions,
  type ParsedDocument,
} from '../files/document.js';
import { loadYamlDocumentSync } from '../files/load.js';
import { validateDocument } from '../files/validate.js';
import { Duration, DURATION_EXPECTED } from '../plan/schema.js';
import { VERDICTS } from '../journal/types.js';

/** Scenario files are small hand-written fixtures; anything larger is a mistake. */
export const MAX_SCENARIO_BYTES = 1024 * 1024;

// zod/mini, one function per classic method call and in the same order (src/files/zod.ts says why: a
// classic schema anywhere in the bundle keeps all of zod in the chunk `validate` shares with it).
const RelativeTo = z._default(z.enum(['injection', 'start']), 'injection');

const Gap = z.strictObject({
  from: Duration,
  to: Duration,
  /** `no-data` (empty result) or `error` (the query failed). */
  status: z._default(z.enum(['no-data', 'error']), 'no-data'),
  message: z.optional(z.string()),
  relativeTo: RelativeTo,
});

const Effect = z.strictObject({
  /** Value while the fault is on. */
  to: z.number(),
  /** `step` jumps to `to`; `ramp` moves linearly over `rampOver`. */
  shape: z._default(z.enum(['step', 'ramp']), 'step'),
  /** Delay after the fault starts before the effect shows. */
  delay: z.prefault(Duration, '0s'),
  rampOver: z.prefault(Duration, '0s'),
  /** How long the effect outlasts the end of the fault. */
  recoveryLag: z.prefault(Duration, '0s'),
});

const Series = z.strictObject({
  baseline: z.number(),
  /** Uniform noise amplitude: the value moves by up to ± noise. */
  noise: z._default(z.number().check(z.gte(0)), 0),
  /** Clamp after noise (e.g. ratios stay within [0, 1]). */
  min: z.optional(z.number()),
  max: z.optional(z.number()),
  effect: z.optional(Effect),
  gaps: z._default(z.array(Gap), []),
});

const Target = z.strictObject({
  target: z.string().check(z.minLength(1)),
  arn: z.string().check(z.minLength(1)),
  tags: z.optional(z.record(z.string(), z.string())),
});

const InjectorBehaviour = z.strictObject({
  /** Provision throws this message. */
  provisionFails: z.optional(z.string()),
  /** Start throws this message. */
  startFails: z.optional(z.string()),
  /**
   * The first this many starts start the experiment (or find it started) but their answer is lost: the
   * call throws `socket hang up`, as a dropped connection does. The experiment is found by `find`.
   */
  startAnswersLost: z._default(z.number().check(z.int()).check(z.gte(0)), 0),
  /** false: actions never reach `running` (FIS never confirms the fault). */
  injected: z._default(z.boolean(), true),
  /** Time in `initiating` before the actions run. */
  initiating: z.prefault(Duration, '0s'),
  /** When the actions complete by themselves. */
  actionDuration: z.prefault(Duration, '60s'),
  /** `stopping` → `stopped` after a stop request or a stop condition. */
  stopLatency: z.prefault(Duration, '1s'),
  /** A stop condition fires at +at: FIS goes to `stopping`, then `stopped`. */
  stopsAt: z.optional(
    z.strictObject({
      at: Duration,
      reason: z._default(z.string(), 'Stop condition triggered: lease alarm in ALARM'),
    }),
  ),
  /** FIS `failed` at +at with an error code. */
  failsAt: z.optional(
    z.strictObject({
      at: Duration,
      errorCode: z._default(z.string(), 'InternalFailure'),
      reason: z._default(z.string(), 'The experiment failed.'),
    }),
  ),
  /** FIS `cancelled` at +at (safety lever engaged). */
  cancelledAt: z.optional(Duration),
  /** Stop requests are accepted but the experiment keeps running. */
  stopNeverVerified: z._default(z.boolean(), false),
  /** StopExperiment itself throws this message (the state machine still reacts unless stopNeverVerified). */
  stopThrows: z.optional(z.string()),
  /**
   * What the dry run resolves. Unset: one resource per target of the plan, tagged with the target's
   * resourceTags (a scenario that does not speak of targets is a world where they resolve). `[]` is a
   * dry run that completed and resolved nothing.
   */
  targets: z.optional(z.array(Target)),
});

/**
 * What the gates a run passes before the fault see in the simulated world. The schedule is judged at
 * `startAt` on the virtual clock; the budget reads the series `budget.errors` and `budget.total` (counts
 * over the plan's window) from `metrics:` like any other query, so a plan with a budget and a scenario
 * without those series is `not-run` (the budget cannot be shown to allow the run), never `held`.
 */
const Preflight = z.strictObject({
  /** An incident open at the start: `not-run`, as a run would be. */
  incidentOpen: z._default(z.boolean(), false),
  /** The kill switch engaged at the start. */
  killSwitchEngaged: z._default(z.boolean(), false),
  /** Bad events earlier chaos runs debited within the budget window (the chaos ledger). */
  ledgerSpent: z._default(z.number().check(z.gte(0)), 0),
  /** Candidates per plan target name before selection (the Tagging API's count); default: not known. */
  candidates: z.optional(z.record(z.string(), z.number().check(z.int()).check(z.gte(0)))),
});

/** The scenario file. */
export const Scenario = z.strictObject({
  version: z._default(z.literal(1), 1),
  description: z.optional(z.string()),
  seed: z._default(z.number().check(z.int()), 1),
  /**
   * When the simulated run starts (ISO 8601 with an offset, e.g. 2026-03-02T09:30:00Z); the virtual clock
   * starts here and the schedule's windows are judged at it. Default: now, as a run started now.
   */
  startAt: z.optional(
    z.iso.datetime({
      offset: true,
      message: 'an ISO 8601 date-time with an offset, e.g. 2026-03-02T09:30:00Z',
    }),
  ),
  preflight: z.prefault(Preflight, {}),
  /** Series by SLI or expectation name. */
  metrics: z.record(z.string(), Series),
  /** Requests per second; a window's count is rate × window. */
  requests: z.optional(Series),
  injector: z.prefault(InjectorBehaviour, {}),
  /** A signal (as a cancelled CI job sends) at +at. */
  signal: z.optional(
    z.strictObject({
      at: Duration,
      name: z._default(z.enum(['SIGINT', 'SIGTERM']), 'SIGINT'),
      relativeTo: RelativeTo,
    }),
  ),
  /** The abort file appears at +at. */
  abortFileAt: z.optional(Duration),
  /** Every metric source throws from +at on (a bug in a source, not a measurement error). */
  sourceThrowsAt: z.optional(Duration),
  /** What the run should conclude (documents the fixture; tests check it). */
  outcome: z.optional(z.strictObject({ verdict: z.enum(VERDICTS) })),
});

export type Scenario = z.output<typeof Scenario>;
export type SeriesSpec = z.output<typeof Series>;

/** A scenario that cannot be used: each issue names file:line:column, the field, the value and the expectation. */
export class ScenarioError extends DocumentError {
  override name = 'ScenarioError';
  constructor(file: string, issues: DocumentIssue[]) {
    super(file, issues, 'scenario');
  }
}

function scenarioFile(file: string): DocumentOptions {
  return {
    file,
    what: 'scenario',
    maxBytes: MAX_SCENARIO_BYTES,
    limitName: 'MAX_SCENARIO_BYTES',
    error: (f, issues) => new ScenarioError(f, issues),
  };
}

/** A duration is "a string" to zod; the wording says which strings. */
const NAMED = new Map([[Duration, DURATION_EXPECTED]]);

function validated(doc: ParsedDocument): Scenario {
  return validateDocument(doc, Scenario, {
    noun: 'scenario',
    named: NAMED,
    error: (f, issues) => new ScenarioError(f, issues),
  });
}

/** Parses and validates scenario text; `file` names it in errors. */
export function parseScenario(text: string, file: string): Scenario {
  return validated(parseYamlDocument(text, scenarioFile(file)));
}

/** Reads a scenario file (a regular file only, capped while reading: src/files/read.ts). */
export function loadScenario(path: string): Scenario {
  return validated(loadYamlDocumentSync(path, scenarioFile(path)));
}
