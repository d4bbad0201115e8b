/**
 * The replay's charts read at a glance (issue 15), checked in a real headless Chromium: the event list
 * follows playback, labels never cover each other, ticks fall on nice values, the moments of a run are
 * marked, and the failover model's overlapping series stay visible.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { modelFailover, type FailoverInputs } from '../../src/analysis/failover.js';
import type { Journal, JournalEvent, Measurement } from '../../src/journal/types.js';
import { journalReplayData, renderFailoverHtml, renderReplayHtml } from '../../src/report/html.js';
import { chromiumSkipReason, launchChromium, openOffline } from '../helpers/chromium.js';

const T0 = Date.UTC(2025, 5, 1, 9);

/**
 * An aborted run with awkward numbers: p95 near zero with its bound, steady bound and abort threshold a
 * hair apart, a steady state from -12.1 s, the breach, stop request, stop and recovery within 1.5 s of
 * each other, and 80 events so the event list must scroll.
 */
function crowdedJournal(): Journal {
  const measurements: Measurement[] = [];
  for (let s = -12.1; s <= 33.3; s += 0.7) {
    const value = s > 2 && s < 4 ? 0.0072 : 0.0012 + ((s * 7) % 3) * 0.0001;
    measurements.push({
      at: T0 + Math.round(s * 1000),
      phase: s < 0 ? 'steady' : s < 4 ? 'fault' : 'recovery',
      requests: 500,
      slis: {
        p95_latency_s: {
          value,
          status: value > 0.005 ? 'breach' : 'ok',
          bound: s < 0 ? '<= 0.004' : '<= 0.005',
          query: 'q',
        },
      },
    });
  }
  const events: JournalEvent[] = [{ at: T0 - 12_100, type: 'run-started', message: 'run started' }];
  for (let i = 0; i < 76; i++)
    events.push({ at: T0 - 12_000 + i * 600, type: 'experiment-state', message: `state poll ${i}` });
  events.push(
    { at: T0, type: 'inject', message: 'experiment started' },
    { at: T0 + 2_600, type: 'first-breach', message: 'p95 0.0072 > 0.005' },
    { at: T0 + 33_300, type: 'verdict', message: 'aborted' },
  );
  events.sort((a, b) => a.at - b.at);
  return {
    kind: 'chaos-gate-journal',
    version: 1,
    runId: 'crowded',
    planId: 'crowded',
    planDigest: 'd',
    title: 'Crowded',
    service: 's',
    environment: 'staging',
    slis: [{ name: 'p95_latency_s', bound: '<= 0.005', steadyBound: '<= 0.004', during: true }],
    abortRules: [{ sli: 'p95_latency_s', op: 'above', threshold: 0.0045, forMs: 2000, count: 2 }],
    intervalMs: 700,
    startedAt: T0 - 12_100,
    verdict: 'aborted',
    reason: 'p95 above 0.0045 twice',
    exitCode: 1,
    measurements,
    events,
    timings: {
      injectedAt: T0,
      firstBreachAt: T0 + 2_600,
      stopRequestedAt: T0 + 3_000,
      stoppedAt: T0 + 3_500,
      recoveredAt: T0 + 4_100,
    },
    complete: true,
  };
}

interface Box {
  text: string;
  x: number;
  y: number;
  width: number;
  height: number;
}

/** Screen boxes of the elements matching `selector`. */
function boxes(page: Page, selector: string): Promise<Box[]> {
  return page.$$eval(selector, (els) =>
    els.map((el) => {
      const r = el.getBoundingClientRect();
      return { text: el.textContent ?? '', x: r.x, y: r.y, width: r.width, height: r.height };
    }),
  );
}

/** Pairs of boxes that overlap (touching edges do not count). */
function overlaps(list: Box[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < list.length; i++)
    for (let j = i + 1; j < list.length; j++) {
      const a = list[i]!;
      const b = list[j]!;
      const apart =
        a.x + a.width <= b.x + 0.5 ||
        b.x + b.width <= a.x + 0.5 ||
        a.y + a.height <= b.y + 0.5 ||
        b.y + b.height <= a.y + 0.5;
      if (!apart) out.push(`"${a.text}" × "${b.text}"`);
    }
  return out;
}

/** True when `step` is 1, 2 or 5 × 10^k (within float noise). */
function isNiceStep(step: number): boolean {
  const power = Math.pow(10, Math.floor(Math.log10(step) + 1e-9));
  return [1, 2, 5, 10].some((m) => Math.abs(step / power - m) < 1e-6);
}

const TIME_STEPS = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600];

const skip = chromiumSkipReason();

