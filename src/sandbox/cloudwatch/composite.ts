/**
 * Composite alarms of the CloudWatch stand-in (PutCompositeAlarm; DescribeAlarms with
 * `AlarmTypes: [CompositeAlarm]`). A composite alarm's state follows its `AlarmRule` over the states of
 * the alarms it names: ALARM while the rule is true, OK while it is false. The rule language is the one
 * the CloudWatch API reference gives: the functions `ALARM(name)`, `OK(name)` and
 * `INSUFFICIENT_DATA(name)` (a name or an ARN, in double quotes or bare), `TRUE`, `FALSE`, the operators
 * `AND`, `OR`, `NOT`, and parentheses; at most 10240 characters and 100 named alarms. The state is
 * worked out again whenever an alarm it could depend on changes, and on every put.
 */
import type { AlarmBook, AlarmChange } from './alarms.js';
import type { AlarmStateValue } from './evaluate.js';

/** AlarmRule length (M-CW `AlarmRule` length trait). */
export const MAX_ALARM_RULE = 10_240;
/** Alarms one rule may name (PutCompositeAlarm documentation). */
export const MAX_RULE_ALARMS = 100;

type Rule =
  | { kind: 'const'; value: boolean }
  | { kind: 'state'; state: AlarmStateValue; alarm: string }
  | { kind: 'not'; rule: Rule }
  | { kind: 'and' | 'or'; left: Rule; right: Rule };

const FUNCTIONS: Record<string, AlarmStateValue> = {
  ALARM: 'ALARM',
  OK: 'OK',
  INSUFFICIENT_DATA: 'INSUFFICIENT_DATA',
};

/** Parses an AlarmRule; throws a message naming what is wrong. */
export function parseAlarmRule(text: string): Rule {
  let i = 0;
  const space = (): void => {
    while (i < text.length && /\s/.test(text[i] as string)) i++;
  };
  const word = (): string => {
    space();
    const m = /^[A-Za-z_]+/.exec(text.slice(i));
    return m ? m[0] : '';
  };
  const expect = (c: string): void => {
    space();
    if (text[i] !== c) throw new Error(`expected '${c}' at position ${i}`);
    i++;
  };
  const name = (): string => {
    space();
    if (text[i] === '"') {
      const end = text.indexOf('"', i + 1);
      if (end < 0) throw new Error(`unclosed quote at position ${i}`);
      const n = text.slice(i + 1, end);
      i = end + 1;
      return n;
    }
    const m = /^[^()\s]+/.exec(text.slice(i));
    if (!m) throw new Error(`expected an alarm name at position ${i}`);
    i += m[0].length;
    return m[0];
  };
  const primary = (): Rule => {
    space();
    if (text[i] === '(') {
      i++;
      const r = or();
      expect(')');
      return r;
    }
    const w = word();
    if (w === 'NOT') {
      i += 3;
      return { kind: 'not', rule: primary() };
    }
    if (w === 'TRUE' || w === 'FALSE') {
      i += w.length;
      return { kind: 'const', value: w === 'TRUE' };
    }
    const state = FUNCTIONS[w];
    if (state === undefined) throw new Error(`unknown term '${w || text.slice(i, i + 10)}' at position ${i}`);
    i += w.length;
    expect('(');
    const alarm = name();
    expect(')');
    return { kind: 'state', state, alarm };
  };
  const and = (): Rule => {
    let left = primary();
    while (word() === 'AND') {
      i += 3;
      left = { kind: 'and', left, right: primary() };
    }
    return left;
  };
  const or = (): Rule => {
    let left = and();
    while (word() === 'OR') {
      i += 2;
      left = { kind: 'or', left, right: and() };
    }
    return left;
  };
  const rule = or();
  space();
  if (i < text.length) throw new Error(`unexpected '${text.slice(i, i + 10)}' at position ${i}`);
  return rule;
}

/** The alarms a rule names. */
export function ruleAlarms(rule: Rule): string[] {
  switch (rule.kind) {
    case 'const':
      return [];
    case 'state':
      return [rule.alarm];
    case 'not':
      return ruleAlarms(rule.rule);
    default:
      return [...ruleAlarms(rule.left), ...ruleAlarms(rule.right)];
  }
}

