import {
  DeleteAlarmsCommand,
  DescribeAlarmHistoryCommand,
  DescribeAlarmsCommand,
  PutMetricAlarmCommand,
  PutMetricDataCommand,
  SetAlarmStateCommand,
  type MetricAlarm,
  type PutMetricAlarmCommandInput,
} from '@aws-sdk/client-cloudwatch';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { decideAlarmState, parseSlots, type TreatMissingData } from '../../src/sandbox/cloudwatch/index.js';
import { startStandIn, type StandInHarness } from './cloudwatch-harness.js';

type Expect = 'OK' | 'ALARM' | 'INSUFFICIENT_DATA' | 'retain';
/** Expectations per TreatMissingData mode, in the guide's column order. */
type Row = {
  points: string;
  m: number;
  n: number;
  missing: Expect;
  ignore: Expect;
  breaching: Expect;
  notBreaching: Expect;
  source: string;
};

/**
 * The two tables of the CloudWatch User Guide, "How alarm state is evaluated when data is missing"
 * (evaluation range 5, newest datapoint on the right), copied as test vectors, plus the premature-alarm
 * examples of the June 2023 copy of that page and cases derived from the rules for other M and N.
 */
const ROWS: Row[] = [
  {
    source: 'guide 3/3 row 1',
    points: '0 - X - X',
    m: 3,
    n: 3,
    missing: 'OK',
    ignore: 'OK',
    breaching: 'OK',
    notBreaching: 'OK',
  },
  {
    source: 'guide 3/3 row 2',
    points: '0 - - - -',
    m: 3,
    n: 3,
    missing: 'OK',
    ignore: 'OK',
    breaching: 'OK',
    notBreaching: 'OK',
  },
  {
    source: 'guide 3/3 row 3',
    points: '- - - - -',
    m: 3,
    n: 3,
    missing: 'INSUFFICIENT_DATA',
    ignore: 'retain',
    breaching: 'ALARM',
    notBreaching: 'OK',
  },
  {
    source: 'guide 3/3 row 4',
    points: '0 X X - X',
    m: 3,
    n: 3,
    missing: 'ALARM',
    ignore: 'ALARM',
    breaching: 'ALARM',
    notBreaching: 'ALARM',
  },
  {
    source: 'guide 3/3 row 5 (premature)',
    points: '- - X - -',
    m: 3,
    n: 3,
    missing: 'ALARM',
    ignore: 'retain',
    breaching: 'ALARM',
    notBreaching: 'OK',
  },
  {
    source: 'guide 2/3 row 1',
    points: '0 - X - X',
    m: 2,
    n: 3,
    missing: 'ALARM',
    ignore: 'ALARM',
    breaching: 'ALARM',
    notBreaching: 'ALARM',
  },
  {
    source: 'guide 2/3 row 2',
    points: '0 0 X 0 X',
    m: 2,
    n: 3,
    missing: 'ALARM',
    ignore: 'ALARM',
    breaching: 'ALARM',
    notBreaching: 'ALARM',
  },
  {
    source: 'guide 2/3 row 3',
    points: '0 - X - -',
    m: 2,
    n: 3,
    missing: 'OK',
    ignore: 'OK',
    breaching: 'ALARM',
    notBreaching: 'OK',
  },
  {
    source: 'guide 2/3 row 4',
    points: '- - - - 0',
    m: 2,
    n: 3,
    missing: 'OK',
    ignore: 'OK',
    breaching: 'ALARM',
    notBreaching: 'OK',
  },
  {
    source: 'guide 2/3 row 5 (premature)',
    points: '- - - X -',
    m: 2,
    n: 3,
    missing: 'ALARM',
    ignore: 'retain',
    breaching: 'ALARM',
    notBreaching: 'OK',
  },
  {
    source: 'guide 2023 3/3: newest breaching is too recent',
    points: '- - - - X',
    m: 3,
    n: 3,
    missing: 'INSUFFICIENT_DATA',
    ignore: 'retain',
    breaching: 'ALARM',
    notBreaching: 'OK',
  },
  {
    source: 'guide 2023 3/3: oldest breaching',
    points: 'X - - - -',
    m: 3,
    n: 3,
    missing: 'ALARM',
    ignore: 'retain',
    breaching: 'ALARM',
    notBreaching: 'OK',
  },
  {
    source: 'guide premature text: - - - X O',
    points: '- - - X 0',
    m: 3,
    n: 3,
    missing: 'OK',
    ignore: 'OK',
    breaching: 'OK',
    notBreaching: 'OK',
  },
  // Derived: N real points exist, the newest N decide whatever the mode.
  {
    source: 'derived 1/1, last real point breaching',
    points: '- - X',
    m: 1,
    n: 1,
    missing: 'ALARM',
    ignore: 'ALARM',
    breaching: 'ALARM',
    notBreaching: 'ALARM',
  },
  {
    source: 'derived 1/1, no data',
    points: '- - -',
    m: 1,
    n: 1,
    missing: 'INSUFFICIENT_DATA',
    ignore: 'retain',
    breaching: 'ALARM',
    notBreaching: 'OK',
  },
  {
    source: 'derived 3/5, newest five X X 0 X X',
    points: '0 0 X X 0 X X',
    m: 3,
    n: 5,
    missing: 'ALARM',
    ignore: 'ALARM',
    breaching: 'ALARM',
    notBreaching: 'ALARM',
  },
  // Derived: 2 real points (one good), 3 filled: breaching 1 + 3 ≥ 3; the good point keeps missing/ignore OK.
  {
    source: 'derived 3/5, one good one bad',
    points: '- - - X 0 - -',
    m: 3,
    n: 5,
    missing: 'OK',
    ignore: 'OK',
    breaching: 'ALARM',
    notBreaching: 'OK',
  },
  // Derived: all real points breach and the oldest is 4 periods old ≥ M = 4, so the premature rule alarms.
  {
    source: 'derived 4/4, premature rule',
    points: '- - X X - -',
    m: 4,
    n: 4,
    missing: 'ALARM',
    ignore: 'retain',
    breaching: 'ALARM',
    notBreaching: 'OK',
  },
  // Derived: the oldest breaching point is only 3 periods old < M = 4: not enough to decide.
  {
    source: 'derived 4/4, too recent',
    points: '- - - X X -',
    m: 4,
    n: 4,
    missing: 'INSUFFICIENT_DATA',
    ignore: 'retain',
    breaching: 'ALARM',
    notBreaching: 'OK',
  },
  // Derived: fewer than N real points but M of them breach: ALARM without filling.
  {
    source: 'derived 2/4, two real breaching',
    points: '- X - - X -',
    m: 2,
    n: 4,
    missing: 'ALARM',
    ignore: 'ALARM',
    breaching: 'ALARM',
    notBreaching: 'ALARM',
  },
];