describe('replay data', () => {
  it('marks the injection, first breach, stop requested, stopped and recovered on the journal clock', () => {
    expect(journalReplayData(crowdedJournal()).markers).toEqual([
      { id: 'injected', label: 'injection', t: 0 },
      { id: 'first-breach', label: 'first breach', t: 2.6 },
      { id: 'stop-requested', label: 'stop requested', t: 3 },
      { id: 'stopped', label: 'stopped', t: 3.5 },
      { id: 'recovered', label: 'recovered', t: 4.1 },
    ]);
  });
});

describe.skipIf(skip !== null)('replay readability in headless Chromium', () => {
  let browser: Browser;
  let dir: string;
  beforeAll(async () => {
    browser = await launchChromium();
    dir = mkdtempSync(join(tmpdir(), 'cg-html-read-'));
  });
  afterAll(async () => {
    await browser?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  async function open(name: string, html: string): Promise<{ page: Page; errors: string[] }> {
    const file = join(dir, name);
    writeFileSync(file, html);
    const { page, errors } = await openOffline(browser, pathToFileURL(file).href);
    return { page, errors };
  }

  it('scrolls the event list with playback so the current event stays in view, without moving the page', async () => {
    const { page, errors } = await open('events.html', renderReplayHtml(crowdedJournal()));
    const inView = (): Promise<boolean> =>
      page.evaluate(() => {
        const list = document.getElementById('event-list')!.getBoundingClientRect();
        const li = document.querySelector('[data-testid=event][data-state=current]');
        if (!li) return false;
        const r = li.getBoundingClientRect();
        return r.top >= list.top - 0.5 && r.bottom <= list.bottom + 0.5;
      });
    const listScroll = (): Promise<number> =>
      page.evaluate(() => document.getElementById('event-list')!.scrollTop);
    // The page opens on the finished run: the verdict, the last event, is in view.
    expect(await listScroll()).toBeGreaterThan(0);
    expect(await inView()).toBe(true);
    await page.getByTestId('restart').click();
    expect(await listScroll()).toBe(0);
    // The list is far longer than its box: later events start out of view.
    expect(
      await page.evaluate(() => {
        const list = document.getElementById('event-list')!;
        return list.scrollHeight > list.clientHeight * 2;
      }),
    ).toBe(true);

    await page.getByTestId('speed').selectOption('10');
    await page.getByTestId('play').click();
    await page.waitForFunction(() => Number(document.getElementById('time-now')?.dataset['time']) > 20);
    await page.getByTestId('play').click(); // pause
    expect(await inView()).toBe(true);
    expect(await listScroll()).toBeGreaterThan(0);

    await page.getByTestId('scrubber').fill('33.3');
    expect(await page.locator('[data-testid=event][data-state=current]').getAttribute('data-type')).toBe(
      'verdict',
    );
    expect(await inView()).toBe(true);
    await page.getByTestId('restart').click();
    expect(await listScroll()).toBe(0);
    expect(await page.evaluate(() => window.scrollY)).toBe(0);
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('keeps an error ratio’s bound and abort lines apart under a tall spike (square-root scale)', async () => {
    const journal = crowdedJournal();
    journal.slis = [{ name: 'error_ratio', bound: '<= 0.01', steadyBound: '<= 0.01', during: true }];
    journal.abortRules = [{ sli: 'error_ratio', op: 'above', threshold: 0.05, forMs: 2000, count: 2 }];
    journal.measurements = journal.measurements.map((m, i) => {
      const value = m.phase === 'fault' ? 0.6 : 0.001 * (i % 3);
      return {
        ...m,
        slis: {
          error_ratio: { value, status: value > 0.01 ? 'breach' : 'ok', bound: '<= 0.01', query: 'q' },
        },
      };
    });
    const { page, errors } = await open('error-ratio.html', renderReplayHtml(journal));
    expect(await page.locator('#panel-error-ratio svg').getAttribute('data-scale')).toBe('sqrt');
    expect(await page.locator('#panel-error-ratio figcaption').textContent()).toContain('square-root scale');
    const ys = await page.$$eval('#panel-error-ratio line.bound', (lines) =>
      lines.map((l) => Number(l.getAttribute('y1'))),
    );
    expect(ys).toHaveLength(2);
    // On a linear scale from 0 to 0.6 the two lines would be about 8 px of 150 apart; here they are not.
    expect(Math.abs(ys[0]! - ys[1]!)).toBeGreaterThanOrEqual(15);
    const labels = await boxes(page, '#panel-error-ratio .bound-label');
    expect(labels.map((b) => b.text).sort()).toEqual(['abort > 0.05 ×2', 'bound <= 0.01']);
    expect(overlaps(labels)).toEqual([]);
    const ticks = await boxes(page, '#panel-error-ratio .tick-y');
    expect(overlaps(ticks)).toEqual([]);
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('keeps bound labels and marker labels apart even when their values are a hair apart', async () => {
    const { page, errors } = await open('labels.html', renderReplayHtml(crowdedJournal()));
    const bounds = await boxes(page, '#panel-p95-latency-s .bound-label');
    expect(bounds.map((b) => b.text)).toEqual(
      expect.arrayContaining(['bound <= 0.005', 'steady <= 0.004', 'abort > 0.0045 ×2']),
    );
    expect(overlaps(bounds)).toEqual([]);
    const top = await boxes(page, '#panel-p95-latency-s .marker-label, #panel-p95-latency-s .band-label');
    expect(top.map((b) => b.text).sort()).toEqual(
      ['fault', 'first breach', 'injection', 'recovered', 'stop requested', 'stopped'].sort(),
    );
    expect(overlaps(top)).toEqual([]);
    // Every label stays inside the chart.
    const chart = (await boxes(page, '#panel-p95-latency-s svg'))[0]!;
    for (const b of [...bounds, ...top]) {
      expect(b.x, b.text).toBeGreaterThanOrEqual(chart.x - 0.5);
      expect(b.x + b.width, b.text).toBeLessThanOrEqual(chart.x + chart.width + 0.5);
    }
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('puts ticks on nice values: whole seconds in steps of 1, 2, 5, 10, 15, 30 … and 1-2-5 values', async () => {
    const { page, errors } = await open('ticks.html', renderReplayHtml(crowdedJournal()));
    const xs = await page.$$eval('#panel-p95-latency-s .tick-x', (els) =>
      els.map((el) => ({ value: Number(el.getAttribute('data-value')), text: el.textContent })),
    );
    expect(xs.length).toBeGreaterThanOrEqual(3);
    for (const x of xs) expect(x.text).toMatch(/^-?\d+ s$/);
    const xStep = (xs[1]?.value ?? 0) - (xs[0]?.value ?? 0);
    expect(TIME_STEPS).toContain(xStep);
    expect(xs.map((x) => x.value)).toContain(0);
    for (const x of xs) expect(Math.abs(x.value / xStep - Math.round(x.value / xStep))).toBeLessThan(1e-9);

    const ys = await page.$$eval('#panel-p95-latency-s .tick-y', (els) =>
      els.map((el) => ({ value: Number(el.getAttribute('data-value')), text: el.textContent ?? '' })),
    );
    expect(ys.length).toBeGreaterThanOrEqual(3);
    const yStep = (ys[1]?.value ?? 0) - (ys[0]?.value ?? 0);
    expect(isNiceStep(yStep)).toBe(true);
    for (const y of ys) {
      expect(Math.abs(y.value / yStep - Math.round(y.value / yStep))).toBeLessThan(1e-6);
      expect(y.text.length).toBeLessThanOrEqual(6); // 0.002, not 0.0020000000000000000
    }
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('draws a vertical marker at the injection, first breach, stop requested, stopped and recovered', async () => {
    const { page, errors } = await open('markers.html', renderReplayHtml(crowdedJournal()));
    const ids = ['injected', 'first-breach', 'stop-requested', 'stopped', 'recovered'];
    const xs: number[] = [];
    for (const id of ids) {
      const marker = page.locator(`#panel-p95-latency-s [data-testid=marker-${id}]`);
      expect(await marker.count(), id).toBe(1);
      xs.push(Number(await marker.getAttribute('x1')));
      expect(await page.locator(`#panel-p95-latency-s [data-testid=marker-label-${id}]`).count()).toBe(1);
    }
    // In time order, at their times: injection at 0 sits left of the first breach at +2.6 s, and so on.
    expect([...xs].sort((a, b) => a - b)).toEqual(xs);
    expect(new Set(xs).size).toBe(ids.length);
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('keeps overlapping failover series visible: the first wide and pale, the next dashed on top', async () => {
    const inputs: FailoverInputs = {
      every: 2,
      failures: 2,
      depth: 'deep',
      ttl: 2,
      capacity: 'full',
      replication: 'sync',
      fault: 'region',
      minServed: 70,
      maxFailover: 15,
    };
    const { page, errors } = await open('failover.html', renderFailoverHtml(modelFailover(inputs), inputs));
    await page.getByTestId('scrubber').fill('60');
    const style = (series: string) =>
      page.$eval(`#panel-served path[data-series="${series}"]`, (el) => {
        const cs = getComputedStyle(el);
        return {
          width: parseFloat(cs.strokeWidth),
          dash: cs.strokeDasharray,
          d: el.getAttribute('d') ?? '',
        };
      });
    const served = await style('served');
    const secondary = await style('served by secondary');
    expect(served.width).toBeGreaterThan(secondary.width + 2);
    expect(served.dash).toBe('none');
    expect(secondary.dash).not.toBe('none');
    // Where every request is served by the secondary, both lines run along the same points.
    const tail = (d: string): string =>
      d
        .split(/(?=[ML])/)
        .slice(-10)
        .join('');
    expect(tail(served.d)).toBe(tail(secondary.d));
    expect(errors).toEqual([]);
    await page.context().close();
  });
});
