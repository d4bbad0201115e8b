/**
 * The engine's error helpers (src/engine/errors.ts): `step` adds what the engine was doing to an error and
 * keeps the original as its cause, so `refusalOf` still finds an injector's refusal behind the context —
 * which is what turns a refusal into the `refused` verdict instead of `failed`.
 */
import { describe, expect, it } from 'vitest';
import { refusalOf, step } from '../../src/engine/errors.js';
import { InjectorRefusal } from '../../src/injector/injector.js';

describe('step', () => {
  it('returns what the step returns', async () => {
    expect(await step('provisioning', () => Promise.resolve(42))).toBe(42);
  });

  it('names the step in the error and keeps the original as the cause', async () => {
    const original = new Error('AccessDenied');
    const error = await step('provisioning the FIS template', () => Promise.reject(original)).catch(
      (e: unknown) => e as Error,
    );
    expect(error.message).toBe('provisioning the FIS template: AccessDenied');
    expect(error.cause).toBe(original);
  });
});

describe('refusalOf', () => {
  it('finds a refusal behind any number of steps, and nothing behind a plain error', async () => {
    const refusal = new InjectorRefusal('the kill switch is engaged', 'fis.stopConditions');
    const wrapped = await step('outer', () => step('inner', () => Promise.reject(refusal))).catch(
      (e: unknown) => e,
    );
    expect(refusalOf(wrapped)).toBe(refusal);
    expect(refusalOf(new Error('x', { cause: new Error('y') }))).toBeUndefined();
    expect(refusalOf(undefined)).toBeUndefined();
  });
});
