import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../src/clock/clock.js';
import { parseScenario, ScenarioError } from '../../src/sim/scenario.js';
import { SimWorld } from '../../src/sim/world.js';
import { loadTestPlan } from './helpers.js';

const ctx = { runId: 'r', attempt: 1 };

describe('scenario files', () => {
  it('reports file:line:column, the field, the value and the expectation', () => {
    const text = ['metrics:', '  p95:', '    baseline: fast', 'injector:', '    stopLatency: soon', ''].join(
      '\n',
    );
    let error: unknown;
    try {
      parseScenario(text, 'bad.yaml');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ScenarioError);
    const lines = (error as ScenarioError).message.split('\n');
    // The plan's wording (the value, what is expected), never zod's ("Invalid input: expected number…").
    expect(lines).toContain('bad.yaml:3:15: metrics.p95.baseline: "fast" is a string; expected a number');
    expect(lines).toContain(
      'bad.yaml:5:18: injector.stopLatency: "soon" is not valid; expected a duration such as 500ms, 5s, 2m, 1h or 30d',
    );
    expect(lines.join('\n')).not.toMatch(/Invalid input|received/);
  });

  it('rejects YAML syntax errors with their position', () => {
    expect(() => parseScenario('metrics: {a: [1, 2}\n', 's.yaml')).toThrow(
      /^s\.yaml:1:\d+: YAML syntax: .*; expected valid YAML or JSON$/m,
    );
  });
});

describe('simulated world', () => {
  it('gives the same noisy value for the same series and time, whatever the call order', () => {
    const s = parseScenario('seed: 3\nmetrics:\n  x: { baseline: 1, noise: 0.5 }\n', 's.yaml');
    const a = new SimWorld(s, new VirtualClock());
    const b = new SimWorld(s, new VirtualClock());
    const spec = s.metrics.x!;
    const first = [1000, 2000, 3000].map((t) => a.valueOf('x', spec, t));
    const reversed = [3000, 2000, 1000].map((t) => b.valueOf('x', spec, t)).reverse();
    expect(first).toEqual(reversed);
    expect(new Set(first).size).toBe(3);
    for (const v of first) expect(Math.abs(v - 1)).toBeLessThanOrEqual(0.5);
  });

  it('ramps an effect after its delay and ends it recoveryLag after the fault', async () => {
    const clock = new VirtualClock(0);
    const s = parseScenario(
      [
        'metrics:',
        '  p95: { baseline: 0.1, effect: { to: 0.5, shape: ramp, delay: 2s, rampOver: 4s, recoveryLag: 3s } }',
        'injector: { actionDuration: 10s }',
      ].join('\n'),
      's.yaml',
    );
    const world = new SimWorld(s, clock);
    const spec = s.metrics.p95!;
    await world.injector.start(loadTestPlan(), 'EXT1', ctx);
    const at = (sec: number): number => Number(world.valueOf('p95', spec, sec * 1000).toFixed(6));
    expect([at(1), at(2), at(4), at(6), at(9), at(12.9), at(13)]).toEqual([
      0.1, 0.1, 0.3, 0.5, 0.5, 0.5, 0.1,
    ]);
  });

  it('moves through FIS states: running, stopping after a stop request, stopped after stopLatency', async () => {
    const clock = new VirtualClock(0);
    const world = new SimWorld(
      parseScenario('metrics: {}\ninjector: { initiating: 1s, stopLatency: 2s }\n', 's.yaml'),
      clock,
    );
    const { experimentId } = await world.injector.start(loadTestPlan(), 'EXT1', ctx);
    expect((await world.injector.state(experimentId)).status).toBe('initiating');
    await clock.sleep(1000);
    const running = await world.injector.state(experimentId);
    expect(running).toMatchObject({ status: 'running', injected: true, actions: { partition: 'running' } });
    await world.injector.stop(experimentId, 'test');
    expect((await world.injector.state(experimentId)).status).toBe('stopping');
    await clock.sleep(2000);
    expect(await world.injector.state(experimentId)).toMatchObject({
      status: 'stopped',
      actions: { partition: 'stopped' },
    });
    expect(world.injector.calls.map((c) => c.method)).toEqual([
      'start',
      'state',
      'state',
      'stop',
      'state',
      'state',
    ]);
  });

  it('reports FIS failed with the error code at the scheduled time', async () => {
    const clock = new VirtualClock(0);
    const s = parseScenario(
      'metrics: {}\ninjector: { failsAt: { at: 5s, errorCode: InvalidTarget } }\n',
      's.yaml',
    );
    const world = new SimWorld(s, clock);
    const { experimentId } = await world.injector.start(loadTestPlan(), 'EXT1', ctx);
    await clock.sleep(5000);
    expect(await world.injector.state(experimentId)).toMatchObject({
      status: 'failed',
      errorCode: 'InvalidTarget',
    });
  });
});
