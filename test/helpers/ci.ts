/**
 * Under CI a missing integration dependency (Chromium, Prometheus) fails the suite instead of skipping it:
 * a green CI run must mean every test ran. Locally the tests are skipped with the reason printed.
 */

/** True under CI: `CI` set to anything but an explicit off (`false`, `0`, empty), as CI systems set it. */
export function underCi(env: NodeJS.ProcessEnv = process.env): boolean {
  const value = env['CI']?.trim().toLowerCase();
  return value !== undefined && value !== '' && value !== 'false' && value !== '0';
}

/**
 * The reason a suite cannot run, to skip it with; under CI, throws it instead, so the test file fails to
 * load and the run is red.
 */
export function skipOrFailUnderCi(
  what: string,
  reason: string,
  env: NodeJS.ProcessEnv = process.env,
): string {
  if (underCi(env)) throw new Error(`${what} must run under CI (CI=${env['CI']}), but ${reason}`);
  console.warn(`skipping ${what}: ${reason}`);
  return reason;
}
