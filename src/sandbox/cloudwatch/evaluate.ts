/**
 * The pure part of CloudWatch alarm evaluation: given the datapoints of an alarm's evaluation range
 * (breaching, not breaching or missing), M of N and the TreatMissingData mode, decide the next state.
 *
 * Source: CloudWatch User Guide, "Using Amazon CloudWatch alarms" → "How alarm state is evaluated when
 * data is missing" and "Avoiding premature transitions to alarm state" (docs/design/cloudwatch.md#alarm-evaluation). The two
 * published tables (3 of 3 and 2 of 3, evaluation range 5) are the test vectors of this function.
 */

/** The three alarm states. */
export type AlarmStateValue = 'OK' | 'ALARM' | 'INSUFFICIENT_DATA';

/** How an alarm treats missing datapoints (PutMetricAlarm `TreatMissingData`). */
export type TreatMissingData = 'breaching' | 'notBreaching' | 'ignore' | 'missing';

/** All TreatMissingData values, in the order the user guide's tables list them. */
export const TREAT_MISSING_DATA_MODES: readonly TreatMissingData[] = [
  'missing',
  'ignore',
  'breaching',
  'notBreaching',
];

/**
 * How many periods beyond EvaluationPeriods an evaluation looks back for real datapoints. The guide
 * shows an evaluation range of 5 for EvaluationPeriods 3 and says the exact number is not fixed; N + 2
 * reproduces its tables (inferred).
 */
export const EVALUATION_RANGE_EXTRA_PERIODS = 2;

/** One slot of the evaluation range: `true` breaching, `false` not breaching, `undefined` missing. */
export type Slot = boolean | undefined;

/** Input of {@link decideAlarmState}. `slots` runs oldest → newest over the evaluation range. */
export interface DecideInput {
  slots: readonly Slot[];
  evaluationPeriods: number;
  datapointsToAlarm: number;
  treatMissingData: TreatMissingData;
}

/** What the evaluation decided and why (the counts feed the state reason). */
export type Decision =
  | {
      kind: 'state';
      state: AlarmStateValue;
      /** Indexes into `slots` of the real datapoints that were evaluated, newest first. */
      evaluated: number[];
      /** Missing datapoints filled in with the TreatMissingData value. */
      filled: number;
      /** Breaching datapoints among the evaluated and filled ones. */
      breaching: number;
      /** Which rule decided: the plain M-of-N count, or the premature-alarm rule. */
      rule: 'threshold' | 'premature' | 'no-data';
    }
  | { kind: 'retain'; reason: 'ignore' };

/**
 * Decides an alarm's next state.
 *
 * - At least N real datapoints in the range: the newest N decide (M breaching → ALARM, else OK);
 *   TreatMissingData plays no part.
 * - Fewer: every real datapoint counts, and N − (real count) missing ones are filled: `breaching`
 *   fills breaching points, `notBreaching` good points. For `missing` and `ignore` there is nothing to
 *   fill with: M real breaching points still alarm; otherwise the premature-alarm rule applies (below);
 *   otherwise any real good point makes it OK; otherwise `missing` → INSUFFICIENT_DATA and
 *   `ignore` keeps the current state.
 * - Premature-alarm rule: when every real datapoint in the range breaches and the oldest of them is at
 *   least M periods old (counting the newest slot as 1), the alarm goes to ALARM even though fewer than
 *   M points exist (`- - X - -` with M = 3). With `ignore` the guide's tables keep the state instead.
 *   A good point anywhere in the range turns the rule off: the 2-of-3 row `0 - X - -` stays OK.
 */
export function decideAlarmState(input: DecideInput): Decision {
  const { slots, evaluationPeriods: n, datapointsToAlarm: m, treatMissingData: treat } = input;
  const real: number[] = [];
  for (let i = slots.length - 1; i >= 0; i--) if (slots[i] !== undefined) real.push(i);

  if (real.length >= n) {
    const evaluated = real.slice(0, n);
    const breaching = evaluated.filter((i) => slots[i] === true).length;
    return {
      kind: 'state',
      state: breaching >= m ? 'ALARM' : 'OK',
      evaluated,
      filled: 0,
      breaching,
      rule: 'threshold',
    };
  }

  const realBreaching = real.filter((i) => slots[i] === true).length;
  const fill = n - real.length;

  if (treat === 'breaching') {
    const breaching = realBreaching + fill;
    return {
      kind: 'state',
      state: breaching >= m ? 'ALARM' : 'OK',
      evaluated: real,
      filled: fill,
      breaching,
      rule: real.length === 0 ? 'no-data' : 'threshold',
    };
  }
  if (treat === 'notBreaching') {
    return {
      kind: 'state',
      state: realBreaching >= m ? 'ALARM' : 'OK',
      evaluated: real,
      filled: fill,
      breaching: realBreaching,
      rule: real.length === 0 ? 'no-data' : 'threshold',
    };
  }

  if (realBreaching >= m) {
    return {
      kind: 'state',
      state: 'ALARM',
      evaluated: real,
      filled: 0,
      breaching: realBreaching,
      rule: 'threshold',
    };
  }
  if (prematureAlarm(slots, real, m)) {
    if (treat === 'ignore') return { kind: 'retain', reason: 'ignore' };
    return {
      kind: 'state',
      state: 'ALARM',
      evaluated: real,
      filled: 0,
      breaching: realBreaching,
      rule: 'premature',
    };
  }
  if (real.length > realBreaching) {
    return {
      kind: 'state',
      state: 'OK',
      evaluated: real,
      filled: 0,
      breaching: realBreaching,
      rule: 'threshold',
    };
  }
  if (treat === 'ignore') return { kind: 'retain', reason: 'ignore' };
  return {
    kind: 'state',
    state: 'INSUFFICIENT_DATA',
    evaluated: real,
    filled: 0,
    breaching: realBreaching,
    rule: 'no-data',
  };
}

/** `real` holds the indexes of the real datapoints, newest first. */
function prematureAlarm(slots: readonly Slot[], real: readonly number[], m: number): boolean {
  if (real.length === 0) return false;
  if (real.some((i) => slots[i] !== true)) return false;
  const oldest = real[real.length - 1] as number;
  const age = slots.length - oldest;
  return age >= m;
}

/**
 * Parses the user guide's notation (`0 - X - X`: 0 good, X breaching, - missing; oldest first) into
 * slots. Exposed for tests and for the admin endpoint's explanations.
 */
export function parseSlots(notation: string): Slot[] {
  return notation
    .trim()
    .split(/\s+/)
    .map((t) => {
      if (t === 'X') return true;
      if (t === '0' || t === 'O') return false;
      if (t === '-') return undefined;
      throw new Error(`datapoint notation ${JSON.stringify(t)} is not one of 0, X, -`);
    });
}
