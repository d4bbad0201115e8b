import { describe, expect, it } from 'vitest';
import {
  failoverRefusal,
  formatFailoverText,
  modelFailover,
  type FailoverInputs,
} from '../../src/analysis/failover.js';
import { model } from '../../src/cli/commands/model.js';
import type { CliIo } from '../../src/cli/command.js';

const BASE: FailoverInputs = {
  every: 5,
  failures: 3,
  depth: 'deep',
  ttl: 10,
  capacity: 'full',
  replication: 'sync',
  fault: 'region',
  minServed: 70,
  maxFailover: 15,
};

interface Case {
  name: string;
  inputs: Partial<FailoverInputs>;
  markedDownAt: number | null;
  servedShare: number;
  failoverSeconds: number | null;
  lost: number;
  criteria: { served: boolean; failover: boolean; sessions: boolean };
}

// Each expectation is derived by hand from docs/design/analysis.md#model-failover. Notation: M = mark-down = 15 + H·F; in second s
// (s ≥ M) the k = s − M + 1 -th second after the mark-down sends 10·min(1, k/TTL) rps to the secondary;
// the outage covers seconds 15..44 = 300 requests; the primary serves nothing in it.
const CASES: Case[] = [
  {
    // H=5, F=3 → M = 15 + 15 = 30. TTL 10: seconds 30..39 carry k = 1..10 rps (sum 55), 40..44 carry
    // 10 each (50) → 105/300 = 35.0 %. Failover at 30 − 15 = 15 s ≤ 15. Sync → 0 lost.
    name: 'H=5 F=3 TTL=10: marked down at 30 s, 35.0 % served, failover 15 s',
    inputs: {},
    markedDownAt: 30,
    servedShare: 35,
    failoverSeconds: 15,
    lost: 0,
    criteria: { served: false, failover: true, sessions: true },
  },
  {
    // H=2, F=2 → M = 19. TTL 2: second 19 is k=1 → 5 rps; seconds 20..44 (25 s) → 10 rps = 250.
    // 255/300 = 85.0 %. Failover 19 − 15 = 4 s.
    name: 'H=2 F=2 TTL=2: fast detection passes the gate',
    inputs: { every: 2, failures: 2, ttl: 2 },
    markedDownAt: 19,
    servedShare: 85,
    failoverSeconds: 4,
    lost: 0,
    criteria: { served: true, failover: true, sessions: true },
  },
  {
    // Same as the previous case but asynchronous replication: traffic fails over, so the 12
    // conversations with a turn in the last 10 s are lost → sessions criterion fails.
    name: 'async replication loses the 12 recent conversations on failover',
    inputs: { every: 2, failures: 2, ttl: 2, replication: 'async' },
    markedDownAt: 19,
    servedShare: 85,
    failoverSeconds: 4,
    lost: 12,
    criteria: { served: true, failover: true, sessions: false },
  },
  {
    // Shallow check + model-endpoint fault: the process answers, so nothing is detected. No
    // mark-down, no routing change: 0/300 served = 0.0 %, no failover, nothing failed over → 0 lost.
    name: 'a shallow check never detects a model-endpoint fault',
    inputs: { depth: 'shallow', fault: 'model', replication: 'async' },
    markedDownAt: null,
    servedShare: 0,
    failoverSeconds: null,
    lost: 0,
    criteria: { served: false, failover: false, sessions: true },
  },
  {
    // Deep check + model fault is detected like a region outage. H=5, F=1 → M = 20. TTL 5: seconds
    // 20..24 → 2, 4, 6, 8, 10 (30); 25..44 (20 s) → 200. 230/300 = 76.67 → 76.7 %. Failover 5 s.
    name: 'a deep check detects a model-endpoint fault like a region outage',
    inputs: { failures: 1, ttl: 5, fault: 'model' },
    markedDownAt: 20,
    servedShare: 76.7,
    failoverSeconds: 5,
    lost: 0,
    criteria: { served: true, failover: true, sessions: true },
  },
  {
    // Shallow check + region outage: the process does not answer, so it is detected. H=1, F=3 → M = 18.
    // TTL 1: every second 18..44 (27 s) sends all 10 → 270/300 = 90.0 %. Failover 3 s.
    name: 'a shallow check detects a region outage',
    inputs: { depth: 'shallow', every: 1, ttl: 1 },
    markedDownAt: 18,
    servedShare: 90,
    failoverSeconds: 3,
    lost: 0,
    criteria: { served: true, failover: true, sessions: true },
  },
  {
    // Half capacity: M = 18, TTL 1 → 10 rps offered to the secondary from 18, it serves 5:
    // 27 × 5 = 135/300 = 45.0 %. First served at 18 → failover 3 s.
    name: 'half capacity rejects the excess: 45.0 % served',
    inputs: { every: 1, ttl: 1, capacity: 'half' },
    markedDownAt: 18,
    servedShare: 45,
    failoverSeconds: 3,
    lost: 0,
    criteria: { served: false, failover: true, sessions: true },
  },
  {
    // Scaled to zero: traffic arrives at 18, nothing served for 20 s (18..37), full from 38: seconds
    // 38..44 = 7 × 10 = 70/300 = 23.33 → 23.3 %. Failover 38 − 15 = 23 s > 15.
    name: 'a secondary scaled to zero serves nothing for 20 s: failover 23 s',
    inputs: { every: 1, ttl: 1, capacity: 'zero' },
    markedDownAt: 18,
    servedShare: 23.3,
    failoverSeconds: 23,
    lost: 0,
    criteria: { served: false, failover: false, sessions: true },
  },
  {
    // H=10, F=3 → M = 45: at the recovery, nothing fails over (still reported). The primary serves
    // nothing in 15..44 → 0.0 %; no failover; async but no traffic moved → 0 lost.
    name: 'a mark-down at 45 s fails nothing over but is reported',
    inputs: { every: 10, failures: 3, replication: 'async' },
    markedDownAt: 45,
    servedShare: 0,
    failoverSeconds: null,
    lost: 0,
    criteria: { served: false, failover: false, sessions: true },
  },
  {
    // H=2.5, F=3 → M = 22.5; the first whole second after it is 23 (k=1). TTL 4: 23..25 → 2.5, 5, 7.5
    // (15); 26..44 (19 s) → 190. 205/300 = 68.33 → 68.3 % < 70. Failover 23 − 15 = 8 s.
    name: 'a fractional mark-down moves clients from the next whole second',
    inputs: { every: 2.5, failures: 3, ttl: 4 },
    markedDownAt: 22.5,
    servedShare: 68.3,
    failoverSeconds: 8,
    lost: 0,
    criteria: { served: false, failover: true, sessions: true },
  },
  {
    // Gate thresholds are inputs: the first case (35.0 %, 15 s) passes with min-served 30, max-failover 15.
    name: 'gate thresholds are configurable',
    inputs: { minServed: 30 },
    markedDownAt: 30,
    servedShare: 35,
    failoverSeconds: 15,
    lost: 0,
    criteria: { served: true, failover: true, sessions: true },
  },
];