function holds(rule: Rule, stateOf: (alarm: string) => AlarmStateValue | undefined): boolean {
  switch (rule.kind) {
    case 'const':
      return rule.value;
    case 'state':
      return stateOf(rule.alarm) === rule.state;
    case 'not':
      return !holds(rule.rule, stateOf);
    case 'and':
      return holds(rule.left, stateOf) && holds(rule.right, stateOf);
    case 'or':
      return holds(rule.left, stateOf) || holds(rule.right, stateOf);
  }
}

/** A composite alarm's configuration as PutCompositeAlarm stores it. */
export interface CompositeConfig {
  AlarmName: string;
  AlarmRule: string;
  AlarmDescription?: string | undefined;
  ActionsEnabled: boolean;
  AlarmActions: string[];
  OKActions: string[];
  InsufficientDataActions: string[];
}

export interface CompositeAlarm {
  config: CompositeConfig;
  rule: Rule;
  arn: string;
  state: AlarmStateValue;
  reason: string;
  stateUpdatedAt: number;
  stateTransitionedAt: number;
  configUpdatedAt: number;
}

/** Every composite alarm of one account and Region, over the metric alarms of `metrics`. */
export class CompositeBook {
  private readonly alarms = new Map<string, CompositeAlarm>();
  private readonly listeners: Array<(c: AlarmChange) => void> = [];

  constructor(
    private readonly metrics: AlarmBook,
    private readonly arnPrefix: string,
    now: () => number,
  ) {
    metrics.onChange(() => this.refresh(now()));
  }

  onChange(cb: (c: AlarmChange) => void): void {
    this.listeners.push(cb);
  }

  find(nameOrArn: string): CompositeAlarm | undefined {
    if (nameOrArn.startsWith('arn:')) {
      for (const a of this.alarms.values()) if (a.arn === nameOrArn) return a;
      return undefined;
    }
    return this.alarms.get(nameOrArn);
  }

  list(): CompositeAlarm[] {
    return [...this.alarms.values()].sort((a, b) => (a.config.AlarmName < b.config.AlarmName ? -1 : 1));
  }

  /** The state of any alarm, metric or composite, by name or ARN. */
  stateOf(nameOrArn: string): AlarmStateValue | undefined {
    return this.metrics.find(nameOrArn)?.state ?? this.find(nameOrArn)?.state;
  }

  /** Creates or replaces a composite alarm (its rule already parsed and checked) and works out its state. */
  put(config: CompositeConfig, rule: Rule, now: number): CompositeAlarm {
    const existing = this.alarms.get(config.AlarmName);
    if (existing) {
      existing.config = config;
      existing.rule = rule;
      existing.configUpdatedAt = now;
    } else {
      this.alarms.set(config.AlarmName, {
        config,
        rule,
        arn: `${this.arnPrefix}${config.AlarmName}`,
        state: 'INSUFFICIENT_DATA',
        reason: 'Unchecked: Initial alarm creation',
        stateUpdatedAt: now,
        stateTransitionedAt: now,
        configUpdatedAt: now,
      });
    }
    this.refresh(now);
    return this.alarms.get(config.AlarmName) as CompositeAlarm;
  }

  delete(name: string): boolean {
    return this.alarms.delete(name);
  }

  /** SetAlarmState on a composite alarm: stands until an alarm of its rule changes. */
  setState(alarm: CompositeAlarm, state: AlarmStateValue, reason: string, now: number): void {
    this.transition(alarm, state, reason, now);
  }

  /**
   * Works every composite alarm's state out again. Composites may name composites, so this repeats
   * until nothing changes (bounded by the number of composites: a chain can be no longer).
   */
  refresh(now: number): void {
    for (let pass = 0; pass <= this.alarms.size; pass++) {
      let changed = false;
      for (const a of this.alarms.values()) {
        const state: AlarmStateValue = holds(a.rule, (n) => this.stateOf(n)) ? 'ALARM' : 'OK';
        if (state === a.state) continue;
        this.transition(a, state, `alarm rule evaluated to ${state === 'ALARM' ? 'TRUE' : 'FALSE'}`, now);
        changed = true;
      }
      if (!changed) return;
    }
  }

  private transition(a: CompositeAlarm, state: AlarmStateValue, reason: string, now: number): void {
    const previous = a.state;
    a.reason = reason;
    a.stateUpdatedAt = now;
    if (previous === state) return;
    a.state = state;
    a.stateTransitionedAt = now;
    const change: AlarmChange = {
      name: a.config.AlarmName,
      arn: a.arn,
      state,
      previous,
      reason,
      timestamp: now,
    };
    for (const cb of this.listeners) cb(change);
  }
}
