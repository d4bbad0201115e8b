/** The plan's identity in journals and reports: a digest of what it says, not of how it is written. */
import { createHash } from 'node:crypto';
import type { Plan } from './schema.js';

/** sha256 (hex) of the canonical JSON (sorted keys) of a validated plan. */
export function planDigest(plan: Plan): string {
  return createHash('sha256').update(canonicalJson(plan)).digest('hex');
}

/** JSON with object keys sorted at every level and undefined members dropped. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) {
      const v = (value as Record<string, unknown>)[key];
      if (v !== undefined) out[key] = sortKeys(v);
    }
    return out;
  }
  return value;
}
