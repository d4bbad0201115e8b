/**
 * A scenario file describes a simulated world: how each series (SLI, expectation, request rate)
 * behaves before, during and after the fault, and how the injector behaves. Times are offsets from the
 * injection (the start call) unless a field says otherwise.
 */
import { FileReadError, readFileBoundedSync } from '../files/read.js';
import { LineCounter, isNode, parseDocument, type Document } from 'yaml';
import { z } from 'zod';
import { Duration } from '../plan/schema.js';
import { describeZodIssue } from '../plan/load.js';
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

/** One problem in a scenario file, located. */
export interface ScenarioIssue {
  line: number;
  column: number;
  path: string;
  message: string;
}

/** A scenario that cannot be used: each issue names file:line:column, the field, the value and the expectation. */
export class ScenarioError extends Error {
  override name = 'ScenarioError';
  constructor(
    readonly file: string,
    readonly issues: ScenarioIssue[],
  ) {
    super(issues.map((i) => `${file}:${i.line}:${i.column}: ${i.path || '(root)'}: ${i.message}`).join('\n'));
  }
}

function locate(
  doc: Document,
  counter: LineCounter,
  path: (string | number)[],
): { line: number; column: number } {
  // The deepest node that exists on the path: a missing field points at its parent.
  for (let n = path.length; n >= 0; n--) {
    const node = doc.getIn(path.slice(0, n), true);
    if (isNode(node) && node.range) {
      const pos = counter.linePos(node.range[0]);
      return { line: pos.line, column: pos.col };
    }
  }
  return { line: 1, column: 1 };
}

function valueAt(data: unknown, path: (string | number)[]): unknown {
  let v: unknown = data;
  for (const key of path) {
    if (typeof v !== 'object' || v === null) return undefined;
    v = (v as Record<string | number, unknown>)[key];
  }
  return v;
}

/** Parses and validates scenario text; `file` names it in errors. */
export function parseScenario(text: string, file: string): Scenario {
  if (Buffer.byteLength(text) > MAX_SCENARIO_BYTES) {
    throw new ScenarioError(file, [
      { line: 1, column: 1, path: '', message: `file is larger than ${MAX_SCENARIO_BYTES} bytes` },
    ]);
  }
  const counter = new LineCounter();
  const doc = parseDocument(text, { lineCounter: counter, prettyErrors: false });
  if (doc.errors.length > 0) {
    throw new ScenarioError(
      file,
      doc.errors.map((e) => {
        const pos = counter.linePos(e.pos[0]);
        return {
          line: pos.line,
          column: pos.col,
          path: '',
          message: `YAML: ${e.message.split('\n')[0] ?? ''}`,
        };
      }),
    );
  }
  const data: unknown = doc.toJS({ maxAliasCount: 50 });
  const parsed = Scenario.safeParse(data);
  if (parsed.success) return parsed.data;
  throw new ScenarioError(
    file,
    parsed.error.issues.map((issue) => {
      const path = issue.path.filter((p): p is string | number => typeof p !== 'symbol');
      return {
        ...locate(doc, counter, path),
        path: path.join('.'),
        message: describeZodIssue(issue, valueAt(data, path)),
      };
    }),
  );
}

/** Reads a scenario file. */
export function loadScenario(path: string): Scenario {
  let text: string;
  try {
    // A regular file only, capped while reading (src/files/read.ts): no device, FIFO or directory.
    text = readFileBoundedSync(path, { what: 'scenario', maxBytes: MAX_SCENARIO_BYTES }).text;
  } catch (error) {
    if (!(error instanceof FileReadError)) throw error;
    throw new ScenarioError(path, [
      { line: 1, column: 1, path: '', message: `cannot read: ${error.reason}; expected ${error.expected}` },
    ]);
  }
  return parseScenario(text, path);
}
