/**
 * What the schemas need from zod beyond `zod/mini` itself. Every schema (plan, FIS, policy, scenario,
 * sandbox) uses `zod/mini`, never classic `zod`: classic attaches every method (and JSON Schema
 * generation) to every schema, so none of it tree-shakes, and `chaos-gate validate` compiled ~190 KB of
 * zod at start (issue 17: within 2.5× of a bare Node). A classic schema anywhere in the bundle, even in a
 * command `validate` never loads, brings that back: the build puts zod's code in one chunk shared by all.
 * With zod/mini the chunk holds ~35 KB. Both APIs share zod's core, so parsing is the same; the one
 * internal difference is that zod/mini never JIT-compiles an object schema, which changes no result.
 */
import * as z from 'zod/mini';
import en from 'zod/v4/locales/en.js';

// Classic zod installs its English messages when its first schema is built; zod/mini installs none, and
// its issues then all read "Invalid input". src/files/validate.ts tells zod's own wording from a schema's
// custom message by that English text ("Too small…", "Invalid…"), so English is installed here, as
// classic does it: only when no locale is set yet.
if (!z.config().localeError) z.config(en());

/**
 * Classic zod's `schema.describe(text)`: a copy of the schema with `{ description: text }` in the global
 * registry (the JSON Schema's `description`, `npm run schema`). `z.describe()` of zod/mini is a check
 * instead, which would add a no-op check to every described schema; this keeps the schemas exactly
 * what classic built.
 */
export function describe<T extends z.ZodMiniType>(schema: T, description: string): T {
  return meta(schema, { description });
}

/** Classic zod's `schema.meta(data)`: a copy of the schema with `data` in the global registry. */
export function meta<T extends z.ZodMiniType>(schema: T, data: z.core.GlobalMeta): T {
  const copy = schema.clone();
  z.globalRegistry.add(copy, data);
  return copy;
}
