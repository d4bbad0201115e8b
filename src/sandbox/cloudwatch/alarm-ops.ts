/**
 * The CloudWatch alarm operations: PutMetricAlarm (single-metric and metric-math alarms),
 * PutCompositeAlarm (composite.ts), DescribeAlarms,
 * DeleteAlarms, SetAlarmState and DescribeAlarmHistory, over the alarm book in `alarms.ts`.
 */
import { STATIC_COMPARISON_OPERATORS, type Alarm, type AlarmConfig } from './alarms.js';
import {
  invalidFormat,
  invalidParameterCombination,
  invalidParameterValue,
  limitExceeded,
  resourceNotFound,
  validationError,
} from './errors.js';
import type { AlarmStateValue } from './evaluate.js';
import {
  MAX_ALARM_RULE,
  MAX_RULE_ALARMS,
  parseAlarmRule,
  ruleAlarms,
  type CompositeAlarm,
} from './composite.js';
import {
  checkDimensions,
  decodeToken,
  encodeToken,
  STANDARD_UNITS,
  STATISTICS,
  str,
  type CloudWatchState,
  type Input,
  type Output,
} from './operation.js';
import { runQueries, type MetricDataQueryInput } from './query.js';
import { parseStat, type Dimension } from './store.js';

/** DescribeAlarms / DescribeAlarmHistory page size defaults and limits (M-CW `MaxRecords`, 1–100). */
export const DEFAULT_DESCRIBE_ALARMS_RECORDS = 50;
export const DEFAULT_HISTORY_RECORDS = 100;
/** DeleteAlarms / DescribeAlarms AlarmNames: at most 100 (M-CW `AlarmNames` length trait). */
export const MAX_ALARM_NAMES = 100;
/** Alarms per Region (CW-alarms, "Common features": 5000). */
export const MAX_ALARMS = 5000;
/** Period × EvaluationPeriods may not exceed one day (CW-alarms). */
export const MAX_ALARM_WINDOW_S = 86_400;
/** At most 5 actions per state (docs/design/cloudwatch.md#quotas, M-CW `ResourceList` length trait). */
export const MAX_ACTIONS_PER_STATE = 5;
/** Metric-math alarms: at most 20 queries (docs/design/cloudwatch.md#putmetricalarm). */
export const MAX_ALARM_METRICS = 20;

const STATE_VALUES = new Set(['OK', 'ALARM', 'INSUFFICIENT_DATA']);
const TREAT_MISSING = new Set(['breaching', 'notBreaching', 'ignore', 'missing']);
const ALARM_PERIODS_BELOW_MINUTE = [10, 30];

