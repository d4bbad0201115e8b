/**
 * Metric alarms of the CloudWatch stand-in: their configuration (PutMetricAlarm, a full overwrite),
 * their state, the evaluator that runs on CloudWatch's cadence, SetAlarmState's temporary override and
 * the history of transitions (docs/design/cloudwatch.md#alarms).
 */
import {
  decideAlarmState,
  EVALUATION_RANGE_EXTRA_PERIODS,
  type AlarmStateValue,
  type Slot,
  type TreatMissingData,
} from './evaluate.js';
import { runQueries, type MetricDataQueryInput } from './query.js';
import { parseStat, type Dimension, type MetricStore } from './store.js';

/** A metric alarm's configuration as PutMetricAlarm stores it. */
export interface AlarmConfig {
  AlarmName: string;
  AlarmDescription?: string | undefined;
  ActionsEnabled: boolean;
  OKActions: string[];
  AlarmActions: string[];
  InsufficientDataActions: string[];
  MetricName?: string | undefined;
  Namespace?: string | undefined;
  Statistic?: string | undefined;
  ExtendedStatistic?: string | undefined;
  Dimensions: Dimension[];
  Period?: number | undefined;
  Unit?: string | undefined;
  EvaluationPeriods: number;
  DatapointsToAlarm?: number | undefined;
  Threshold?: number | undefined;
  ComparisonOperator: string;
  TreatMissingData?: string | undefined;
  EvaluateLowSampleCountPercentile?: string | undefined;
  Metrics?: MetricDataQueryInput[] | undefined;
  ThresholdMetricId?: string | undefined;
  Tags: Array<{ Key: string; Value: string }>;
}

/** A stored alarm: configuration plus state. Times are epoch milliseconds. */
export interface Alarm {
  config: AlarmConfig;
  arn: string;
  state: AlarmStateValue;
  reason: string;
  reasonData: string | undefined;
  stateUpdatedAt: number;
  stateTransitionedAt: number;
  configUpdatedAt: number;
  /** The cadence tick of the last evaluation; undefined until the first one. */
  lastEvalTick: number | undefined;
  /** True while a SetAlarmState value stands; the next evaluation replaces it. */
  overridden: boolean;
}

/** One DescribeAlarmHistory item. */
export interface HistoryItem {
  alarmName: string;
  timestamp: number;
  type: 'ConfigurationUpdate' | 'StateUpdate';
  summary: string;
  data: string;
}

/** What {@link AlarmBook.onChange} listeners receive on every state transition. */
export interface AlarmChange {
  name: string;
  arn: string;
  state: AlarmStateValue;
  previous: AlarmStateValue;
  reason: string;
  timestamp: number;
}

/** Alarms with a period under a minute are evaluated every 10 s, the others every minute (docs/design/cloudwatch.md#alarm-evaluation). */
export const HIGH_RES_CADENCE_MS = 10_000;
export const STANDARD_CADENCE_MS = 60_000;
/** History is kept two weeks (CW-alarms, "Common features"). */
export const HISTORY_RETENTION_MS = 14 * 24 * 3600 * 1000;
/** Bound on history kept per alarm, so a flapping alarm in a long sandbox run cannot grow memory without end. */
export const MAX_HISTORY_PER_ALARM = 1_000;
/** StateReason is at most 1023 characters, StateReasonData 4000, HistoryData 4095 (M-CW length traits). */
export const MAX_STATE_REASON = 1023;
export const MAX_STATE_REASON_DATA = 4000;
export const MAX_HISTORY_DATA = 4095;
/** Datapoints quoted in a state reason before it says "…". */
const REASON_DATAPOINTS_SHOWN = 5;

const OPERATORS: Record<string, { test: (v: number, t: number) => boolean; text: string }> = {
  GreaterThanOrEqualToThreshold: { test: (v, t) => v >= t, text: 'greater than or equal to' },
  GreaterThanThreshold: { test: (v, t) => v > t, text: 'greater than' },
  LessThanThreshold: { test: (v, t) => v < t, text: 'less than' },
  LessThanOrEqualToThreshold: { test: (v, t) => v <= t, text: 'less than or equal to' },
};

/** Comparison operators the evaluator supports (the anomaly-band ones need ThresholdMetricId). */
export const STATIC_COMPARISON_OPERATORS = Object.keys(OPERATORS);

