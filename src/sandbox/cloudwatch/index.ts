/**
 * The sandbox's CloudWatch stand-in, the one object the sandbox server mounts: it routes each operation
 * to the metric operations (`metric-ops.ts`) or the alarm operations (`alarm-ops.ts`, composite alarms in
 * `composite.ts`) over the wire
 * protocols of `protocol.ts`, and runs the alarm evaluator (docs/design/cloudwatch.md#wire-protocols, docs/design/cloudwatch.md).
 *
 * The sandbox server mounts it on its `aws` port: it asks {@link CloudWatchStandIn.handles} for each
 * request, passes the body to {@link CloudWatchStandIn.handle}, and calls
 * {@link CloudWatchStandIn.evaluate} every second with its clock.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  deleteAlarms,
  describeAlarmHistory,
  describeAlarms,
  putCompositeAlarm,
  putMetricAlarm,
  setAlarmState,
} from './alarm-ops.js';
import { AlarmBook } from './alarms.js';
import { CompositeBook } from './composite.js';
import { invalidAction } from './errors.js';
import type { AlarmStateValue } from './evaluate.js';
import {
  getMetricData,
  getMetricStatistics,
  listMetrics,
  putDatum,
  putMetricData,
  type Datum,
} from './metric-ops.js';
import type { CloudWatchState, Input, Output } from './operation.js';
import { isCloudWatchRequest, serveRequest } from './protocol.js';
import { MetricStore } from './store.js';

export { decideAlarmState, parseSlots, TREAT_MISSING_DATA_MODES } from './evaluate.js';
export type { AlarmStateValue, TreatMissingData, Slot, Decision } from './evaluate.js';
export type { Datum } from './metric-ops.js';

/** A state transition, as {@link CloudWatchStandIn.onAlarmChange} listeners see it. */
export interface AlarmChangeEvent {
  name: string;
  arn: string;
  state: string;
  reason: string;
}

/** Options of the stand-in. */
export interface CloudWatchStandInOptions {
  now: () => number;
  region: string;
  accountId: string;
}

/** The CloudWatch stand-in (one account, one Region). */
export class CloudWatchStandIn {
  private readonly state: CloudWatchState;
  private requests = 0;

  constructor(opts: CloudWatchStandInOptions) {
    const store = new MetricStore();
    const arnPrefix = `arn:aws:cloudwatch:${opts.region}:${opts.accountId}:alarm:`;
    const alarms = new AlarmBook(store, arnPrefix);
    this.state = {
      now: opts.now,
      store,
      alarms,
      composites: new CompositeBook(alarms, arnPrefix, opts.now),
    };
  }

  /**
   * True for CloudWatch traffic: an `X-Amz-Target: GraniteServiceVersion20100801.*` header, or an
   * awsQuery request (form POST, or `?Action=`) that is unsigned or signed for `monitoring`.
   */
  handles(req: IncomingMessage): boolean {
    return isCloudWatchRequest(req);
  }

  /** Answers one request (the body already read). Never throws: failures become protocol errors. */
  async handle(req: IncomingMessage, body: Buffer, res: ServerResponse): Promise<void> {
    this.requests++;
    serveRequest(req, body, res, (operation, input) => this.dispatch(operation, input));
  }

  /** Requests answered so far (for the sandbox's admin endpoint). */
  get requestCount(): number {
    return this.requests;
  }

  /** Publishes one datapoint without HTTP (the canary's path). Bad values throw. */
  putDatum(d: Datum): void {
    putDatum(this.state, d);
  }

  /** The state of an alarm by name or ARN; undefined when there is no such alarm. */
  alarmState(arnOrName: string): AlarmStateValue | undefined {
    return this.state.composites.stateOf(arnOrName);
  }

  /** The alarm's current reason and timestamps, for the admin endpoint and tests. */
  alarmDetails(
    arnOrName: string,
  ): { state: AlarmStateValue; reason: string; stateUpdatedAt: number; arn: string } | undefined {
    const a = this.state.alarms.find(arnOrName);
    return a && { state: a.state, reason: a.reason, stateUpdatedAt: a.stateUpdatedAt, arn: a.arn };
  }

  /** Evaluates the alarms whose 10 s / 60 s tick has come; call every second with the sandbox clock. */
  evaluate(now: number): void {
    this.state.alarms.evaluate(now);
    this.state.store.prune(now);
  }

  /** Registers a listener for alarm state transitions (evaluations and SetAlarmState). */
  onAlarmChange(cb: (a: AlarmChangeEvent) => void): void {
    const tell = (c: AlarmChangeEvent): void =>
      cb({ name: c.name, arn: c.arn, state: c.state, reason: c.reason });
    this.state.alarms.onChange(tell);
    this.state.composites.onChange(tell);
  }

  private dispatch(operation: string, input: Input): Output {
    const cw = this.state;
    switch (operation) {
      case 'PutMetricData':
        return putMetricData(cw, input);
      case 'GetMetricData':
        return getMetricData(cw, input);
      case 'GetMetricStatistics':
        return getMetricStatistics(cw, input);
      case 'PutMetricAlarm':
        return putMetricAlarm(cw, input);
      case 'PutCompositeAlarm':
        return putCompositeAlarm(cw, input);
      case 'DescribeAlarms':
        return describeAlarms(cw, input);
      case 'DeleteAlarms':
        return deleteAlarms(cw, input);
      case 'SetAlarmState':
        return setAlarmState(cw, input);
      case 'ListMetrics':
        return listMetrics(cw, input);
      case 'DescribeAlarmHistory':
        return describeAlarmHistory(cw, input);
      default:
        throw invalidAction(`The operation ${operation} is not supported by the CloudWatch stand-in.`);
    }
  }
}
