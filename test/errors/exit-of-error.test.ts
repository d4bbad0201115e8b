/**
 * Errors carry their exit code (src/errors/exit.ts): every unusable file — plan, policy, catalog,
 * scenario, FIS template to import — is `refused` with exit 2, every missing or unusable setting `failed`
 * with exit 2, read from the error itself (also from another copy of the module), and anything else says
 * nothing (a front door's exit 1). The one cause-chain walk finds a wrapped cause and stops on a loop.
 */
import { describe, expect, it } from 'vitest';
import { SettingError } from '../../src/compose/setup.js';
import { BadInputError } from '../../src/errors/bad-input.js';
import { EXIT_BAD_INPUT, exitOf, findCause } from '../../src/errors/exit.js';
import { findSetupError, SetupError } from '../../src/errors/setup.js';
import { DocumentError, type DocumentIssue } from '../../src/files/issue.js';
import { ImportError } from '../../src/plan/import.js';
import { PlanError } from '../../src/plan/errors.js';
import { CatalogError } from '../../src/preflight/catalog.js';
import { PolicyError } from '../../src/preflight/policy-error.js';
import { ScenarioError } from '../../src/sim/scenario.js';

const issue: DocumentIssue = { file: 'f.yaml', line: 1, column: 1, field: '', expected: 'x', message: 'bad' };

describe('the exit an error carries', () => {
  it.each([
    ['a plan', new PlanError('plan.yaml', [issue])],
    ['a policy', new PolicyError('policy.yaml', [issue])],
    ['a catalog', new CatalogError('catalog.yaml', [issue])],
    ['a scenario', new ScenarioError('scenario.yaml', [issue])],
    ['a template to import', new ImportError('template.json', [issue])],
    ['any document', new DocumentError('doc.yaml', [issue])],
  ])('%s that cannot be used is refused with exit 2', (_what, error) => {
    expect(exitOf(error)).toEqual({ code: EXIT_BAD_INPUT, verdict: 'refused' });
    expect(EXIT_BAD_INPUT).toBe(2);
  });

  it('a missing or unusable setting is failed with exit 2', () => {
    expect(exitOf(new SettingError('no Prometheus URL', 'prometheus-url'))).toEqual({
      code: 2,
      verdict: 'failed',
    });
    expect(exitOf(new BadInputError('bad flag'))).toEqual({ code: 2, verdict: 'failed' });
  });

  it('an error of another copy of the module counts by its shape', () => {
    const copy = Object.assign(new Error('bad'), { exit: { code: 2, verdict: 'failed' } });
    expect(exitOf(copy)).toEqual({ code: 2, verdict: 'failed' });
  });

  it('anything else, a wrapped error included, says nothing', () => {
    expect(exitOf(new Error('boom'))).toBeUndefined();
    expect(exitOf('boom')).toBeUndefined();
    expect(exitOf(undefined)).toBeUndefined();
    expect(exitOf(Object.assign(new Error('x'), { exit: { code: 2, verdict: 'maybe' } }))).toBeUndefined();
    expect(exitOf(new Error('context', { cause: new PlanError('plan.yaml', [issue]) }))).toBeUndefined();
  });
});

describe('the cause chain', () => {
  it('finds the matching error behind wrappers, itself first', () => {
    const setup = new SetupError('no credentials');
    const wrapped = new Error('step: no credentials', { cause: new Error('inner', { cause: setup }) });
    expect(findSetupError(wrapped)).toBe(setup);
    expect(findSetupError(setup)).toBe(setup);
    expect(findSetupError(new Error('other'))).toBeUndefined();
  });

  it('stops on a loop of causes', () => {
    const a = new Error('a') as Error & { cause?: unknown };
    const b = new Error('b', { cause: a });
    a.cause = b;
    expect(findCause(a, (e): e is SetupError => e instanceof SetupError)).toBeUndefined();
  });
});
