import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { modelFailover, type FailoverInputs } from '../../src/analysis/failover.js';
import type { Journal, Measurement } from '../../src/journal/types.js';
import { journalReplayData, renderFailoverHtml, renderReplayHtml } from '../../src/report/html.js';
import { chromiumSkipReason, cspViolations, launchChromium, openOffline } from '../helpers/chromium.js';

const T0 = Date.UTC(2025, 0, 1, 12);

/**
 * A hand-made journal of a deviated run: 4 s of steady state, injection at T0 + 4 s, p95 breaching
 * at +2 s and +3 s, stop at +5 s, 10 measurements at 1 s.
 */
function deviatedJournal(title = 'Redis partition'): Journal {
  const p95 = [0.1, 0.1, 0.1, 0.1, 0.1, 0.12, 0.3, 0.35, 0.15, 0.1];
  const measurements: Measurement[] = p95.map((value, i) => ({
    at: T0 + i * 1000,
    t: i - 4,
    phase: i < 4 ? 'steady' : i < 9 ? 'fault' : 'recovery',
    requests: 800,
    slis: {
      p95_latency_s: {
        value,
        status: value <= 0.18 ? 'ok' : 'breach',
        bound: '<= 0.18',
        query: 'histogram_quantile(0.95, sum by (le) (rate(http_request_duration_seconds_bucket[1s])))',
      },
      success_ratio: {
        value: i === 6 ? null : 0.9991,
        status: i === 6 ? 'no-data' : 'ok',
        bound: '>= 0.998',
        query: 'sum(rate(ok[1s])) / sum(rate(all[1s]))',
      },
    },
  }));
  return {
    kind: 'chaos-gate-journal',
    version: 1,
    runId: 'run-42',
    planId: 'redis-partition',
    planDigest: 'sha256:abc',
    title,
    service: 'checkout',
    environment: 'staging',
    slis: [
      { name: 'p95_latency_s', bound: '<= 0.18', steadyBound: '<= 0.11', during: true },
      { name: 'success_ratio', bound: '>= 0.998', steadyBound: '>= 0.9995', during: true },
    ],
    abortRules: [{ sli: 'p95_latency_s', op: 'above', threshold: 0.5, forMs: 3000, count: 3 }],
    intervalMs: 1000,
    startedAt: T0,
    verdict: 'deviated',
    reason: 'p95_latency_s 0.3 > 0.18 at +2.0 s',
    exitCode: 1,
    experimentId: 'EXP123',
    measurements,
    events: [
      { at: T0, type: 'steady-state', message: 'measuring the steady state for 4 s' },
      { at: T0 + 4000, type: 'inject', message: 'FIS experiment EXP123 running' },
      { at: T0 + 6000, type: 'first-breach', message: 'p95_latency_s 0.3 > 0.18' },
      { at: T0 + 9000, type: 'fault-ended', message: 'FIS experiment completed' },
      { at: T0 + 9500, type: 'verdict', message: 'deviated' },
    ],
    timings: { startedAt: T0, injectedAt: T0 + 4000, firstBreachAt: T0 + 6000, stoppedAt: T0 + 9000 },
    complete: true,
  };
}

const INPUTS: FailoverInputs = {
  every: 5,
  failures: 3,
  depth: 'deep',
  ttl: 10,
  capacity: 'full',
  replication: 'sync',
  fault: 'region',
  minServed: 70,
  maxFailover: 15,
};

