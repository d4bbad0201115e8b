/**
 * The promotion ladder's rule: a policy's `requires` lets a wider rung run only once a narrower rung's
 * plan held in its environment recently — the last finished run of plan X in environment Y, in the
 * verdict history the front door read (journal/history.ts), was `held` and started within Z. No
 * history, an unreadable journal in it, or a last verdict other than `held` is a refusal: a promotion
 * is allowed on proof, never on the absence of a failure.
 */
import type { Gate } from '../engine/gates.js';
import { formatDuration as humanDuration } from '../journal/format.js';
import { lastVerdict, type RunEntry } from '../journal/history.js';
import { formatDuration } from '../plan/duration.js';
import type { LoadedPolicy } from './policy.js';

/** The verdict history a run is checked against, as the front door read it. */
export interface VerdictHistory {
  entries: readonly RunEntry[];
  /** Journals in the history that could not be read (each `file: why`). */
  unread: readonly string[];
  /** Where it was read from, for messages (`chaos-gate-history/`). */
  source: string;
}

function iso(ms: number): string {
  return new Date(ms).toISOString().replace('.000Z', 'Z');
}

/** One `requires` entry's finding: undefined when it is met, else the sentence that refuses. */
export function requirementProblem(
  loaded: LoadedPolicy,
  index: number,
  history: VerdictHistory | undefined,
  now: number,
): string | undefined {
  const rule = loaded.policy.requires?.[index];
  if (!rule) return undefined;
  const line = loaded.line(`requires[${index}]`) ?? loaded.line('requires');
  const at = `${loaded.file}${line === undefined ? '' : `:${line}`}, requires[${index}]`;
  const rung = rule.rung ?? `${rule.plan} in ${rule.environment}`;
  const expected = `expected plan ${rule.plan}'s last run in environment ${rule.environment} to be held and to have started within ${formatDuration(rule.within)} (since ${iso(now - rule.within)})`;
  const needs = `this rung needs the rung "${rung}" to have held first`;
  if (!history)
    return `${needs}, but no verdict history was given to check it (${at}); pass the narrower rung's journals with --history <dir> (action input history); ${expected}`;
  if (history.unread.length > 0)
    return `${needs}, but the verdict history ${history.source} has journals that cannot be read, so its last verdict is not known: ${history.unread.join('; ')} (${at}); ${expected}`;
  const last = lastVerdict(history.entries, rule.plan, rule.environment);
  if (!last)
    return `${needs}: the verdict history ${history.source} has no finished run of plan ${rule.plan} in environment ${rule.environment} (${at}); ${expected}`;
  if (last.verdict !== 'held')
    return `${needs}: the last run of plan ${rule.plan} in environment ${rule.environment} (run ${last.runId}, ${iso(last.startedAt)}) was ${last.verdict}, not held (${at}); ${expected}`;
  if (last.startedAt < now - rule.within)
    return `${needs}: the last held run of plan ${rule.plan} in environment ${rule.environment} (run ${last.runId}) started ${iso(last.startedAt)}, ${humanDuration(now - last.startedAt)} ago, older than ${formatDuration(rule.within)} (${at}); ${expected}`;
  return undefined;
}

/** The policy's `requires`, as a gate before the targets are resolved: any unmet entry refuses. */
export function requiresGate(loaded: LoadedPolicy, history: VerdictHistory | undefined): Gate {
  return {
    name: 'requires',
    stage: 'before-targets',
    async check(ctx) {
      const rules = loaded.policy.requires ?? [];
      const problems: string[] = [];
      rules.forEach((rule, i) => {
        const problem = requirementProblem(loaded, i, history, ctx.now);
        if (problem === undefined) {
          const last = history && lastVerdict(history.entries, rule.plan, rule.environment);
          ctx.record({
            type: 'preflight',
            message: `requires: plan ${rule.plan} held in ${rule.environment}${last ? ` (run ${last.runId}, ${iso(last.startedAt)})` : ''}`,
            data: { gate: 'requires', plan: rule.plan, environment: rule.environment, met: true },
          });
          return;
        }
        problems.push(problem);
        ctx.record({
          type: 'refused',
          message: `requires: ${problem}`,
          data: { gate: 'requires', plan: rule.plan, environment: rule.environment, met: false },
        });
      });
      if (problems.length === 0)
        return { pass: true, note: `every rung this one needs held (${loaded.file})` };
      return { pass: false, verdict: 'refused', reason: problems.join('; ') };
    },
  };
}