describe('modelFailover', () => {
  it.each(CASES)('$name', (c) => {
    const result = modelFailover({ ...BASE, ...c.inputs });
    expect(result.markedDownAt).toBe(c.markedDownAt);
    expect(result.servedShare).toBe(c.servedShare);
    expect(result.failoverSeconds).toBe(c.failoverSeconds);
    expect(result.lostConversations).toBe(c.lost);
    expect(result.criteria).toEqual(c.criteria);
    expect(result.pass).toBe(c.criteria.served && c.criteria.failover && c.criteria.sessions);
  });

  it('produces 60 per-second rows at 10 rps whose outage rows add up to the served share', () => {
    // H=2, F=2, TTL=2 (85.0 %): second 19 sends 5 to the secondary, 20 onwards all 10.
    const result = modelFailover({ ...BASE, every: 2, failures: 2, ttl: 2 });
    expect(result.series).toHaveLength(60);
    expect(result.series.every((s) => s.offered === 10)).toBe(true);
    expect(result.series[14]).toMatchObject({ served: 10, servedPrimary: 10, toSecondary: 0 });
    expect(result.series[15]).toMatchObject({ served: 0, failed: 10 });
    expect(result.series[19]).toMatchObject({ toSecondary: 5, toPrimary: 5, servedSecondary: 5, served: 5 });
    const outage = result.series.filter((s) => s.t >= 15 && s.t < 45).reduce((sum, s) => sum + s.served, 0);
    expect(outage).toBe(255);
  });

  it('orders the event trace by time and names the mark-down and the failover', () => {
    const result = modelFailover(BASE);
    const times = result.events.map((e) => e.at);
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(result.events.find((e) => e.type === 'marked-down')?.at).toBe(30);
    expect(result.events.find((e) => e.type === 'failover')?.at).toBe(30);
    expect(result.events.find((e) => e.type === 'outage')?.at).toBe(15);
    expect(result.events.find((e) => e.type === 'recovered')?.at).toBe(45);
  });

  it('is deterministic: the same inputs give the same output', () => {
    expect(modelFailover({ ...BASE, capacity: 'zero' })).toEqual(
      modelFailover({ ...BASE, capacity: 'zero' }),
    );
  });

  it('survives serialization: the source embedded in the HTML page computes the same result', () => {
    const revived = new Function(
      'var __name = (f) => f; return ' + modelFailover.toString(),
    )() as typeof modelFailover;
    for (const c of CASES) {
      const inputs = { ...BASE, ...c.inputs };
      expect(revived(inputs)).toEqual(modelFailover(inputs));
    }
  });
});

