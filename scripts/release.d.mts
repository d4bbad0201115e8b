/** Types of scripts/release.mjs for the tests that import it. */
export function checkTag(tag: string, version: string): string | undefined;
export function releaseNotes(tag: string, cwd?: string): string;
