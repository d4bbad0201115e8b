/**
 * Secrets (bearer tokens, passwords, header values, AWS keys) must never reach a reading, the journal or
 * a log line. Every string the Prometheus source hands out passes through `redact`.
 */

/** What a secret is replaced with. */
export const REDACTED = '***';

/**
 * Replaces every occurrence of each secret in `text` with `***`, longest secret first so that a secret
 * containing another is masked whole. Empty secrets are ignored.
 */
export function redact(text: string, secrets: Iterable<string>): string {
  const list = [...new Set(secrets)].filter((s) => s.length > 0).sort((a, b) => b.length - a.length);
  let out = text;
  for (const secret of list) out = out.split(secret).join(REDACTED);
  return out;
}