describe('failoverRefusal', () => {
  it('refuses a plan whose failover section the model predicts fails, quoting the numbers', () => {
    const refusal = failoverRefusal({ failover: { ...BASE, replication: 'async' } });
    expect(refusal).toContain('served 35.0 % of outage requests < 70 %');
    expect(refusal).toContain('12 conversations lost (async replication)');
    expect(refusal).not.toContain('failover 15 s');
  });

  it('names the undetectable fault when a shallow check never marks the primary down', () => {
    expect(failoverRefusal({ failover: { ...BASE, depth: 'shallow', fault: 'model' } })).toContain(
      'a shallow health check never detects a model fault',
    );
  });

  it('accepts a plan whose failover section passes, and a plan without one', () => {
    expect(failoverRefusal({ failover: { ...BASE, every: 2, failures: 2, ttl: 2 } })).toBeNull();
    expect(failoverRefusal({})).toBeNull();
  });
});

function io(): CliIo & { stdout: string[]; stderr: string[] } {
  const stdout: string[] = [];
  const stderr: string[] = [];
  return {
    out: (t) => stdout.push(t),
    err: (t) => stderr.push(t),
    tty: false,
    env: {},
    cwd: process.cwd(),
    stdout,
    stderr,
  };
}

describe('chaos-gate model failover', () => {
  const flags = ['--every', '5', '--failures', '3', '--depth', 'deep', '--ttl', '10', '--capacity', 'full'];

  it('prints the JSON result with the documented keys and exits 1 when the gate fails', async () => {
    const out = io();
    const code = await model.run(['failover', ...flags, '--replication', 'sync', '--json'], out);
    expect(code).toBe(1);
    const json = JSON.parse(out.stdout.join('\n')) as Record<string, unknown>;
    expect(Object.keys(json)).toEqual([
      'markedDownAt',
      'servedShare',
      'failoverSeconds',
      'lostConversations',
      'pass',
      'criteria',
      'series',
      'events',
    ]);
    expect(json).toMatchObject({
      markedDownAt: 30,
      servedShare: 35,
      failoverSeconds: 15,
      lostConversations: 0,
      pass: false,
    });
  });

  it('exits 0 when the gate passes and honours --min-served / --max-failover', async () => {
    const out = io();
    const code = await model.run(['failover', ...flags, '--replication', 'sync', '--min-served', '30'], out);
    expect(code).toBe(0);
    expect(out.stdout.join('\n')).toContain('served during outage: 35.0 %   (gate ≥ 30 %)   pass');
  });

  it('rejects a missing or invalid flag naming the flag', async () => {
    await expect(model.run(['failover', ...flags], io())).rejects.toThrow(
      '--replication is missing; expected async or sync',
    );
    await expect(
      model.run(['failover', ...flags, '--replication', 'sync', '--depth', 'medium'], io()),
    ).rejects.toThrow("--depth 'medium' is not valid; expected shallow or deep");
    await expect(model.run(['nothing'], io())).rejects.toThrow(/unknown model 'nothing'/);
  });

  it('text output lists the mark-down, the criteria and why it fails', () => {
    const inputs = { ...BASE, capacity: 'zero' as const, every: 1, ttl: 1 };
    const text = formatFailoverText(modelFailover(inputs), inputs);
    expect(text).toContain('marked down at:       18 s');
    expect(text).toContain('failover:             23 s   (gate ≤ 15 s)   FAIL');
    expect(text).toContain('failover 23 s > 15 s (max-failover)');
  });
});
