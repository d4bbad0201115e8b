/**
 * The verdict as an in-toto attestation: a Statement v1 whose predicate is the test-result predicate
 * (`https://in-toto.io/attestation/test-result/v0.1`), about the deployed artifact (its digest), so a
 * later job can check with `gh attestation verify --predicate-type …` that this artifact passed its
 * chaos gate. Built from the run's one judgement: `result` is PASSED for held and FAILED for every other
 * verdict (never WARNED: a verdict that is not held does not pass with a warning); each SLI judged during
 * the fault and each expectation is one test, named `sli/<name>` or `expectation/<name>`:
 * - passed: the SLI held with every judged reading inside its bound; the expectation was met in time;
 * - warned: the SLI held only because its tolerance forgave readings outside the bound;
 * - failed: everything else — beyond the bound or tolerance, readings without data, not measured, an
 *   expectation late, unmet, blind or cut short. Unproven is never listed as passed.
 * `configuration` names the plan, policy and journal files by their sha256 digests.
 *
 * The shapes follow the in-toto attestation spec (github:in-toto/attestation, spec/v1/statement.md,
 * spec/v1/resource_descriptor.md, spec/predicates/test-result.md); fixtures/schemas/in-toto/ holds the
 * JSON Schemas the tests check them against.
 */
import type { Journal } from '../journal/types.js';
import { judgementOf, type ExpectationJudgement, type SliJudgement } from '../journal/judgement.js';

export const STATEMENT_TYPE = 'https://in-toto.io/Statement/v1';
export const TEST_RESULT_PREDICATE_TYPE = 'https://in-toto.io/attestation/test-result/v0.1';

/** An in-toto ResourceDescriptor: at least one of `uri`, `digest`, `content`. */
export interface ResourceDescriptor {
  name?: string;
  uri?: string;
  digest?: Record<string, string>;
  downloadLocation?: string;
  mediaType?: string;
  annotations?: Record<string, unknown>;
}

export interface TestResultPredicate {
  result: 'PASSED' | 'WARNED' | 'FAILED';
  configuration: ResourceDescriptor[];
  url?: string;
  passedTests: string[];
  warnedTests: string[];
  failedTests: string[];
}

/** An in-toto Statement v1 with the test-result predicate. */
export interface VerdictStatement {
  _type: typeof STATEMENT_TYPE;
  subject: (ResourceDescriptor & { digest: Record<string, string> })[];
  predicateType: typeof TEST_RESULT_PREDICATE_TYPE;
  predicate: TestResultPredicate;
}

type TestOutcome = 'passed' | 'warned' | 'failed';

function sliOutcome(s: SliJudgement): TestOutcome {
  const f = s.fault;
  if (s.held !== true || !f || f.measured === 0 || f.noData > 0) return 'failed';
  return s.tolerated > 0 ? 'warned' : 'passed';
}

function expectationOutcome(e: ExpectationJudgement): TestOutcome {
  return e.status === 'met' ? 'passed' : 'failed';
}

export interface StatementInput {
  /** The artifact(s) the verdict is about, each with a digest. */
  subject: VerdictStatement['subject'];
  /** The plan, policy and journal files, with their digests. */
  configuration: ResourceDescriptor[];
  /** The CI run, when there is one. */
  url?: string | undefined;
}

/** The Statement of `journal`'s verdict about `input.subject`. */
export function verdictStatement(journal: Journal, input: StatementInput): VerdictStatement {
  const judgement = judgementOf(journal);
  const tests: Record<TestOutcome, string[]> = { passed: [], warned: [], failed: [] };
  for (const s of judgement.slis) if (s.during) tests[sliOutcome(s)].push(`sli/${s.name}`);
  for (const e of judgement.expectations) tests[expectationOutcome(e)].push(`expectation/${e.name}`);
  return {
    _type: STATEMENT_TYPE,
    subject: input.subject,
    predicateType: TEST_RESULT_PREDICATE_TYPE,
    predicate: {
      result: judgement.verdict === 'held' ? 'PASSED' : 'FAILED',
      configuration: input.configuration,
      ...(input.url ? { url: input.url } : {}),
      passedTests: tests.passed,
      warnedTests: tests.warned,
      failedTests: tests.failed,
    },
  };
}
