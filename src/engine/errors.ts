/** Error helpers the engine shares: one wording of an unknown error, and the refusal behind a wrapped one. */
import { findCause } from '../errors/exit.js';
import { errorMessage } from '../errors/message.js';
import { InjectorRefusal } from '../injector/injector.js';

export { errorMessage } from '../errors/message.js';

/** The InjectorRefusal behind an error, if any (`step()` wraps errors with context, keeping the cause). */
export function refusalOf(error: unknown): InjectorRefusal | undefined {
  return findCause(error, (e): e is InjectorRefusal => e instanceof InjectorRefusal);
}

/** Adds context to an error thrown by a dependency, keeping the original as the cause. */
export async function step<T>(label: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    throw new Error(`${label}: ${errorMessage(error)}`, { cause: error });
  }
}
