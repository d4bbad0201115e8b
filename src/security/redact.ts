/**
 * The one redactor (docs/design/principles.md#security). Every secret chaos-gate learns — header values and the token inside
 * them, URL userinfo, AWS keys and session tokens, declared environment values, the GitHub token — is
 * registered here, and everything the product writes passes through {@link redact} or
 * {@link redactDeep}: the journal writer, the HTML and Markdown reports, the action's outputs, job
 * summary and log lines, the GitHub request bodies (check run, PR comment, findings issue) and the
 * CLI's console and error messages.
 *
 * The registry is process-wide on purpose, like the runner's own masking: a secret registered by the
 * front door that read it must be masked by a writer that never saw it (the journal writer does not
 * know the Prometheus token). In the action each new secret is also handed to `core.setSecret`
 * ({@link onSecret}), so the runner masks it in the raw log as well.
 */

/** What a secret is replaced with. */
export const REDACTED = '***';

/**
 * Values shorter than this are not masked as substrings. A short value is a weak secret anyway, and
 * masking it everywhere breaks the identifiers reports are found by: a sandbox key `sandbox` would turn
 * the check run `chaos-gate / sandbox-redis-partition` and its comment marker into `***-redis-partition`.
 * Real credentials are far longer (AWS secret keys 40 characters, access key ids 20, GitHub tokens 40+);
 * the forms that contain a short password (`user:password`, the `Basic` value) are still masked.
 */
export const MIN_SECRET_LENGTH = 8;

/** Authorization schemes whose credential is a token after the scheme name (RFC 9110 §11.4). */
const SCHEME = /^\s*([A-Za-z][A-Za-z0-9!#$%&'*+.^_`|~-]*)\s+(\S.*?)\s*$/;

/** `scheme://userinfo@`: the userinfo of a URL, read from the raw text so an unparseable URL is covered. */
const USERINFO = /^\s*[A-Za-z][A-Za-z0-9+.-]*:\/\/([^/?#]*)@/;

function tryDecode(text: string): string | undefined {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}

function htmlEscape(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

function escapeRegExp(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&');
}

/** The secrets of one process and the masking applied to everything it writes. */
export class SecretRegistry {
  private readonly values = new Set<string>();
  private readonly listeners = new Set<(secret: string) => void>();
  private pattern: RegExp | undefined;

  /**
   * Registers a secret value, and the forms it takes when written elsewhere: percent-encoded (in a
   * URL), JSON-escaped and HTML-escaped. Empty and very short values are ignored (MIN_SECRET_LENGTH).
   */
  add(value: string | undefined): void {
    if (value === undefined) return;
    const forms = new Set([value, value.trim()]);
    for (const v of [...forms]) {
      forms.add(encodeURIComponent(v));
      forms.add(JSON.stringify(v).slice(1, -1));
      forms.add(htmlEscape(v));
    }
    for (const form of forms) {
      if (form.trim().length < MIN_SECRET_LENGTH || this.values.has(form)) continue;
      this.values.add(form);
      this.pattern = undefined;
      for (const listener of this.listeners) listener(form);
    }
  }

  /**
   * Registers an HTTP header value: the whole value, the credential after an auth scheme
   * (`Bearer X` → `X`) and, for `Basic`, the decoded `user:password` and the password.
   */
  addHeader(value: string | undefined): void {
    if (value === undefined) return;
    this.add(value);
    const m = SCHEME.exec(value);
    if (!m) return;
    const [, scheme = '', credential = ''] = m;
    this.add(credential);
    if (scheme.toLowerCase() === 'basic') {
      const decoded = Buffer.from(credential, 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      if (colon >= 0) {
        this.add(decoded);
        this.add(decoded.slice(colon + 1));
      }
    }
  }

  /**
   * Registers the userinfo of a URL (`user:password@`): the password as written and decoded, and
   * `user:password`. Works on text that is not a valid URL, so an error about it cannot leak it.
   */
  addUrl(url: string | undefined): void {
    const info = url === undefined ? undefined : USERINFO.exec(url)?.[1];
    if (!info) return;
    const colon = info.indexOf(':');
    if (colon < 0) {
      // A lone userinfo is a token by convention (`https://TOKEN@host`).
      this.add(info);
      this.add(tryDecode(info));
      return;
    }
    const password = info.slice(colon + 1);
    this.add(info);
    this.add(tryDecode(info));
    this.add(password);
    this.add(tryDecode(password));
  }

  /** Calls `listener` for every secret form registered from now on, and for those already known. */
  onSecret(listener: (secret: string) => void): () => void {
    this.listeners.add(listener);
    for (const value of this.values) listener(value);
    return () => this.listeners.delete(listener);
  }

  /** True when nothing is registered (writers skip the work). */
  get empty(): boolean {
    return this.values.size === 0;
  }

  /** Replaces every registered secret in `text` with `***`, the longest first. */
  redact(text: string): string {
    if (this.values.size === 0 || text.length < MIN_SECRET_LENGTH) return text;
    if (!this.pattern) {
      const sorted = [...this.values].sort((a, b) => b.length - a.length).map(escapeRegExp);
      this.pattern = new RegExp(sorted.join('|'), 'g');
    }
    return text.replace(this.pattern, REDACTED);
  }

  /**
   * A copy of `value` with every string (object keys included) redacted; numbers, booleans and null
   * stay. Used on records and payloads before they are serialized, so escaping cannot hide a secret.
   */
  redactDeep<T>(value: T): T {
    if (this.values.size === 0) return value;
    return this.deep(value, 0) as T;
  }

  private deep(value: unknown, depth: number): unknown {
    if (typeof value === 'string') return this.redact(value);
    if (value === null || typeof value !== 'object' || depth > 64) return value;
    if (Array.isArray(value)) return value.map((v) => this.deep(v, depth + 1));
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[this.redact(k)] = this.deep(v, depth + 1);
    return out;
  }

  /** Forgets every secret and listener (tests only). */
  clear(): void {
    this.values.clear();
    this.listeners.clear();
    this.pattern = undefined;
  }
}

/** The process's secrets: what every writer masks. */
export const secrets = new SecretRegistry();

/** Masks every registered secret in `text`. */
export function redact(text: string): string {
  return secrets.redact(text);
}

/** A copy of `value` with every registered secret masked in every string. */
export function redactDeep<T>(value: T): T {
  return secrets.redactDeep(value);
}

/**
 * A URL as it may be shown: the userinfo replaced by `***` (also in text that does not parse as a URL),
 * and every registered secret masked.
 */
export function displayUrl(url: string): string {
  return redact(url.replace(USERINFO, (whole, info: string) => whole.replace(`${info}@`, `${REDACTED}@`)));
}
