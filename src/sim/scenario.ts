/**
 * A scenario file describes a simulated world: how each series (SLI, expectation, request rate)
 * behaves before, during and after the fault, and how the injector behaves. Times are offsets from the
 * injection (the start call) unless a field says otherwise.
 */
import { z } from 'zod';
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

const RelativeTo = z.enum(['injection', 'start']).default('injection');

const Gap = z.strictObject({
  from: Duration,
  to: Duration,
  /** `no-data` (empty result) or `error` (the query failed). */
  status: z.enum(['no-data', 'error']).default('no-data'),
  message: z.string().optional(),
  relativeTo: RelativeTo,
});

const Effect = z.strictObject({
  /** Value while the fault is on. */
  to: z.number(),
  /** `step` jumps to `to`; `ramp` moves linearly over `rampOver`. */
  shape: z.enum(['step', 'ramp']).default('step'),
  /** Delay after the fault starts before the effect shows. */
  delay: Duration.prefault('0s'),
  rampOver: Duration.prefault('0s'),
  /** How long the effect outlasts the end of the fault. */
  recoveryLag: Duration.prefault('0s'),
});

const Series = z.strictObject({
  baseline: z.number(),
  /** Uniform noise amplitude: the value moves by up to ± noise. */
  noise: z.number().nonnegative().default(0),
  /** Clamp after noise (e.g. ratios stay within [0, 1]). */
  min: z.number().optional(),
  max: z.number().optional(),
  effect: Effect.optional(),
  gaps: z.array(Gap).default([]),
});

const Target = z.strictObject({
  target: z.string().min(1),
  arn: z.string().min(1),
  tags: z.record(z.string(), z.string()).optional(),
});

const InjectorBehaviour = z.strictObject({
  /** Provision throws this message. */
  provisionFails: z.string().optional(),
  /** Start throws this message. */
  startFails: z.string().optional(),
  /** false: actions never reach `running` (FIS never confirms the fault). */
  injected: z.boolean().default(true),
  /** Time in `initiating` before the actions run. */
  initiating: Duration.prefault('0s'),
  /** When the actions complete by themselves. */
  actionDuration: Duration.prefault('60s'),
  /** `stopping` → `stopped` after a stop request or a stop condition. */
  stopLatency: Duration.prefault('1s'),
  /** A stop condition fires at +at: FIS goes to `stopping`, then `stopped`. */
  stopsAt: z
    .strictObject({
      at: Duration,
      reason: z.string().default('Stop condition triggered: lease alarm in ALARM'),
    })
    .optional(),
  /** FIS `failed` at +at with an error code. */
  failsAt: z
    .strictObject({
      at: Duration,
      errorCode: z.string().default('InternalFailure'),
      reason: z.string().default('The experiment failed.'),
    })
    .optional(),
  /** FIS `cancelled` at +at (safety lever engaged). */
  cancelledAt: Duration.optional(),
  /** Stop requests are accepted but the experiment keeps running. */
  stopNeverVerified: z.boolean().default(false),
  /** StopExperiment itself throws this message (the state machine still reacts unless stopNeverVerified). */
  stopThrows: z.string().optional(),
  targets: z.array(Target).default([
    {
      target: 'primary',
      arn: 'arn:aws:elasticache:eu-west-1:111122223333:cluster:sim-primary-01',
      tags: { Environment: 'staging-chaos' },
    },
  ]),
});

/** The scenario file. */
export const Scenario = z.strictObject({
  version: z.literal(1).default(1),
  description: z.string().optional(),
  seed: z.number().int().default(1),
  /** Series by SLI or expectation name. */
  metrics: z.record(z.string(), Series),
  /** Requests per second; a window's count is rate × window. */
  requests: Series.optional(),
  injector: InjectorBehaviour.prefault({}),
  /** A signal (as a cancelled CI job sends) at +at. */
  signal: z
    .strictObject({
      at: Duration,
      name: z.enum(['SIGINT', 'SIGTERM']).default('SIGINT'),
      relativeTo: RelativeTo,
    })
    .optional(),
  /** The abort file appears at +at. */
  abortFileAt: Duration.optional(),
  /** Every metric source throws from +at on (a bug in a source, not a measurement error). */
  sourceThrowsAt: Duration.optional(),
  /** What the run should conclude (documents the fixture; tests check it). */
  outcome: z.strictObject({ verdict: z.enum(VERDICTS) }).optional(),
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
