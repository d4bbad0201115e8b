/**
 * The action's lifecycle as the GitHub runner drives it (./world.ts). A held run on push and on
 * pull_request (./held-case.ts); under Node 24 in ./held-node24.test.ts.
 */
import { describe, it } from 'vitest';
import { held } from './held-case.js';
import { CASE_TIMEOUT_MS, useLifecycleSandbox } from './world.js';

useLifecycleSandbox();

describe.sequential('the bundled action held, under the runner lifecycle (sandbox)', () => {
  it(
    'held on push: exit 0, every output, job summary, success check run on GITHUB_SHA, post has nothing to do',
    held('push'),
    CASE_TIMEOUT_MS,
  );

  it(
    'held on pull_request: success check run on the PR head (not the merge commit) and one marked PR comment',
    held('pull_request'),
    CASE_TIMEOUT_MS,
  );
});