/** PutMetricAlarm: creates or replaces a metric alarm (static thresholds only). */
export function putMetricAlarm(cw: CloudWatchState, input: Input): Output {
  const now = cw.now();
  const name = str(input.AlarmName);
  if (name === undefined) throw validationError('The parameter AlarmName is required.');
  if (name.length < 1 || name.length > 255 || !/^[\x20-\x7e]+$/.test(name))
    throw validationError(
      `AlarmName ${JSON.stringify(name.slice(0, 40))} must be 1 to 255 printable ASCII characters.`,
    );
  const n = input.EvaluationPeriods as number | undefined;
  if (n === undefined) throw validationError('The parameter EvaluationPeriods is required.');
  if (n < 1) throw validationError('EvaluationPeriods must be at least 1.');
  const op = str(input.ComparisonOperator);
  if (op === undefined) throw validationError('The parameter ComparisonOperator is required.');
  if (!STATIC_COMPARISON_OPERATORS.includes(op))
    throw validationError(
      `ComparisonOperator ${op} is not supported here; use one of ${STATIC_COMPARISON_OPERATORS.join(', ')}.`,
    );
  if (input.ThresholdMetricId !== undefined)
    throw validationError('ThresholdMetricId (anomaly detection bands) is not supported by the stand-in.');
  if (input.Threshold === undefined) throw validationError('The parameter Threshold is required.');
  const m = input.DatapointsToAlarm as number | undefined;
  if (m !== undefined && (m < 1 || m > n))
    throw validationError(`DatapointsToAlarm ${m} must be between 1 and EvaluationPeriods (${n}).`);
  const treat = str(input.TreatMissingData);
  if (treat !== undefined && !TREAT_MISSING.has(treat))
    throw validationError(
      `TreatMissingData ${treat} must be one of breaching, notBreaching, ignore, missing.`,
    );
  const lowSample = str(input.EvaluateLowSampleCountPercentile);
  if (lowSample !== undefined && lowSample !== 'evaluate' && lowSample !== 'ignore')
    throw validationError(`EvaluateLowSampleCountPercentile ${lowSample} must be evaluate or ignore.`);
  for (const k of ['OKActions', 'AlarmActions', 'InsufficientDataActions']) {
    const list = (input[k] as string[] | undefined) ?? [];
    if (list.length > MAX_ACTIONS_PER_STATE)
      throw validationError(`${k} may hold at most ${MAX_ACTIONS_PER_STATE} actions.`);
  }
  const unit = str(input.Unit);
  if (unit !== undefined && !STANDARD_UNITS.has(unit))
    throw validationError(`Unit ${unit} is not a StandardUnit.`);
  const metrics = input.Metrics as MetricDataQueryInput[] | undefined;
  let period: number;
  if (metrics !== undefined) {
    for (const k of [
      'MetricName',
      'Namespace',
      'Statistic',
      'ExtendedStatistic',
      'Dimensions',
      'Period',
      'Unit',
    ])
      if (input[k] !== undefined)
        throw validationError(`Metrics cannot be combined with ${k}: use either a single metric or Metrics.`);
    if (metrics.length === 0 || metrics.length > MAX_ALARM_METRICS)
      throw validationError(`Metrics must hold 1 to ${MAX_ALARM_METRICS} queries.`);
    const returning = metrics.filter((q) => q.ReturnData !== false);
    if (returning.length !== 1)
      throw validationError(
        `Exactly one query in Metrics must have ReturnData true; ${returning.length} do. Set ReturnData false on the others.`,
      );
    runQueries(cw.store, metrics, 0, 0);
    const ret = returning[0] as MetricDataQueryInput;
    period =
      ret.MetricStat?.Period ?? ret.Period ?? metrics.find((q) => q.MetricStat)?.MetricStat?.Period ?? 60;
    for (const q of metrics) {
      const p = q.MetricStat?.Period ?? q.Period;
      if (p !== undefined && !ALARM_PERIODS_BELOW_MINUTE.includes(p) && p % 60 !== 0)
        throw validationError(`The period of query ${q.Id} must be 10, 30 or a multiple of 60.`);
    }
  } else {
    if (input.MetricName === undefined || input.Namespace === undefined)
      throw validationError('A single-metric alarm needs MetricName and Namespace (or use Metrics).');
    const stat = str(input.Statistic);
    const ext = str(input.ExtendedStatistic);
    if ((stat === undefined) === (ext === undefined))
      throw validationError('Give exactly one of Statistic and ExtendedStatistic.');
    if (stat !== undefined && !STATISTICS.has(stat))
      throw validationError(`Statistic ${stat} is not one of ${[...STATISTICS].join(', ')}.`);
    if (ext !== undefined && parseStat(ext)?.kind !== 'percentile')
      throw validationError(`ExtendedStatistic ${ext} is not supported; use a percentile such as p99.`);
    if (input.Period === undefined)
      throw validationError('The parameter Period is required for a single-metric alarm.');
    period = input.Period as number;
    checkDimensions(input.Dimensions as Dimension[] | undefined, 'PutMetricAlarm');
  }
  if (!ALARM_PERIODS_BELOW_MINUTE.includes(period) && (period <= 0 || period % 60 !== 0))
    throw validationError(`Period ${period} is invalid: valid values are 10, 30 and any multiple of 60.`);
  if (period * n > MAX_ALARM_WINDOW_S)
    throw validationError(
      `Period (${period}) times EvaluationPeriods (${n}) must not exceed ${MAX_ALARM_WINDOW_S} seconds.`,
    );
  if (!cw.alarms.find(name) && cw.alarms.list().length >= MAX_ALARMS)
    throw limitExceeded(`The maximum of ${MAX_ALARMS} alarms has been reached.`);
  const config: AlarmConfig = {
    AlarmName: name,
    AlarmDescription: str(input.AlarmDescription),
    ActionsEnabled: (input.ActionsEnabled as boolean | undefined) ?? true,
    OKActions: (input.OKActions as string[] | undefined) ?? [],
    AlarmActions: (input.AlarmActions as string[] | undefined) ?? [],
    InsufficientDataActions: (input.InsufficientDataActions as string[] | undefined) ?? [],
    MetricName: str(input.MetricName),
    Namespace: str(input.Namespace),
    Statistic: str(input.Statistic),
    ExtendedStatistic: str(input.ExtendedStatistic),
    Dimensions: (input.Dimensions as Dimension[] | undefined) ?? [],
    Period: input.Period as number | undefined,
    Unit: unit,
    EvaluationPeriods: n,
    DatapointsToAlarm: m,
    Threshold: input.Threshold as number,
    ComparisonOperator: op,
    TreatMissingData: treat,
    EvaluateLowSampleCountPercentile: lowSample,
    Metrics: metrics,
    ThresholdMetricId: undefined,
    Tags: (input.Tags as Array<{ Key: string; Value: string }> | undefined) ?? [],
  };
  cw.alarms.put(config, now);
  return undefined;
}