/** The evaluation period of an alarm in seconds. */
export function alarmPeriod(c: AlarmConfig): number {
  if (c.Period !== undefined) return c.Period;
  const ret = c.Metrics?.find((m) => m.ReturnData !== false);
  if (ret?.MetricStat) return ret.MetricStat.Period;
  if (ret?.Period !== undefined) return ret.Period;
  const stat = c.Metrics?.find((m) => m.MetricStat)?.MetricStat;
  return stat?.Period ?? 60;
}

function fmtNumber(v: number): string {
  return Number.isInteger(v) ? v.toFixed(1) : String(v);
}

function fmtTime(ms: number): string {
  const d = new Date(ms);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${p(d.getUTCDate())}/${p(d.getUTCMonth() + 1)}/${p(d.getUTCFullYear() % 100)} ${p(d.getUTCHours())}:${p(d.getUTCMinutes())}:${p(d.getUTCSeconds())}`;
}

function clip(s: string, max: number): string {
  return s.length > max ? `${s.slice(0, max - 3)}...` : s;
}

/** All alarms of one account and Region. */
export class AlarmBook {
  private readonly alarms = new Map<string, Alarm>();
  private readonly history = new Map<string, HistoryItem[]>();
  private readonly listeners: Array<(c: AlarmChange) => void> = [];

  constructor(
    private readonly store: MetricStore,
    private readonly arnPrefix: string,
  ) {}

  /** Registers a listener for state transitions. */
  onChange(cb: (c: AlarmChange) => void): void {
    this.listeners.push(cb);
  }

  /** The alarm by name or ARN. */
  find(nameOrArn: string): Alarm | undefined {
    if (nameOrArn.startsWith('arn:')) {
      for (const a of this.alarms.values()) if (a.arn === nameOrArn) return a;
      return undefined;
    }
    return this.alarms.get(nameOrArn);
  }

  /** Every alarm, sorted by name (DescribeAlarms order). */
  list(): Alarm[] {
    return [...this.alarms.values()].sort((a, b) => (a.config.AlarmName < b.config.AlarmName ? -1 : 1));
  }

  /**
   * Creates an alarm in INSUFFICIENT_DATA, or overwrites the whole configuration of an existing one and
   * keeps its state (M-CW PutMetricAlarm). A new alarm is evaluated on the next {@link evaluate} call.
   */
  put(config: AlarmConfig, now: number): Alarm {
    const existing = this.alarms.get(config.AlarmName);
    if (existing) {
      const tags = existing.config.Tags;
      existing.config = { ...config, Tags: tags };
      existing.configUpdatedAt = now;
      this.record(config.AlarmName, now, 'ConfigurationUpdate', `Alarm "${config.AlarmName}" updated`, {
        version: '1.0',
        type: 'Update',
      });
      return existing;
    }
    const alarm: Alarm = {
      config,
      arn: `${this.arnPrefix}${config.AlarmName}`,
      state: 'INSUFFICIENT_DATA',
      reason: 'Unchecked: Initial alarm creation',
      reasonData: undefined,
      stateUpdatedAt: now,
      stateTransitionedAt: now,
      configUpdatedAt: now,
      lastEvalTick: undefined,
      overridden: false,
    };
    this.alarms.set(config.AlarmName, alarm);
    this.record(config.AlarmName, now, 'ConfigurationUpdate', `Alarm "${config.AlarmName}" created`, {
      version: '1.0',
      type: 'Create',
    });
    return alarm;
  }

  /** Deletes alarms; the caller has checked they exist. */
  delete(names: readonly string[]): void {
    for (const n of names) {
      this.alarms.delete(n);
      this.history.delete(n);
    }
  }

  /** SetAlarmState: sets the state until the alarm's next evaluation tick. */
  setState(
    alarm: Alarm,
    state: AlarmStateValue,
    reason: string,
    reasonData: string | undefined,
    now: number,
  ): void {
    alarm.overridden = true;
    this.transition(alarm, state, reason, reasonData, now);
  }

  /** History items, newest first. */
  historyOf(name: string | undefined): HistoryItem[] {
    const items = name === undefined ? [...this.history.values()].flat() : (this.history.get(name) ?? []);
    return [...items].sort((a, b) => b.timestamp - a.timestamp);
  }

  /**
   * Evaluates every alarm whose cadence tick (10 s or 60 s) has changed since its last evaluation.
   * The data window ends at the tick, not at `now`, so results depend only on the tick; transitions
   * are stamped with `now`.
   */
  evaluate(now: number): void {
    for (const alarm of this.alarms.values()) {
      const period = alarmPeriod(alarm.config);
      const cadence = period < 60 ? HIGH_RES_CADENCE_MS : STANDARD_CADENCE_MS;
      const tick = Math.floor(now / cadence);
      if (alarm.lastEvalTick === tick) continue;
      alarm.lastEvalTick = tick;
      this.evaluateOne(alarm, tick * cadence, now);
    }
    this.pruneHistory(now);
  }

  private slotsFor(
    alarm: Alarm,
    evalTime: number,
  ): { slots: Slot[]; values: Array<{ t: number; v: number; n: number } | undefined>; start: number } {
    const c = alarm.config;
    const periodMs = alarmPeriod(c) * 1000;
    const range = c.EvaluationPeriods + EVALUATION_RANGE_EXTRA_PERIODS;
    const end = Math.floor(evalTime / periodMs) * periodMs;
    const start = end - range * periodMs;
    const values: Array<{ t: number; v: number; n: number } | undefined> = new Array(range).fill(undefined);
    if (c.Metrics && c.Metrics.length) {
      const results = runQueries(this.store, c.Metrics, start, end);
      const ret = results.find((r) => r.returnData) ?? results[results.length - 1];
      for (const [t, v] of ret?.points ?? []) {
        const i = Math.floor((t - start) / periodMs);
        if (i >= 0 && i < range) values[i] = { t, v, n: 1 };
      }
    } else if (c.Namespace && c.MetricName) {
      const series = this.store.get(c.Namespace, c.MetricName, c.Dimensions);
      const stat = parseStat(c.Statistic ?? c.ExtendedStatistic ?? '');
      if (series && stat) {
        for (const dp of this.store.aggregate(series, start, end, periodMs, stat, c.Unit)) {
          if (
            stat.kind === 'percentile' &&
            c.EvaluateLowSampleCountPercentile === 'ignore' &&
            lowSampleCount(stat.p, dp.sampleCount)
          )
            continue;
          const i = Math.floor((dp.t - start) / periodMs);
          if (i >= 0 && i < range) values[i] = { t: dp.t, v: dp.value, n: dp.sampleCount };
        }
      }
    }
    const op = OPERATORS[c.ComparisonOperator];
    const threshold = c.Threshold ?? 0;
    const slots = values.map((x) => (x === undefined || !op ? undefined : op.test(x.v, threshold)));
    return { slots, values, start };
  }

  private evaluateOne(alarm: Alarm, evalTime: number, now: number): void {
    const c = alarm.config;
    const { slots, values, start } = this.slotsFor(alarm, evalTime);
    const n = c.EvaluationPeriods;
    const m = c.DatapointsToAlarm ?? n;
    const treat = (c.TreatMissingData ?? 'missing') as TreatMissingData;
    const decision = decideAlarmState({
      slots,
      evaluationPeriods: n,
      datapointsToAlarm: m,
      treatMissingData: treat,
    });
    if (decision.kind === 'retain') {
      alarm.overridden = false;
      return;
    }
    const op = OPERATORS[c.ComparisonOperator];
    const threshold = c.Threshold ?? 0;
    const evaluated = decision.evaluated
      .map((i) => values[i])
      .filter((x): x is NonNullable<typeof x> => x !== undefined);
    const shown = evaluated
      .slice(0, REASON_DATAPOINTS_SHOWN)
      .map((x) => `${fmtNumber(x.v)} (${fmtTime(x.t)})`)
      .join(', ');
    const list = `[${shown}${evaluated.length > REASON_DATAPOINTS_SHOWN ? ', ...' : ''}]`;
    const plural = (k: number, word: string) => `${k} ${word}${k === 1 ? '' : 's'}`;
    let reason: string;
    if (decision.state === 'INSUFFICIENT_DATA') {
      reason = `Insufficient Data: ${plural(n - evaluated.length, 'datapoint')} of the last ${n} ${n - evaluated.length === 1 ? 'was' : 'were'} unknown and missing data is treated as missing.`;
    } else if (decision.rule === 'premature') {
      reason = `Threshold Crossed: ${plural(evaluated.length, 'datapoint')} ${list} ${evaluated.length === 1 ? 'was' : 'were'} ${op?.text ?? ''} the threshold (${fmtNumber(threshold)}) and every more recent datapoint is missing.`;
    } else if (evaluated.length === 0) {
      reason = `Threshold Crossed: no datapoints were received for ${plural(n, 'period')} and ${plural(decision.filled, 'missing datapoint')} ${decision.filled === 1 ? 'was' : 'were'} treated as [${treat === 'breaching' ? 'Breaching' : 'NonBreaching'}].`;
    } else {
      const alarmState = decision.state === 'ALARM';
      const k = alarmState
        ? decision.breaching
        : decision.evaluated.length + decision.filled - decision.breaching;
      reason =
        `Threshold Crossed: ${k} out of the last ${n} datapoints ${list} ${k === 1 ? 'was' : 'were'} ${alarmState ? '' : 'not '}${op?.text ?? ''} the threshold (${fmtNumber(threshold)})` +
        (decision.filled
          ? ` with ${plural(decision.filled, 'missing datapoint')} treated as [${treat === 'breaching' ? 'Breaching' : 'NonBreaching'}]`
          : '') +
        ` (minimum ${plural(alarmState ? m : 1, 'datapoint')} for ${alarmState ? 'OK -> ALARM' : 'ALARM -> OK'} transition).`;
    }
    const data: Record<string, unknown> = {
      version: '1.0',
      queryDate: new Date(evalTime).toISOString(),
      startDate: new Date(start).toISOString(),
      statistic: c.Statistic ?? c.ExtendedStatistic,
      period: alarmPeriod(c),
      recentDatapoints: evaluated.map((x) => x.v),
      threshold,
      evaluatedDatapoints: evaluated.map((x) => ({
        timestamp: new Date(x.t).toISOString(),
        sampleCount: x.n,
        value: x.v,
      })),
    };
    let reasonData = JSON.stringify(data);
    while (reasonData.length > MAX_STATE_REASON_DATA && (data.evaluatedDatapoints as unknown[]).length > 0) {
      (data.evaluatedDatapoints as unknown[]).pop();
      (data.recentDatapoints as unknown[]).pop();
      reasonData = JSON.stringify(data);
    }
    if (decision.state === alarm.state) {
      if (alarm.overridden) {
        alarm.reason = clip(reason, MAX_STATE_REASON);
        alarm.reasonData = reasonData;
        alarm.stateUpdatedAt = now;
      }
      alarm.overridden = false;
      return;
    }
    alarm.overridden = false;
    this.transition(alarm, decision.state, reason, reasonData, now);
  }

  private transition(
    alarm: Alarm,
    state: AlarmStateValue,
    reason: string,
    reasonData: string | undefined,
    now: number,
  ): void {
    const previous = alarm.state;
    alarm.reason = clip(reason, MAX_STATE_REASON);
    alarm.reasonData = reasonData;
    alarm.stateUpdatedAt = now;
    if (previous === state) return;
    alarm.state = state;
    alarm.stateTransitionedAt = now;
    this.record(alarm.config.AlarmName, now, 'StateUpdate', `Alarm updated from ${previous} to ${state}`, {
      version: '1.0',
      oldState: { stateValue: previous },
      newState: { stateValue: state, stateReason: alarm.reason },
    });
    const change: AlarmChange = {
      name: alarm.config.AlarmName,
      arn: alarm.arn,
      state,
      previous,
      reason: alarm.reason,
      timestamp: now,
    };
    for (const cb of this.listeners) cb(change);
  }

  private record(
    name: string,
    now: number,
    type: HistoryItem['type'],
    summary: string,
    data: Record<string, unknown>,
  ): void {
    const items = this.history.get(name) ?? [];
    items.push({
      alarmName: name,
      timestamp: now,
      type,
      summary: clip(summary, 255),
      data: clip(JSON.stringify(data), MAX_HISTORY_DATA),
    });
    if (items.length > MAX_HISTORY_PER_ALARM) items.splice(0, items.length - MAX_HISTORY_PER_ALARM);
    this.history.set(name, items);
  }

  private pruneHistory(now: number): void {
    const cutoff = now - HISTORY_RETENTION_MS;
    for (const [name, items] of this.history) {
      if (items.length && (items[0] as HistoryItem).timestamp < cutoff)
        this.history.set(
          name,
          items.filter((h) => h.timestamp >= cutoff),
        );
    }
  }
}

/**
 * A percentile needs at least 10/(1−p) samples for p ≥ 0.5, or 10/p below (CW-alarms, "Percentile-based
 * alarms and low data samples").
 */
function lowSampleCount(pPercent: number, samples: number): boolean {
  const p = pPercent / 100;
  if (p <= 0 || p >= 1) return false;
  const needed = p >= 0.5 ? 10 / (1 - p) : 10 / p;
  return samples < needed;
}
