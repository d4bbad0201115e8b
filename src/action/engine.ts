/**
 * The engine behind `command: run` in the action. The concrete wiring (plan loading, the FIS
 * injector and lease, the metric sources from `prometheus-url`/`prometheus-headers`, the preflight
 * gates and policy) belongs here and is not connected yet: until it is, a run ends as `failed` with
 * this message, and the reporters still complete the check run and the outputs.
 */
import type { Journal } from '../journal/types.js';
import type { GateRequest } from './run.js';

/** Runs the gate for the action; see the module comment for its current state. */
export async function runEngine(req: GateRequest): Promise<Journal> {
  void req;
  throw new Error(
    'chaos-gate: the action engine wiring (FIS injector, metric sources, preflight gates) is not connected yet',
  );
}