/** An alarm as DescribeAlarms lists it under MetricAlarms. */
function describeAlarm(a: Alarm): Record<string, unknown> {
  const c = a.config;
  return {
    AlarmName: c.AlarmName,
    AlarmArn: a.arn,
    AlarmDescription: c.AlarmDescription,
    AlarmConfigurationUpdatedTimestamp: new Date(a.configUpdatedAt),
    ActionsEnabled: c.ActionsEnabled,
    OKActions: c.OKActions,
    AlarmActions: c.AlarmActions,
    InsufficientDataActions: c.InsufficientDataActions,
    StateValue: a.state,
    StateReason: a.reason,
    StateReasonData: a.reasonData,
    StateUpdatedTimestamp: new Date(a.stateUpdatedAt),
    MetricName: c.MetricName,
    Namespace: c.Namespace,
    Statistic: c.Statistic,
    ExtendedStatistic: c.ExtendedStatistic,
    Dimensions: c.Metrics ? undefined : c.Dimensions,
    Period: c.Period,
    Unit: c.Unit,
    EvaluationPeriods: c.EvaluationPeriods,
    DatapointsToAlarm: c.DatapointsToAlarm,
    Threshold: c.Threshold,
    ComparisonOperator: c.ComparisonOperator,
    TreatMissingData: c.TreatMissingData,
    EvaluateLowSampleCountPercentile: c.EvaluateLowSampleCountPercentile,
    Metrics: c.Metrics,
    StateTransitionedTimestamp: new Date(a.stateTransitionedAt),
  };
}

function describeComposite(a: CompositeAlarm): Record<string, unknown> {
  const c = a.config;
  return {
    AlarmName: c.AlarmName,
    AlarmArn: a.arn,
    AlarmDescription: c.AlarmDescription,
    AlarmRule: c.AlarmRule,
    ActionsEnabled: c.ActionsEnabled,
    AlarmActions: c.AlarmActions,
    OKActions: c.OKActions,
    InsufficientDataActions: c.InsufficientDataActions,
    AlarmConfigurationUpdatedTimestamp: new Date(a.configUpdatedAt),
    StateValue: a.state,
    StateReason: a.reason,
    StateUpdatedTimestamp: new Date(a.stateUpdatedAt),
    StateTransitionedTimestamp: new Date(a.stateTransitionedAt),
  };
}

/**
 * PutCompositeAlarm: creates or replaces a composite alarm. Every alarm its rule names must exist (a
 * metric or a composite alarm, not itself); actions suppressors are not modelled and are refused.
 */
export function putCompositeAlarm(cw: CloudWatchState, input: Input): Output {
  const name = str(input.AlarmName);
  if (name === undefined) throw validationError('The parameter AlarmName is required.');
  if (name.length < 1 || name.length > 255 || !/^[\x20-\x7e]+$/.test(name))
    throw validationError(
      `AlarmName ${JSON.stringify(name.slice(0, 40))} must be 1 to 255 printable ASCII characters.`,
    );
  if (cw.alarms.find(name)) throw invalidParameterCombination(`A metric alarm named ${name} already exists.`);
  const text = str(input.AlarmRule);
  if (text === undefined) throw validationError('The parameter AlarmRule is required.');
  if (text.length < 1 || text.length > MAX_ALARM_RULE)
    throw validationError(`AlarmRule must be 1 to ${MAX_ALARM_RULE} characters.`);
  let rule: ReturnType<typeof parseAlarmRule>;
  try {
    rule = parseAlarmRule(text);
  } catch (error) {
    throw validationError(`AlarmRule is not valid: ${(error as Error).message}.`);
  }
  const named = [...new Set(ruleAlarms(rule))];
  if (named.length > MAX_RULE_ALARMS)
    throw validationError(`AlarmRule names ${named.length} alarms; at most ${MAX_RULE_ALARMS}.`);
  const missing = named.filter((n) => n === name || (!cw.alarms.find(n) && !cw.composites.find(n)));
  if (missing.length)
    throw validationError(
      `Could not save the composite alarm as alarms [${missing.join(', ')}] in the alarm rule do not exist.`,
    );
  if (input.ActionsSuppressor !== undefined)
    throw validationError('ActionsSuppressor is not supported by the stand-in.');
  for (const k of ['OKActions', 'AlarmActions', 'InsufficientDataActions']) {
    const list = (input[k] as string[] | undefined) ?? [];
    if (list.length > MAX_ACTIONS_PER_STATE)
      throw validationError(`${k} may hold at most ${MAX_ACTIONS_PER_STATE} actions.`);
  }
  cw.composites.put(
    {
      AlarmName: name,
      AlarmRule: text,
      AlarmDescription: str(input.AlarmDescription),
      ActionsEnabled: (input.ActionsEnabled as boolean | undefined) ?? true,
      AlarmActions: (input.AlarmActions as string[] | undefined) ?? [],
      OKActions: (input.OKActions as string[] | undefined) ?? [],
      InsufficientDataActions: (input.InsufficientDataActions as string[] | undefined) ?? [],
    },
    rule,
    cw.now(),
  );
  return undefined;
}

