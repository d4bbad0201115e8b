/**
 * GitHub's size limits that shape every report, and one way to trim text to them: cut on a line
 * boundary and say so visibly, so a reader never mistakes a trimmed report for a complete one.
 */

/**
 * Check-run `output.summary` and `output.text`: "Maximum length: 65535 characters" (REST API, Checks:
 * "Create a check run"; also `maxLength` in GitHub's OpenAPI description).
 */
export const CHECK_RUN_TEXT_LIMIT = 65_535;

/** "The Checks API limits the number of annotations to a maximum of 50 per API request" (same page). */
export const ANNOTATIONS_PER_REQUEST = 50;

/**
 * Issue and comment bodies: GitHub answers 422 "body is too long (maximum is 65536 characters)" above
 * this (the REST description states no maxLength; the number is GitHub's validation message).
 */
export const COMMENT_BODY_LIMIT = 65_536;

/**
 * A step's job summary: "The maximum size of the summary for a step is 1 MiB" (GitHub Actions docs,
 * "Adding a job summary"). Measured in bytes of UTF-8.
 */
export const JOB_SUMMARY_LIMIT_BYTES = 1024 * 1024;

/** Check-run annotation `title` is cut at this length by GitHub (Checks API: "title … 255 characters"). */
export const ANNOTATION_TITLE_LIMIT = 255;

/** Annotation `message`: "Maximum length: 64 KB" (Checks API, annotations object). */
export const ANNOTATION_MESSAGE_LIMIT = 64 * 1024;

/** Whether a limit counts UTF-16 characters (the REST API) or UTF-8 bytes (the job summary file). */
export type LimitUnit = 'chars' | 'bytes';

function sizeOf(text: string, unit: LimitUnit): number {
  return unit === 'bytes' ? Buffer.byteLength(text, 'utf8') : text.length;
}

/**
 * Returns `text` unchanged when it fits; otherwise cuts it at the last line break that leaves room for
 * a notice saying how much was cut and where the full record is. `what` names the place (e.g.
 * `check-run text`).
 */
export function trimToLimit(text: string, limit: number, what: string, unit: LimitUnit = 'chars'): string {
  const total = sizeOf(text, unit);
  if (total <= limit) return text;
  const notice = (omitted: number): string =>
    `\n\n---\n> ✂️ **Trimmed:** this ${what} was cut to GitHub's limit of ${limit.toLocaleString('en-US')} ` +
    `${unit === 'bytes' ? 'bytes' : 'characters'}; ${omitted.toLocaleString('en-US')} ${unit === 'bytes' ? 'bytes' : 'characters'} ` +
    'are omitted. The journal artifact holds the full record.\n';
  // The notice's own length depends on the number it quotes; reserve for the widest case.
  const room = limit - sizeOf(notice(total), unit);
  let cut = room;
  if (unit === 'bytes') {
    // The longest prefix that fits in `room` bytes of UTF-8 (binary search over UTF-16 indexes).
    let lo = 0;
    let hi = Math.min(text.length, room);
    while (lo < hi) {
      const mid = Math.ceil((lo + hi) / 2);
      if (Buffer.byteLength(text.slice(0, mid), 'utf8') <= room) lo = mid;
      else hi = mid - 1;
    }
    cut = lo;
  }
  const lineEnd = text.lastIndexOf('\n', cut);
  const kept = text.slice(0, lineEnd > 0 ? lineEnd : cut);
  return kept + notice(total - sizeOf(kept, unit));
}