describe('replay HTML (pure)', () => {
  it('is one self-contained file: no external resource, and a CSP that forbids fetching anything', () => {
    for (const html of [
      renderReplayHtml(deviatedJournal()),
      renderFailoverHtml(modelFailover(INPUTS), INPUTS),
    ]) {
      expect(html).toContain(
        `content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'`,
      );
      expect(html).not.toMatch(/<(script|link|img|iframe)[^>]*\s(src|href)=/i);
      // The only URL is the SVG namespace, an identifier that is never fetched.
      const urls = html.match(/https?:\/\/[^\s"'`)]+/g) ?? [];
      expect(new Set(urls)).toEqual(new Set(['http://www.w3.org/2000/svg']));
    }
  });

  it('escapes journal text so it cannot end the embedded script', () => {
    const html = renderReplayHtml(deviatedJournal('</script><script>window.pwned=1</script>'));
    expect(html).not.toContain('<script>window.pwned=1');
    expect(html).toContain('&#60;/script&#62;&#60;script&#62;window.pwned=1');
  });

  it('puts times on the injection axis and draws each SLI against its bounds and abort threshold', () => {
    const data = journalReplayData(deviatedJournal());
    expect(data.start).toBe(-4);
    expect(data.end).toBe(5.5);
    const p95 = data.panels.find((p) => p.id === 'p95-latency-s');
    expect(p95?.bounds).toEqual([
      { label: 'bound <= 0.18', value: 0.18, cls: 'bound-h' },
      { label: 'steady <= 0.11', value: 0.11, cls: 'bound-s' },
      { label: 'abort > 0.5 ×3', value: 0.5, cls: 'abort' },
    ]);
    expect(p95?.bands).toEqual([{ from: 0, to: 5, label: 'fault' }]);
    expect(p95?.series[0]?.points[6]).toEqual([2, 0.3, 'breach']);
  });
});

const skip = chromiumSkipReason();

describe.skipIf(skip !== null)('replay HTML in headless Chromium', () => {
  let browser: Browser;
  let dir: string;

  beforeAll(async () => {
    browser = await launchChromium();
    dir = mkdtempSync(join(tmpdir(), 'cg-html-'));
  });
  afterAll(async () => {
    await browser?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  function write(name: string, html: string): string {
    const file = join(dir, name);
    writeFileSync(file, html);
    return pathToFileURL(file).href;
  }

  const text = (page: Page, selector: string): Promise<string> =>
    page
      .locator(selector)
      .textContent()
      .then((t) => (t ?? '').trim());
  const currentEvent = (page: Page): Promise<string | null> =>
    page.locator('[data-testid=event][data-state=current]').getAttribute('data-type');
  /** Lets the page run `n` animation frames, so a test can observe what playback would have done. */
  const frames = (page: Page, n: number): Promise<void> =>
    page.evaluate(
      (count) =>
        new Promise<void>((done) => {
          let left = count;
          const step = (): void => {
            if (--left <= 0) done();
            else requestAnimationFrame(step);
          };
          requestAnimationFrame(step);
        }),
      n,
    );

  it('notices network attempts: a request, and a fetch refused by a CSP (control for the checks below)', async () => {
    // Port 9 (discard) on loopback: never reached, because every request is aborted by the route.
    const open = write('leaky.html', '<!doctype html><img src="http://127.0.0.1:9/pixel.png">');
    const leaky = await openOffline(browser, open);
    expect(leaky.attempted).toEqual(['http://127.0.0.1:9/pixel.png']);
    await leaky.page.context().close();
    const csp = `<meta http-equiv="Content-Security-Policy" content="default-src 'none'">`;
    const guarded = await openOffline(
      browser,
      write('guarded.html', `<!doctype html>${csp}<img src="http://127.0.0.1:9/p.png">`),
    );
    await guarded.page.waitForFunction(
      () => (window as unknown as { __cspViolations?: string[] }).__cspViolations?.length,
    );
    expect(await cspViolations(guarded.page)).toEqual(['http://127.0.0.1:9/p.png']);
    await guarded.page.context().close();
  });

  /**
   * Pixels of a screenshot that are not its background (the most common colour), counted in a blank
   * page of the same browser (the replay's own CSP rightly refuses images).
   */
  async function ink(page: Page, png: Buffer): Promise<number> {
    const scratch = await page.context().newPage();
    try {
      return await scratch.evaluate(async (b64) => {
        const img = new Image();
        img.src = `data:image/png;base64,${b64}`;
        await img.decode();
        const canvas = document.createElement('canvas');
        canvas.width = img.width;
        canvas.height = img.height;
        const g = canvas.getContext('2d')!;
        g.drawImage(img, 0, 0);
        const px = g.getImageData(0, 0, canvas.width, canvas.height).data;
        const counts = new Map<number, number>();
        for (let i = 0; i < px.length; i += 4) {
          const key = (px[i]! << 16) | (px[i + 1]! << 8) | px[i + 2]!;
          counts.set(key, (counts.get(key) ?? 0) + 1);
        }
        const bg = [...counts.entries()].sort((a, b) => b[1] - a[1])[0]![0];
        const [r, gr, b] = [(bg >> 16) & 255, (bg >> 8) & 255, bg & 255];
        let n = 0;
        for (let i = 0; i < px.length; i += 4)
          if (Math.abs(px[i]! - r) + Math.abs(px[i + 1]! - gr) + Math.abs(px[i + 2]! - b) > 60) n++;
        return n;
      }, png.toString('base64'));
    } finally {
      await scratch.close();
    }
  }

  it('opens on the answer: the verdict, whole charts and the last reading in the first view (screenshot)', async () => {
    const url = write('first-view.html', renderReplayHtml(deviatedJournal()));
    const { page, attempted, errors } = await openOffline(browser, url);

    // The first view, as a reader sees it before touching anything.
    const firstView = await page.screenshot({ path: join(dir, 'run-first-view.png') });
    const firstPanel = await page.locator('#panel-p95-latency-s svg').screenshot();
    const viewport = page.viewportSize()!;
    const verdictBox = (await page.locator('#verdict').boundingBox())!;
    expect(verdictBox.y + verdictBox.height).toBeLessThanOrEqual(viewport.height);
    const panelBox = (await page.locator('#panel-p95-latency-s svg').boundingBox())!;
    expect(panelBox.y + panelBox.height, 'the first chart is whole in the first view').toBeLessThanOrEqual(
      viewport.height,
    );
    expect(await text(page, '#verdict')).toBe('deviated');
    expect(await text(page, '#status')).toBe('finished — deviated');
    expect(await text(page, '#play')).toBe('Replay');
    expect(await text(page, '#time-now')).toBe('5.5 s');
    // Whole charts: all 10 p95 points and both breach marks; the readouts hold the last reading.
    const d = await page.locator('#panel-p95-latency-s path[data-series=p95_latency_s]').getAttribute('d');
    expect((d ?? '').match(/[ML]/g)).toHaveLength(10);
    expect(await page.locator('#panel-p95-latency-s circle.breach').count()).toBe(2);
    expect(await text(page, '#readout-p95-latency-s')).toBe('0.1000');
    expect(await currentEvent(page)).toBe('verdict');

    // Replay plays it again from the start (at real time, so it is still on its way when read).
    await page.getByTestId('speed').selectOption('1');
    await page.getByTestId('play').click();
    expect(await text(page, '#play')).toBe('Pause');
    expect(Number(await page.locator('#time-now').getAttribute('data-time'))).toBeLessThan(5.5);
    await page.getByTestId('play').click();

    // Restart shows what the page used to open on: empty charts, far less drawn in the same panel.
    await page.getByTestId('restart').click();
    expect(await text(page, '#status')).toBe('ready');
    const emptyPanel = await page.locator('#panel-p95-latency-s svg').screenshot();
    expect(await ink(page, firstPanel)).toBeGreaterThan((await ink(page, emptyPanel)) + 500);
    expect(firstView.subarray(1, 4).toString('latin1')).toBe('PNG');

    expect(attempted).toEqual([]);
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('lets the scrubber reach the last reading, even one off any step grid', async () => {
    // A run over ten minutes long whose last reading falls between whole seconds of the axis.
    const journal = deviatedJournal();
    const last = journal.measurements[journal.measurements.length - 1]!;
    journal.measurements.push({ ...last, at: last.at + 695_370, t: (last.t ?? 5) + 695.37 });
    journal.events = journal.events.filter((e) => e.type !== 'verdict');
    const url = write('scrub-end.html', renderReplayHtml(journal));
    const { page, errors } = await openOffline(browser, url);
    await page.getByTestId('restart').click();
    await page.getByTestId('scrubber').focus();
    await page.keyboard.press('End');
    expect(await text(page, '#time-now')).toBe('700.4 s');
    expect(Number(await page.locator('#time-now').getAttribute('data-time'))).toBeCloseTo(700.37, 6);
    const d = await page.locator('#panel-p95-latency-s path[data-series=p95_latency_s]').getAttribute('d');
    expect((d ?? '').match(/[ML]/g)).toHaveLength(11);
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('replays a run: Next event, scrubbing, Play, Restart, with no network access', async () => {
    const url = write('run.html', renderReplayHtml(deviatedJournal()));
    const { page, attempted, errors } = await openOffline(browser, url);

    expect(await text(page, '#verdict')).toBe('deviated');
    await page.getByTestId('restart').click();
    expect(await text(page, '#status')).toBe('ready');
    expect(await text(page, '#time-now')).toBe('-4.0 s');
    expect(await page.locator('[data-testid=event]').count()).toBe(5);

    await page.getByTestId('next-event').click();
    expect(await text(page, '#time-now')).toBe('0.0 s');
    expect(await currentEvent(page)).toBe('inject');
    expect(await page.locator('[data-testid=event][data-state=past]').count()).toBe(1);

    await page.getByTestId('scrubber').fill('2.5');
    expect(await text(page, '#time-now')).toBe('2.5 s');
    // The last measurement at or before +2.5 s is the one at +2 s: p95 0.3, a breach; success no-data.
    expect(await text(page, '#readout-p95-latency-s')).toBe('0.3000');
    expect(await page.locator('#readout-p95-latency-s').getAttribute('data-status')).toBe('breach');
    expect(await page.locator('#readout-success-ratio').getAttribute('data-status')).toBe('no-data');
    expect(await currentEvent(page)).toBe('first-breach');
    // The chart is drawn up to the inspection time only: 7 of the 10 p95 points, 1 breach mark.
    const d = await page.locator('#panel-p95-latency-s path[data-series=p95_latency_s]').getAttribute('d');
    expect((d ?? '').match(/[ML]/g)).toHaveLength(7);
    expect(await page.locator('#panel-p95-latency-s circle.breach').count()).toBe(1);

    await page.getByTestId('speed').selectOption('10');
    await page.getByTestId('play').click();
    expect(await text(page, '#play')).toBe('Pause');
    await page.waitForFunction(() => Number(document.getElementById('time-now')?.dataset['time']) > 3);
    await page.waitForFunction(() => document.getElementById('status')?.dataset['state'] === 'finished');
    expect(await text(page, '#status')).toBe('finished — deviated');
    expect(await currentEvent(page)).toBe('verdict');
    expect(await page.locator('#panel-p95-latency-s circle.breach').count()).toBe(2);

    await page.getByTestId('restart').click();
    expect(await text(page, '#time-now')).toBe('-4.0 s');
    expect(await page.locator('[data-testid=event][data-state=current]').count()).toBe(1);
    expect(await currentEvent(page)).toBe('steady-state');

    expect(await text(page, '#metric-first-breach')).toBe('+2 s');
    const png = await page.screenshot({ path: join(dir, 'run.png'), fullPage: true });
    expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    expect(readFileSync(join(dir, 'run.png')).length).toBeGreaterThan(10_000);

    expect(attempted).toEqual([]);
    expect(await cspViolations(page)).toEqual([]);
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('replays the failover model and recomputes without autoplay when an input changes', async () => {
    const url = write('failover.html', renderFailoverHtml(modelFailover(INPUTS), INPUTS));
    const { page, attempted, errors } = await openOffline(browser, url);

    expect(await text(page, '#verdict')).toBe('fail');
    expect(await text(page, '#metric-served-share')).toBe('35.0 % — fail');

    // It opens on the answer; from the start, Next event: the outage at 15 s, then the first failed check at 20 s.
    expect(await page.locator('#status').getAttribute('data-state')).toBe('finished');
    await page.getByTestId('restart').click();
    await page.getByTestId('next-event').click();
    expect(await currentEvent(page)).toBe('outage');
    await page.getByTestId('next-event').click();
    expect(await text(page, '#time-now')).toBe('20.0 s');
    expect(await currentEvent(page)).toBe('check-failed');

    // At 35 s (mark-down at 30, TTL 10): seconds 30..34 served 1..5 of the 200 outage requests so
    // far = 7.5 %; second 35 sends 6 rps to the secondary.
    await page.getByTestId('scrubber').fill('35');
    expect(await text(page, '#readout-served-share')).toBe('7.5 %');
    expect(await text(page, '#readout-served-now')).toBe('6.0 rps');
    expect(await text(page, '#readout-on-secondary')).toBe('60 %');
    expect(await currentEvent(page)).toBe('failover');

    // Half capacity: seconds 30..34 serve 1..5, 35..44 serve 5 → 65/300 = 21.7 %.
    await page.getByTestId('input-capacity').selectOption('half');
    expect(await page.locator('body').getAttribute('data-computations')).toBe('2');
    expect(await text(page, '#metric-served-share')).toBe('21.7 % — fail');
    // The new answer, paused at its end: nothing plays by itself.
    const end = await text(page, '#time-now');
    expect(await text(page, '#status')).toBe('finished — fail');
    await frames(page, 10);
    expect(await text(page, '#time-now')).toBe(end);
    expect(await text(page, '#play')).toBe('Replay');
    expect(await page.locator('[data-testid=event][data-type=capacity]').count()).toBe(1);

    // Fast checks and a short TTL pass the gate: H=2, F=2, TTL=2 → 85.0 %, failover 4 s.
    await page.getByTestId('input-capacity').selectOption('full');
    await page.getByTestId('input-every').fill('2');
    await page.getByTestId('input-every').dispatchEvent('change');
    await page.getByTestId('input-failures').fill('2');
    await page.getByTestId('input-failures').dispatchEvent('change');
    await page.getByTestId('input-ttl').fill('2');
    await page.getByTestId('input-ttl').dispatchEvent('change');
    expect(await text(page, '#verdict')).toBe('pass');
    expect(await text(page, '#metric-served-share')).toBe('85.0 % — pass');
    expect(await text(page, '#metric-failover')).toBe('4 s — pass');

    // An invalid input is named and nothing is recomputed.
    const before = await page.locator('body').getAttribute('data-computations');
    await page.getByTestId('input-ttl').fill('0');
    await page.getByTestId('input-ttl').dispatchEvent('change');
    expect(await text(page, '#input-error')).toContain('ttl: a positive number of seconds');
    expect(await page.locator('body').getAttribute('data-computations')).toBe(before);
    expect(await text(page, '#verdict')).toBe('pass');

    await page.getByTestId('speed').selectOption('120');
    await page.getByTestId('play').click();
    await page.waitForFunction(() => document.getElementById('status')?.dataset['state'] === 'finished');
    expect(await text(page, '#status')).toBe('finished — pass');
    expect(await text(page, '#readout-served-share')).toBe('85.0 %');

    const png = await page.screenshot({ path: join(dir, 'failover.png'), fullPage: true });
    expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
    expect(png.length).toBeGreaterThan(10_000);

    expect(attempted).toEqual([]);
    expect(await cspViolations(page)).toEqual([]);
    expect(errors).toEqual([]);
    await page.context().close();
  });
});