/** DescribeAlarms: metric alarms (and composite ones when AlarmTypes asks) by name, prefix, state or action prefix. */
export function describeAlarms(cw: CloudWatchState, input: Input): Output {
  const names = input.AlarmNames as string[] | undefined;
  const prefix = str(input.AlarmNamePrefix);
  if (names && names.length > MAX_ALARM_NAMES)
    throw validationError(`AlarmNames may hold at most ${MAX_ALARM_NAMES} names.`);
  if (names && prefix !== undefined)
    throw invalidParameterCombination('AlarmNames and AlarmNamePrefix cannot be given together.');
  const state = str(input.StateValue);
  if (state !== undefined && !STATE_VALUES.has(state))
    throw invalidParameterValue(`StateValue ${state} must be OK, ALARM or INSUFFICIENT_DATA.`);
  const max = (input.MaxRecords as number | undefined) ?? DEFAULT_DESCRIBE_ALARMS_RECORDS;
  if (max < 1 || max > 100) throw invalidParameterValue('MaxRecords must be between 1 and 100.');
  const types = input.AlarmTypes as string[] | undefined;
  const wantMetric =
    (types === undefined || types.length === 0 || types.includes('MetricAlarm')) &&
    input.ChildrenOfAlarmName === undefined &&
    input.ParentsOfAlarmName === undefined;
  const wantComposite =
    types !== undefined &&
    types.includes('CompositeAlarm') &&
    input.ChildrenOfAlarmName === undefined &&
    input.ParentsOfAlarmName === undefined;
  const actionPrefix = str(input.ActionPrefix);
  const composites = wantComposite
    ? cw.composites.list().filter((a) => {
        if (names && names.length > 0 && !names.includes(a.config.AlarmName)) return false;
        if (prefix !== undefined && !a.config.AlarmName.startsWith(prefix)) return false;
        if (state !== undefined && a.state !== state) return false;
        if (actionPrefix !== undefined) {
          const all = [...a.config.OKActions, ...a.config.AlarmActions, ...a.config.InsufficientDataActions];
          if (!all.some((x) => x.startsWith(actionPrefix))) return false;
        }
        return true;
      })
    : [];
  const matching = wantMetric
    ? cw.alarms.list().filter((a) => {
        if (names && names.length > 0 && !names.includes(a.config.AlarmName)) return false;
        if (prefix !== undefined && !a.config.AlarmName.startsWith(prefix)) return false;
        if (state !== undefined && a.state !== state) return false;
        if (actionPrefix !== undefined) {
          const all = [...a.config.OKActions, ...a.config.AlarmActions, ...a.config.InsufficientDataActions];
          if (!all.some((x) => x.startsWith(actionPrefix))) return false;
        }
        return true;
      })
    : [];
  const key = JSON.stringify([names, prefix, state, max, types, actionPrefix]);
  const offset = decodeToken(str(input.NextToken), key);
  // One listing, metric alarms first, paged as a whole.
  const all: Array<{ metric: Alarm } | { composite: CompositeAlarm }> = [
    ...matching.map((metric) => ({ metric })),
    ...composites.map((composite) => ({ composite })),
  ];
  const page = all.slice(offset, offset + max);
  return {
    CompositeAlarms: page.flatMap((x) => ('composite' in x ? [describeComposite(x.composite)] : [])),
    MetricAlarms: page.flatMap((x) => ('metric' in x ? [describeAlarm(x.metric)] : [])),
    ...(offset + max < all.length ? { NextToken: encodeToken(offset + max, key) } : {}),
  };
}

