/**
 * Environment expansion is opt-in (docs/design/principles.md#security). A plan expands only the variables it declares in its
 * top-level `env:` list — the schema refuses an undeclared `${NAME}` — and their values are secrets
 * unless declared `public: true`. The front door resolves the declared values once, before anything runs,
 * and hands them to the scrape source: nothing else of the runner's environment is ever read for a plan.
 */
import { BadInputError } from '../errors/bad-input.js';
import { envDeclarationName, envReferences, scrapeUrlFields, type Plan } from './schema.js';

/** The declared variables of a plan, resolved from the environment. */
export interface PlanEnv {
  /** Name → value, for every declared variable that is set. */
  values: Record<string, string>;
  /** The values that are secrets (declared without `public: true`): to register with the redactor. */
  secrets: string[];
}

/**
 * Resolves the variables a plan declares. A declared variable that a scrape URL uses but the environment
 * lacks is bad input (exit 2), named with the field that uses it; the value is never quoted.
 */
export function resolvePlanEnv(
  plan: Pick<Plan, 'env' | 'hypothesis'>,
  env: Record<string, string | undefined>,
): PlanEnv {
  const values: Record<string, string> = {};
  const secrets: string[] = [];
  for (const declaration of plan.env ?? []) {
    const name = envDeclarationName(declaration);
    const value = env[name];
    if (value === undefined) continue;
    values[name] = value;
    if (typeof declaration === 'string' || !declaration.public) secrets.push(value);
  }
  for (const { path, url } of scrapeUrlFields(plan)) {
    for (const ref of envReferences(url)) {
      if (ref.valid && values[ref.name] === undefined) {
        throw new BadInputError(
          `${formatFieldPath(path)}: the plan's env: declares ${ref.name}, but it is not set in the environment; expected ${ref.name} to be set for this run`,
        );
      }
    }
  }
  return { values, secrets };
}

/**
 * Replaces `${NAME}` with a declared variable's value. A name not in `values` throws: it was never
 * declared (the schema refuses such a plan) or is not set.
 */
export function expandEnv(text: string, values: Record<string, string>): string {
  return text.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_m, name: string) => {
    const value = Object.hasOwn(values, name) ? values[name] : undefined;
    if (value === undefined)
      throw new Error(`\${${name}} is not a variable the plan declares in env: (or it is not set)`);
    return value;
  });
}

function formatFieldPath(path: readonly (string | number)[]): string {
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? p : `.${p}`)).join('');
}