const MODES: TreatMissingData[] = ['missing', 'ignore', 'breaching', 'notBreaching'];

describe('alarm state decision (pure), per the user guide truth tables', () => {
  for (const row of ROWS) {
    for (const mode of MODES) {
      const want = row[mode];
      it(`${row.source}: "${row.points}" ${row.m} of ${row.n} with ${mode} → ${want}`, () => {
        const d = decideAlarmState({
          slots: parseSlots(row.points),
          evaluationPeriods: row.n,
          datapointsToAlarm: row.m,
          treatMissingData: mode,
        });
        expect(d.kind === 'retain' ? 'retain' : d.state).toBe(want);
      });
    }
  }

  it('rejects datapoint notation it does not know', () => {
    expect(() => parseSlots('0 Y -')).toThrow(/"Y"/);
  });
});

/** 2026-01-15T12:00:00Z: a minute boundary, the evaluation tick of the truth-table runs. */
const T = Date.UTC(2026, 0, 15, 12, 0, 0);
const PERIOD_MS = 60_000;

describe('alarm evaluator over the wire (JSON 1.0 SDK client, fake clock)', () => {
  let h: StandInHarness;
  const changes: Array<{ name: string; state: string }> = [];
  beforeAll(async () => {
    h = await startStandIn(T - 30_000);
    h.cw.onAlarmChange((c) => changes.push({ name: c.name, state: c.state }));
  });
  afterAll(async () => h.close());
  afterEach(() => {
    expect(h.drainProblems()).toEqual([]);
  });

  async function describeAll(prefix: string): Promise<MetricAlarm[]> {
    const out: MetricAlarm[] = [];
    let token: string | undefined;
    do {
      const page = await h.client.send(
        new DescribeAlarmsCommand({ AlarmNamePrefix: prefix, MaxRecords: 100, NextToken: token }),
      );
      out.push(...(page.MetricAlarms ?? []));
      token = page.NextToken;
    } while (token);
    return out;
  }

  it('reproduces every truth-table row for every TreatMissingData mode', async () => {
    h.clock.t = T - 30_000;
    const cases: Array<{
      name: string;
      want: Expect;
      prior: 'OK' | 'ALARM';
      row: Row;
      mode: TreatMissingData;
    }> = [];
    for (const [r, row] of ROWS.entries()) {
      const slots = parseSlots(row.points);
      const metric = `row${r}`;
      const data = slots.flatMap((s, i) =>
        s === undefined
          ? []
          : [
              {
                MetricName: metric,
                Value: s ? 5 : 0,
                Timestamp: new Date(T - (slots.length - i) * PERIOD_MS + 30_000),
              },
            ],
      );
      if (data.length)
        await h.client.send(new PutMetricDataCommand({ Namespace: 'Truth', MetricData: data }));
      for (const mode of MODES) {
        const want = row[mode];
        const priors: Array<'OK' | 'ALARM'> =
          want === 'retain' ? ['OK', 'ALARM'] : [want === 'OK' ? 'ALARM' : 'OK'];
        for (const prior of priors) {
          const name = `truth-${r}-${mode}-${prior}`;
          await h.client.send(
            new PutMetricAlarmCommand({
              AlarmName: name,
              Namespace: 'Truth',
              MetricName: metric,
              Statistic: 'Maximum',
              Period: 60,
              EvaluationPeriods: row.n,
              DatapointsToAlarm: row.m,
              Threshold: 1,
              ComparisonOperator: 'GreaterThanOrEqualToThreshold',
              TreatMissingData: mode,
            }),
          );
          await h.client.send(
            new SetAlarmStateCommand({
              AlarmName: name,
              StateValue: prior,
              StateReason: 'prior state for the test',
            }),
          );
          cases.push({ name, want, prior, row, mode });
        }
      }
    }
    h.clock.t = T + 1_000;
    h.cw.evaluate(h.clock.t);
    const alarms = new Map((await describeAll('truth-')).map((a) => [a.AlarmName, a]));
    const got = cases.map((c) => `${c.name} ${alarms.get(c.name)?.StateValue}`);
    const want = cases.map((c) => `${c.name} ${c.want === 'retain' ? c.prior : c.want}`);
    expect(got).toEqual(want);
    for (const c of cases) {
      if (c.want === 'retain') continue;
      const a = alarms.get(c.name) as MetricAlarm;
      // Every non-retained case was primed with the opposite state, so a real transition happened now.
      expect(a.StateUpdatedTimestamp?.getTime()).toBe(T + 1_000);
      expect(a.StateTransitionedTimestamp?.getTime()).toBe(T + 1_000);
      expect(a.StateReason).not.toBe('prior state for the test');
    }
    const noData = alarms.get('truth-2-breaching-OK') as MetricAlarm;
    expect(noData.StateReason).toMatch(
      /no datapoints were received for 3 periods and 3 missing datapoints were treated as \[Breaching\]/,
    );
    const insufficient = alarms.get('truth-2-missing-OK') as MetricAlarm;
    expect(insufficient.StateValue).toBe('INSUFFICIENT_DATA');
    expect(insufficient.StateReason).toMatch(/^Insufficient Data:/);
    const crossed = alarms.get('truth-3-missing-OK') as MetricAlarm;
    expect(crossed.StateReason).toMatch(
      /^Threshold Crossed: 3 out of the last 3 datapoints \[5\.0 \(15\/01\/26 11:59:00\), 5\.0 \(15\/01\/26 11:57:00\), 5\.0 \(15\/01\/26 11:56:00\)\] were greater than or equal to the threshold \(1\.0\)/,
    );
    expect(JSON.parse(crossed.StateReasonData ?? '{}')).toMatchObject({
      version: '1.0',
      period: 60,
      threshold: 1,
      recentDatapoints: [5, 5, 5],
    });
  });

  it('keeps a SetAlarmState value only until the next 60 s evaluation tick, then evaluates back', async () => {
    const base = T + 3_600_000;
    h.clock.t = base - 50_000;
    await h.client.send(
      new PutMetricDataCommand({
        Namespace: 'Override',
        MetricData: [{ MetricName: 'errors', Value: 10, Timestamp: new Date(base - 50_000) }],
      }),
    );
    await h.client.send(
      new PutMetricAlarmCommand({
        AlarmName: 'override-std',
        Namespace: 'Override',
        MetricName: 'errors',
        Statistic: 'Sum',
        Period: 60,
        EvaluationPeriods: 1,
        Threshold: 5,
        ComparisonOperator: 'GreaterThanThreshold',
      }),
    );
    h.clock.t = base + 2_000;
    h.cw.evaluate(h.clock.t);
    expect(h.cw.alarmState('override-std')).toBe('ALARM');
    changes.length = 0;
    h.clock.t = base + 5_000;
    await h.client.send(
      new SetAlarmStateCommand({
        AlarmName: 'override-std',
        StateValue: 'OK',
        StateReason: 'testing the pager',
      }),
    );
    const [overridden] =
      (await h.client.send(new DescribeAlarmsCommand({ AlarmNames: ['override-std'] }))).MetricAlarms ?? [];
    expect(overridden?.StateValue).toBe('OK');
    expect(overridden?.StateReason).toBe('testing the pager');
    for (let t = base + 6_000; t < base + 60_000; t += 1_000) h.cw.evaluate(t);
    expect(h.cw.alarmState('override-std')).toBe('OK');
    h.cw.evaluate(base + 60_000);
    // 60 s later the window [base, base+60s) has no datapoint; with 'missing' the one real point two
    // periods back still counts (it is inside the evaluation range), so the alarm goes back to ALARM.
    expect(h.cw.alarmState('override-std')).toBe('ALARM');
    expect(changes).toEqual([
      { name: 'override-std', state: 'OK' },
      { name: 'override-std', state: 'ALARM' },
    ]);
    const history = await h.client.send(
      new DescribeAlarmHistoryCommand({ AlarmName: 'override-std', HistoryItemType: 'StateUpdate' }),
    );
    expect(history.AlarmHistoryItems?.map((i) => i.HistorySummary)).toEqual([
      'Alarm updated from OK to ALARM',
      'Alarm updated from ALARM to OK',
      'Alarm updated from INSUFFICIENT_DATA to ALARM',
    ]);
  });

  it('evaluates a 10 s high-resolution alarm every 10 s, so an override lasts under 10 s', async () => {
    const base = T + 7_200_000;
    h.clock.t = base - 20_000;
    const data = Array.from({ length: 20 }, (_, i) => ({
      MetricName: 'latency',
      Value: 900,
      Timestamp: new Date(base - 20_000 + i * 1_000),
      StorageResolution: 1,
    }));
    await h.client.send(new PutMetricDataCommand({ Namespace: 'HighRes', MetricData: data }));
    await h.client.send(
      new PutMetricAlarmCommand({
        AlarmName: 'override-hr',
        Namespace: 'HighRes',
        MetricName: 'latency',
        ExtendedStatistic: 'p90',
        Period: 10,
        EvaluationPeriods: 2,
        Threshold: 500,
        ComparisonOperator: 'GreaterThanThreshold',
      }),
    );
    h.clock.t = base;
    h.cw.evaluate(base);
    expect(h.cw.alarmState('override-hr')).toBe('ALARM');
    await h.client.send(
      new SetAlarmStateCommand({ AlarmName: 'override-hr', StateValue: 'OK', StateReason: 'manual' }),
    );
    h.cw.evaluate(base + 9_000);
    expect(h.cw.alarmState('override-hr')).toBe('OK');
    h.cw.evaluate(base + 10_000);
    expect(h.cw.alarmState('override-hr')).toBe('ALARM');
  });

  it('creates alarms in INSUFFICIENT_DATA and keeps the state when PutMetricAlarm overwrites the configuration', async () => {
    const base = T + 10_800_000;
    h.clock.t = base;
    const first: PutMetricAlarmCommandInput = {
      AlarmName: 'overwrite',
      Namespace: 'Over',
      MetricName: 'm',
      Statistic: 'Sum',
      Period: 60,
      EvaluationPeriods: 3,
      DatapointsToAlarm: 2,
      Threshold: 1,
      ComparisonOperator: 'GreaterThanThreshold',
      TreatMissingData: 'breaching',
      AlarmDescription: 'first',
    };
    await h.client.send(new PutMetricAlarmCommand(first));
    let [a] =
      (await h.client.send(new DescribeAlarmsCommand({ AlarmNames: ['overwrite'] }))).MetricAlarms ?? [];
    expect(a?.StateValue).toBe('INSUFFICIENT_DATA');
    expect(a?.StateReason).toBe('Unchecked: Initial alarm creation');
    h.cw.evaluate(base + 60_000);
    expect(h.cw.alarmState('overwrite')).toBe('ALARM');
    h.clock.t = base + 61_000;
    await h.client.send(
      new PutMetricAlarmCommand({
        ...first,
        AlarmDescription: undefined,
        DatapointsToAlarm: undefined,
        Threshold: 7,
        TreatMissingData: undefined,
      }),
    );
    [a] = (await h.client.send(new DescribeAlarmsCommand({ AlarmNames: ['overwrite'] }))).MetricAlarms ?? [];
    expect(a?.StateValue).toBe('ALARM');
    expect(a?.Threshold).toBe(7);
    expect(a?.AlarmDescription).toBeUndefined();
    expect(a?.DatapointsToAlarm).toBeUndefined();
    expect(a?.TreatMissingData).toBeUndefined();
    expect(a?.AlarmConfigurationUpdatedTimestamp?.getTime()).toBe(base + 61_000);
    // The overwrite dropped TreatMissingData, so "missing" now applies: no data at all → INSUFFICIENT_DATA.
    h.cw.evaluate(base + 120_000);
    expect(h.cw.alarmState('overwrite')).toBe('INSUFFICIENT_DATA');
  });

  it('compares with each static operator exactly at the threshold', async () => {
    const base = T + 14_400_000;
    h.clock.t = base - 30_000;
    await h.client.send(
      new PutMetricDataCommand({
        Namespace: 'Ops',
        MetricData: [{ MetricName: 'v', Value: 3, Timestamp: new Date(base - 30_000) }],
      }),
    );
    const ops = {
      GreaterThanOrEqualToThreshold: 'ALARM',
      GreaterThanThreshold: 'OK',
      LessThanThreshold: 'OK',
      LessThanOrEqualToThreshold: 'ALARM',
    } as const;
    for (const op of Object.keys(ops) as Array<keyof typeof ops>) {
      await h.client.send(
        new PutMetricAlarmCommand({
          AlarmName: `op-${op}`,
          Namespace: 'Ops',
          MetricName: 'v',
          Statistic: 'Average',
          Period: 60,
          EvaluationPeriods: 1,
          Threshold: 3,
          ComparisonOperator: op,
        }),
      );
    }
    h.cw.evaluate(base);
    for (const [op, want] of Object.entries(ops))
      expect([op, h.cw.alarmState(`op-${op}`)]).toEqual([op, want]);
  });

  it('evaluates a metric-math alarm (error rate = errors / requests * 100) on the ReturnData query', async () => {
    const base = T + 18_000_000;
    h.clock.t = base - 30_000;
    await h.client.send(
      new PutMetricDataCommand({
        Namespace: 'Canary',
        MetricData: [
          {
            MetricName: 'requests',
            Value: 200,
            Timestamp: new Date(base - 30_000),
            Dimensions: [{ Name: 'Service', Value: 'api' }],
          },
          {
            MetricName: 'errors',
            Value: 30,
            Timestamp: new Date(base - 30_000),
            Dimensions: [{ Name: 'Service', Value: 'api' }],
          },
        ],
      }),
    );
    const stat = (name: string) => ({
      Metric: { Namespace: 'Canary', MetricName: name, Dimensions: [{ Name: 'Service', Value: 'api' }] },
      Period: 60,
      Stat: 'Sum',
    });
    await h.client.send(
      new PutMetricAlarmCommand({
        AlarmName: 'error-rate',
        EvaluationPeriods: 1,
        Threshold: 10,
        ComparisonOperator: 'GreaterThanThreshold',
        Metrics: [
          { Id: 'e', MetricStat: stat('errors'), ReturnData: false },
          { Id: 'r', MetricStat: stat('requests'), ReturnData: false },
          { Id: 'rate', Expression: '100 * e / r', Label: 'error rate', ReturnData: true },
        ],
      }),
    );
    h.cw.evaluate(base);
    expect(h.cw.alarmDetails('error-rate')).toMatchObject({ state: 'ALARM' });
    expect(h.cw.alarmDetails('error-rate')?.reason).toContain('15.0');
    expect(h.cw.alarmState('arn:aws:cloudwatch:us-east-1:123456789012:alarm:error-rate')).toBe('ALARM');
  });

  it('rejects alarm configurations CloudWatch rejects, naming the parameter', async () => {
    const ok: PutMetricAlarmCommandInput = {
      AlarmName: 'bad',
      Namespace: 'X',
      MetricName: 'm',
      Statistic: 'Sum',
      Period: 60,
      EvaluationPeriods: 2,
      Threshold: 1,
      ComparisonOperator: 'GreaterThanThreshold',
    };
    const cases: Array<[Partial<PutMetricAlarmCommandInput>, RegExp]> = [
      [{ Period: 45 }, /Period 45 is invalid/],
      [{ Period: 60, EvaluationPeriods: 1441 }, /must not exceed 86400/],
      [{ DatapointsToAlarm: 3 }, /DatapointsToAlarm 3/],
      [{ TreatMissingData: 'sometimes' }, /TreatMissingData sometimes/],
      [{ ExtendedStatistic: 'p99' }, /exactly one of Statistic and ExtendedStatistic/],
      [{ Metrics: [{ Id: 'm1', Expression: '1' }] }, /Metrics cannot be combined/],
    ];
    for (const [patch, message] of cases) {
      const err = await h.client.send(new PutMetricAlarmCommand({ ...ok, ...patch })).catch((e: Error) => e);
      expect(err).toBeInstanceOf(Error);
      // The JSON client maps the query code ValidationError (x-amzn-query-error) to ValidationException.
      expect((err as Error).name).toBe('ValidationException');
      expect((err as { Code?: string }).Code).toBe('ValidationError');
      expect((err as Error).message).toMatch(message);
    }
    expect(h.cw.alarmState('bad')).toBeUndefined();
  });

  it('deletes alarms, and refuses to delete names that do not exist without deleting the others', async () => {
    h.clock.t = T;
    for (const name of ['del-a', 'del-b']) {
      await h.client.send(
        new PutMetricAlarmCommand({
          AlarmName: name,
          Namespace: 'D',
          MetricName: 'm',
          Statistic: 'Sum',
          Period: 60,
          EvaluationPeriods: 1,
          Threshold: 1,
          ComparisonOperator: 'GreaterThanThreshold',
        }),
      );
    }
    const err = await h.client
      .send(new DeleteAlarmsCommand({ AlarmNames: ['del-a', 'del-nope'] }))
      .catch((e: Error) => e);
    expect((err as Error).name).toBe('ResourceNotFound');
    expect(h.cw.alarmState('del-a')).toBe('INSUFFICIENT_DATA');
    await h.client.send(new DeleteAlarmsCommand({ AlarmNames: ['del-a', 'del-b'] }));
    expect(h.cw.alarmState('del-a')).toBeUndefined();
    expect(h.cw.alarmState('del-b')).toBeUndefined();
  });
});