/** DeleteAlarms: all named alarms, or none when one of them does not exist. */
export function deleteAlarms(cw: CloudWatchState, input: Input): Output {
  const names = input.AlarmNames as string[] | undefined;
  if (names === undefined) throw validationError('The parameter AlarmNames is required.');
  if (names.length > MAX_ALARM_NAMES)
    throw validationError(`AlarmNames may hold at most ${MAX_ALARM_NAMES} names.`);
  const missing = names.filter((n) => (!cw.alarms.find(n) && !cw.composites.find(n)) || n.startsWith('arn:'));
  if (missing.length)
    throw resourceNotFound(`Alarm${missing.length > 1 ? 's' : ''} not found: ${missing.join(', ')}`);
  for (const n of names) cw.composites.delete(n);
  cw.alarms.delete(names.filter((n) => cw.alarms.find(n)));
  return undefined;
}

/** SetAlarmState: sets an alarm's state until its next evaluation. */
export function setAlarmState(cw: CloudWatchState, input: Input): Output {
  const name = str(input.AlarmName);
  const state = str(input.StateValue);
  const reason = str(input.StateReason);
  if (name === undefined) throw validationError('The parameter AlarmName is required.');
  if (state === undefined) throw validationError('The parameter StateValue is required.');
  if (reason === undefined) throw validationError('The parameter StateReason is required.');
  if (!STATE_VALUES.has(state))
    throw validationError(`StateValue ${state} must be OK, ALARM or INSUFFICIENT_DATA.`);
  if (reason.length > 1023) throw validationError('StateReason must be at most 1023 characters.');
  const data = str(input.StateReasonData);
  if (data !== undefined) {
    if (data.length > 4000) throw validationError('StateReasonData must be at most 4000 characters.');
    try {
      JSON.parse(data);
    } catch {
      throw invalidFormat('StateReasonData is not valid JSON.');
    }
  }
  const composite = name.startsWith('arn:') ? undefined : cw.composites.find(name);
  if (composite) {
    // Not guaranteed to revert: it stands until an alarm of its rule changes.
    cw.composites.setState(composite, state as AlarmStateValue, reason, cw.now());
    return undefined;
  }
  const alarm = cw.alarms.find(name);
  if (!alarm || name.startsWith('arn:')) throw resourceNotFound(`Alarm ${name} not found`);
  cw.alarms.setState(alarm, state as AlarmStateValue, reason, data, cw.now());
  return undefined;
}

/** DescribeAlarmHistory: an alarm's (or every alarm's) history items, newest first by default. */
export function describeAlarmHistory(cw: CloudWatchState, input: Input): Output {
  const name = str(input.AlarmName);
  const type = str(input.HistoryItemType);
  if (type !== undefined && !['ConfigurationUpdate', 'StateUpdate', 'Action'].includes(type))
    throw validationError(`HistoryItemType ${type} must be ConfigurationUpdate, StateUpdate or Action.`);
  const from = input.StartDate as number | undefined;
  const to = input.EndDate as number | undefined;
  const max = (input.MaxRecords as number | undefined) ?? DEFAULT_HISTORY_RECORDS;
  if (max < 1 || max > 100) throw validationError('MaxRecords must be between 1 and 100.');
  const scanBy = str(input.ScanBy) ?? 'TimestampDescending';
  const types = input.AlarmTypes as string[] | undefined;
  let items = types && types.length && !types.includes('MetricAlarm') ? [] : cw.alarms.historyOf(name);
  items = items.filter(
    (h) =>
      (type === undefined || h.type === type) &&
      (from === undefined || h.timestamp >= from) &&
      (to === undefined || h.timestamp <= to),
  );
  if (scanBy === 'TimestampAscending') items.reverse();
  const key = JSON.stringify([name, type, from, to, max, scanBy, types]);
  const offset = decodeToken(str(input.NextToken), key);
  const page = items.slice(offset, offset + max);
  return {
    AlarmHistoryItems: page.map((h) => ({
      AlarmName: h.alarmName,
      AlarmType: 'MetricAlarm',
      Timestamp: new Date(h.timestamp),
      HistoryItemType: h.type,
      HistorySummary: h.summary,
      HistoryData: h.data,
    })),
    ...(offset + max < items.length ? { NextToken: encodeToken(offset + max, key) } : {}),
  };
}
