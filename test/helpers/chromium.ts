/**
 * Real headless Chromium for the HTML replay tests: Debian's `chromium`, driven by playwright-core.
 * When the binary is missing the suite is skipped with a printed reason, except under CI (which installs
 * it), where a missing browser fails the suite.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page, type Request } from 'playwright-core';
import { skipOrFailUnderCi } from './ci.js';

/** Where Debian's `chromium` package puts the browser. */
export const CHROMIUM_PATH = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';

/** Flags for a quiet, offline headless browser: nothing phones home during a test. */
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];

/** Why the Chromium tests cannot run here, or null when they can. Throws under CI. */
export function chromiumSkipReason(): string | null {
  if (existsSync(CHROMIUM_PATH)) return null;
  return skipOrFailUnderCi(
    'the Chromium browser tests',
    `Chromium is not at ${CHROMIUM_PATH}: install it with 'apt-get install -y chromium' or set CHROMIUM_PATH`,
  );
}

/** Launches headless Chromium. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
}

/**
 * Opens `fileUrl` in a fresh page that aborts every request other than the page itself and records
 * each one, so a test can assert that the page attempted no network access at all. `errors` collects
 * uncaught page exceptions for the rest of the test.
 */
export async function openOffline(
  browser: Browser,
  fileUrl: string,
): Promise<{ page: Page; attempted: string[]; errors: string[] }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const attempted: string[] = [];
  await context.route('**/*', (route) => {
    const url = route.request().url();
    if (url === fileUrl) return route.continue();
    if (!attempted.includes(url)) attempted.push(url);
    return route.abort('blockedbyclient');
  });
  // The replay's CSP blocks fetches before they become requests; record those refusals as attempts too.
  await context.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (event) => {
      const w = window as unknown as { __cspViolations?: string[] };
      (w.__cspViolations ??= []).push(event.blockedURI);
    });
  });
  const page = await context.newPage();
  page.on('request', (request: Request) => {
    const url = request.url();
    if (url !== fileUrl && !attempted.includes(url)) attempted.push(url);
  });
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  await page.goto(fileUrl);
  if (errors.length > 0) throw new Error(`page errors: ${errors.join('; ')}`);
  return { page, attempted, errors };
}

/** Fetches refused by the page's Content-Security-Policy so far (blocked URIs). */
export function cspViolations(page: Page): Promise<string[]> {
  return page.evaluate(() => (window as unknown as { __cspViolations?: string[] }).__cspViolations ?? []);
}