describe('CloudWatchStandIn in-process contract (what the sandbox server uses)', () => {
  it('claims CloudWatch requests only: JSON target, unsigned or monitoring-signed form posts, ?Action=', async () => {
    const { CloudWatchStandIn } = await import('../../src/sandbox/cloudwatch/index.js');
    const cw = new CloudWatchStandIn({ now: () => T, region: 'eu-west-1', accountId: '111122223333' });
    const req = (method: string, url: string, headers: Record<string, string>) =>
      ({ method, url, headers }) as unknown as import('node:http').IncomingMessage;
    const sig = (service: string) =>
      `AWS4-HMAC-SHA256 Credential=AKID/20260115/eu-west-1/${service}/aws4_request, SignedHeaders=host, Signature=0`;
    expect(
      cw.handles(req('POST', '/', { 'x-amz-target': 'GraniteServiceVersion20100801.GetMetricData' })),
    ).toBe(true);
    expect(
      cw.handles(req('POST', '/', { 'x-amz-target': 'ResourceGroupsTaggingAPI_20170126.GetResources' })),
    ).toBe(false);
    expect(cw.handles(req('POST', '/', { 'content-type': 'application/x-www-form-urlencoded' }))).toBe(true);
    expect(
      cw.handles(
        req('POST', '/', {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: sig('monitoring'),
        }),
      ),
    ).toBe(true);
    expect(
      cw.handles(
        req('POST', '/', { 'content-type': 'application/x-www-form-urlencoded', authorization: sig('sts') }),
      ),
    ).toBe(false);
    expect(cw.handles(req('GET', '/?Action=DescribeAlarms&Version=2010-08-01', {}))).toBe(true);
    expect(
      cw.handles(
        req('POST', '/experiments', { 'content-type': 'application/json', authorization: sig('fis') }),
      ),
    ).toBe(false);
  });

  it('takes canary datapoints through putDatum and reports transitions through onAlarmChange', async () => {
    const { CloudWatchStandIn } = await import('../../src/sandbox/cloudwatch/index.js');
    let now = T;
    const cw = new CloudWatchStandIn({ now: () => now, region: 'eu-west-1', accountId: '111122223333' });
    const seen: Array<{ name: string; arn: string; state: string; reason: string }> = [];
    cw.onAlarmChange((a) => seen.push(a));
    {
      const server = await import('node:http');
      const srv = server.createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => void cw.handle(req, Buffer.concat(chunks), res));
      });
      await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
      const port = (srv.address() as { port: number }).port;
      const { CloudWatchClient } = await import('@aws-sdk/client-cloudwatch');
      const client = new CloudWatchClient({
        endpoint: `http://127.0.0.1:${port}`,
        region: 'eu-west-1',
        credentials: { accessKeyId: 'a', secretAccessKey: 'b' },
      });
      await client.send(
        new PutMetricAlarmCommand({
          AlarmName: 'canary-5xx',
          Namespace: 'ChaosGate/Canary',
          MetricName: 'errors',
          Dimensions: [{ Name: 'Outcome', Value: '5xx' }],
          Statistic: 'Sum',
          Period: 10,
          EvaluationPeriods: 1,
          Threshold: 3,
          ComparisonOperator: 'GreaterThanOrEqualToThreshold',
          TreatMissingData: 'notBreaching',
        }),
      );
      client.destroy();
      srv.closeAllConnections();
      await new Promise<void>((r) => srv.close(() => r()));
      for (let s = 0; s < 10; s++) {
        cw.putDatum({
          namespace: 'ChaosGate/Canary',
          metricName: 'errors',
          dimensions: { Outcome: '5xx' },
          value: 1,
          timestamp: T + s * 1000,
          storageResolution: 1,
          unit: 'Count',
        });
      }
      now = T + 10_500;
      cw.evaluate(now);
      expect(cw.alarmState('canary-5xx')).toBe('ALARM');
      expect(seen).toEqual([
        {
          name: 'canary-5xx',
          arn: 'arn:aws:cloudwatch:eu-west-1:111122223333:alarm:canary-5xx',
          state: 'ALARM',
          reason: expect.stringMatching(/^Threshold Crossed: 1 out of the last 1 datapoints \[10\.0 /),
        },
      ]);
      // The breaching period stays inside the evaluation range (N + 2 = 3 periods) for two more ticks,
      // and a real datapoint there outranks notBreaching filling.
      now = T + 30_500;
      cw.evaluate(now);
      expect(seen.map((s) => s.state)).toEqual(['ALARM']);
      now = T + 40_500;
      cw.evaluate(now);
      expect(seen.map((s) => s.state)).toEqual(['ALARM', 'OK']);
      expect(() =>
        cw.putDatum({ namespace: 'N', metricName: 'm', dimensions: {}, value: NaN, timestamp: T }),
      ).toThrow(/NaN/);
    }
  });
});
