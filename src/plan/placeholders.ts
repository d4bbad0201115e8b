/**
 * Placeholders: values a generated plan leaves for its author to fill in (`chaos-gate import` writes the
 * hypothesis and abort sections this way, because a FIS template says nothing about either). A placeholder
 * is a string `<fill in: what to write>`; the plan still loads, and `validate` refuses it (rule
 * `placeholder`) naming the field and what to write, so a half-written plan can never run.
 */

/** How a placeholder starts. */
export const PLACEHOLDER_PREFIX = '<fill in: ';

/** A placeholder asking for `what`. */
export function placeholder(what: string): string {
  return `${PLACEHOLDER_PREFIX}${what}>`;
}

/** True for a placeholder value. */
export function isPlaceholder(value: unknown): value is string {
  return typeof value === 'string' && value.startsWith(PLACEHOLDER_PREFIX);
}

/** What a placeholder asks for (its text without the markers). */
export function placeholderText(value: string): string {
  return value.slice(PLACEHOLDER_PREFIX.length).replace(/>$/, '');
}

/** Every placeholder in a value, with its path, in document order. */
export function placeholderFields(
  value: unknown,
  path: (string | number)[] = [],
): { path: (string | number)[]; text: string }[] {
  if (isPlaceholder(value)) return [{ path, text: placeholderText(value) }];
  if (Array.isArray(value)) return value.flatMap((v, i) => placeholderFields(v, [...path, i]));
  if (value !== null && typeof value === 'object')
    return Object.entries(value as Record<string, unknown>).flatMap(([k, v]) =>
      placeholderFields(v, [...path, k]),
    );
  return [];
}
