/**
 * Browser code of the replay page. These functions run in the viewer's browser, not in Node: the
 * page embeds their source with `Function.prototype.toString`, so each must be self-contained (no
 * imports, no references to module scope) and is type-checked here against the DOM library.
 */
import type { FailoverInputs, FailoverResult } from '../../analysis/failover.js';
import type { ReplayData, ReplayPoint } from './types.js';

/** What the page script can do with a running player. */
export interface ReplayController {
  load(data: ReplayData): void;
  time(): number;
  playing(): boolean;
}

/**
 * Builds the replay from `initial` into the page skeleton and wires Play, Next event, Restart,
 * Speed and the scrubber. The page opens on the answer: the finished run, every chart whole, the
 * readouts at the last reading; Play (or Restart) replays it from the start. Returns a controller whose
 * `load` swaps the data and shows its answer the same way, paused.
 */
export function replayPlayer(initial: ReplayData): ReplayController {
  const SVG = 'http://www.w3.org/2000/svg';
  const WIDTH = 640;
  const HEIGHT = 190;
  const LEFT = 58;
  const RIGHT = 14;
  const BOTTOM = 22;
  /** Height of one row of marker labels above the plot, and the gap between two labels in a row (px). */
  const ROW = 11;
  const LABEL_GAP = 6;
  /** Vertical room a bound label needs: labels closer than this are moved apart. */
  const LABEL_HEIGHT = 11;
  /** Closest two bound lines may be (px) before the chart switches to a square-root value scale. */
  const MIN_LINE_GAP = 8;
  /** Closest two value ticks may be (px); a tick closer to the one below is left out. */
  const MIN_TICK_GAP = 11;
  /** Nice steps of the time axis (s); below a second, powers of ten times 1, 2 or 5. */
  const TIME_STEPS = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600];
  const byId = (id: string): HTMLElement => {
    const el = document.getElementById(id);
    if (!el) throw new Error(`replay page is missing #${id}`);
    return el;
  };
  const play = byId('play') as HTMLButtonElement;
  const next = byId('next-event') as HTMLButtonElement;
  const restart = byId('restart') as HTMLButtonElement;
  const speedSelect = byId('speed') as HTMLSelectElement;
  const scrubber = byId('scrubber') as HTMLInputElement;
  const timeNow = byId('time-now');
  const status = byId('status');
  const charts = byId('charts');
  const readouts = byId('readouts');
  const eventList = byId('event-list');

  let data = initial;
  let time = data.end;
  let playing = false;
  let speed = Number(speedSelect.value) || 1;
  let lastFrame = 0;
  let dynamic: { path: SVGPathElement; marks: SVGGElement; points: ReplayPoint[] }[] = [];
  let cursors: SVGLineElement[] = [];
  let xOf = (t: number): number => t;
  let shownEvent = -1;

  /** 1, 2 or 5 × 10^k: the smallest such step that cuts `span` into at most `count` parts. */
  const niceStep = (span: number, count: number): number => {
    const raw = span / Math.max(1, count);
    const power = Math.pow(10, Math.floor(Math.log10(raw)));
    const f = raw / power;
    return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * power;
  };
  /** Multiples of `step` from `lo` to `hi`, without floating-point noise. */
  const ticksOf = (lo: number, hi: number, step: number): number[] => {
    const decimals = Math.max(0, -Math.floor(Math.log10(step) + 1e-9));
    const out: number[] = [];
    for (let k = Math.ceil(lo / step - 1e-9); k * step <= hi + 1e-9; k++)
      out.push(Number((k * step).toFixed(decimals)));
    return out;
  };
  /**
   * Spreads labels (sorted by wanted position) so that neighbours are at least `gap` apart, inside
   * [min, max]: pushed down from the top, then pulled back up from the bottom.
   */
  const spread = (wanted: number[], gap: number, min: number, max: number): number[] => {
    const out = wanted.map((w) => Math.min(max, Math.max(min, w)));
    for (let i = 1; i < out.length; i++) out[i] = Math.max(out[i]!, out[i - 1]! + gap);
    if (out.length) out[out.length - 1] = Math.min(out[out.length - 1]!, max);
    for (let i = out.length - 2; i >= 0; i--) out[i] = Math.min(out[i]!, out[i + 1]! - gap);
    return out;
  };

  const fmt = (value: number | null | undefined, decimals: number, unit: string): string =>
    value === null || value === undefined ? '—' : `${value.toFixed(decimals)}${unit ? ` ${unit}` : ''}`;
  const at = (points: ReplayPoint[], t: number): ReplayPoint | undefined => {
    let found: ReplayPoint | undefined;
    for (const p of points) {
      if (p[0] > t + 1e-9) break;
      found = p;
    }
    return found;
  };
  const svg = <K extends keyof SVGElementTagNameMap>(name: K, attrs: Record<string, string | number>) => {
    const el = document.createElementNS(SVG, name);
    for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
    return el;
  };

  const build = (): void => {
    byId('title').textContent = data.title;
    byId('subtitle').textContent = data.subtitle;
    const verdict = byId('verdict');
    verdict.textContent = data.verdict.label;
    verdict.dataset['ok'] = String(data.verdict.ok);
    byId('reason').textContent = data.verdict.reason;
    const metrics = byId('metrics');
    metrics.replaceChildren();
    for (const m of data.metrics) {
      const row = document.createElement('div');
      row.className = 'metric';
      row.setAttribute('data-testid', `metric-${m.id}`);
      row.dataset['ok'] = String(m.ok);
      const dt = document.createElement('dt');
      dt.textContent = m.label;
      const dd = document.createElement('dd');
      dd.id = `metric-${m.id}`;
      dd.textContent = m.value;
      row.append(dt, dd);
      metrics.append(row);
    }

    const span = data.end - data.start || 1;
    xOf = (t: number): number => LEFT + ((t - data.start) / span) * (WIDTH - LEFT - RIGHT);
    scrubber.min = String(data.start);
    scrubber.max = String(data.end);
    // Any value: a fixed step would snap short of a last reading that is not on its grid.
    scrubber.step = 'any';

    charts.replaceChildren();
    dynamic = [];
    cursors = [];
    // Time ticks at nice values (…, -10, -5, 0, 5, …), the same on every panel.
    const timeStep =
      span > 5 ? (TIME_STEPS.find((st) => span / st <= 8) ?? niceStep(span, 8)) : niceStep(span, 6);
    const timeTicks = ticksOf(data.start, data.end, timeStep);
    for (const panel of data.panels) {
      const figure = document.createElement('figure');
      figure.className = 'panel';
      figure.id = `panel-${panel.id}`;
      figure.setAttribute('data-testid', `panel-${panel.id}`);
      const caption = document.createElement('figcaption');
      caption.textContent = panel.unit ? `${panel.title} (${panel.unit})` : panel.title;
      const root = svg('svg', { viewBox: `0 0 ${WIDTH} ${HEIGHT}`, role: 'img', 'aria-label': panel.title });
      const legend = document.createElement('div');
      legend.className = 'legend';
      figure.append(caption, root, legend);
      // In the document before anything is laid out: label widths are measured, not guessed.
      charts.append(figure);

      // Labels above the plot: the markers and the band names, each in the first row where it fits.
      const topLabels: { x: number; text: string; cls: string; id?: string }[] = [];
      for (const band of panel.bands) {
        if (band.to < data.start || band.from > data.end) continue;
        topLabels.push({ x: xOf(Math.max(band.from, data.start)), text: band.label, cls: 'band-label' });
      }
      for (const m of data.markers ?? []) {
        if (m.t < data.start - 1e-9 || m.t > data.end + 1e-9) continue;
        topLabels.push({ x: xOf(m.t), text: m.label, cls: `marker-label marker-${m.id}`, id: m.id });
      }
      topLabels.sort((a, b) => a.x - b.x);
      const rowEnds: number[] = [];
      const placed = topLabels.map((l) => {
        const text = svg('text', { class: l.cls, x: l.x, y: 0, 'text-anchor': 'start' });
        text.textContent = l.text;
        if (l.id) text.setAttribute('data-testid', `marker-label-${l.id}`);
        root.append(text);
        const width = text.getComputedTextLength();
        // Keep the label inside the chart: a label near the right edge ends at its marker instead.
        const x = l.x + width > WIDTH - 2 ? Math.max(2, l.x - width) : l.x;
        let row = rowEnds.findIndex((end) => end + LABEL_GAP <= x);
        if (row < 0) row = rowEnds.push(-Infinity) - 1;
        rowEnds[row] = x + width;
        text.setAttribute('x', String(x));
        return { text, row };
      });
      // Rows as tall as the labels really are; each label's box starts at the top of its row.
      const rowHeight = Math.max(ROW, ...placed.map((p) => p.text.getBBox().height + 1));
      for (const p of placed) {
        const box = p.text.getBBox();
        p.text.setAttribute('y', String(2 + p.row * rowHeight - box.y));
      }
      const top = 4 + Math.max(1, rowEnds.length) * rowHeight;

      const values: number[] = [];
      for (const s of panel.series) for (const p of s.points) if (p[1] !== null) values.push(p[1]);
      for (const b of panel.bounds) values.push(b.value);
      let lo = values.length ? Math.min(...values) : 0;
      let hi = values.length ? Math.max(...values) : 1;
      if (hi - lo < 1e-12) {
        const pad = Math.abs(hi) * 0.1 || 1;
        lo -= pad;
        hi += pad;
      }
      const pad = (hi - lo) * 0.08;
      lo -= pad;
      hi += pad;
      const plotTop = top;
      const plotHeight = HEIGHT - top - BOTTOM;
      const linear = (v: number): number => plotTop + (1 - (v - lo) / (hi - lo)) * plotHeight;
      // Bounds a hair apart on a tall range (an error ratio's 1 % bound and 5 % abort under a 60 % spike)
      // would share a pixel: a square-root scale spreads the low values, when the values allow one.
      const distinct = [...new Set(panel.bounds.map((b) => b.value))].sort((a, b) => a - b);
      const minGap = (f: (v: number) => number): number => {
        let gap = Infinity;
        for (let i = 1; i < distinct.length; i++)
          gap = Math.min(gap, Math.abs(f(distinct[i]!) - f(distinct[i - 1]!)));
        return gap;
      };
      const rootLo = Math.sqrt(Math.max(0, lo));
      const rootHi = Math.sqrt(Math.max(0, hi));
      const sqrtY = (v: number): number =>
        plotTop + (1 - (Math.sqrt(Math.max(0, v)) - rootLo) / (rootHi - rootLo || 1)) * plotHeight;
      const useRoot =
        (values.length ? Math.min(...values) : 0) >= 0 &&
        minGap(linear) < MIN_LINE_GAP &&
        minGap(sqrtY) > minGap(linear);
      if (useRoot) lo = Math.max(0, lo);
      const yOf = useRoot ? sqrtY : linear;
      root.setAttribute('data-scale', useRoot ? 'sqrt' : 'linear');
      if (useRoot) caption.textContent += ' — square-root scale, so bounds close together stay apart';

      for (const band of panel.bands) {
        const x0 = xOf(Math.max(band.from, data.start));
        const x1 = xOf(Math.min(band.to, data.end));
        root.prepend(
          svg('rect', {
            class: 'band',
            x: x0,
            y: top,
            width: Math.max(0, x1 - x0),
            height: HEIGHT - top - BOTTOM,
          }),
        );
      }
      // Value ticks at nice values with faint grid lines.
      const valueStep = niceStep(hi - lo, 4);
      let lastTickY = Infinity;
      for (const v of ticksOf(lo, hi, valueStep)) {
        // On a square-root scale the high ticks crowd together: one that would touch the last is left out.
        if (lastTickY - yOf(v) < MIN_TICK_GAP) continue;
        lastTickY = yOf(v);
        root.append(svg('line', { class: 'grid', x1: LEFT, x2: WIDTH - RIGHT, y1: yOf(v), y2: yOf(v) }));
        const tick = svg('text', {
          class: 'tick tick-y',
          x: LEFT - 4,
          y: yOf(v) + 3,
          'text-anchor': 'end',
          'data-value': v,
        });
        tick.textContent = String(v);
        root.append(tick);
      }
      root.append(svg('line', { class: 'axis', x1: LEFT, x2: LEFT, y1: top, y2: HEIGHT - BOTTOM }));
      root.append(
        svg('line', { class: 'axis', x1: LEFT, x2: WIDTH - RIGHT, y1: HEIGHT - BOTTOM, y2: HEIGHT - BOTTOM }),
      );
      for (const t of timeTicks) {
        const tick = svg('text', {
          class: 'tick tick-x',
          x: xOf(t),
          y: HEIGHT - 6,
          'text-anchor': 'middle',
          'data-value': t,
        });
        tick.textContent = `${t} s`;
        root.append(tick);
      }
      // Bound lines at their values; their labels spread apart (by their measured height) so that none
      // covers another.
      const bounds = [...panel.bounds].sort((a, b) => yOf(a.value) - yOf(b.value));
      const labels = bounds.map((b) => {
        root.append(
          svg('line', {
            class: `bound ${b.cls}`,
            x1: LEFT,
            x2: WIDTH - RIGHT,
            y1: yOf(b.value),
            y2: yOf(b.value),
          }),
        );
        const label = svg('text', {
          class: `bound-label ${b.cls}`,
          x: WIDTH - RIGHT - 2,
          y: yOf(b.value) - 3,
          'text-anchor': 'end',
        });
        label.textContent = b.label;
        root.append(label);
        return label;
      });
      const gap = Math.max(LABEL_HEIGHT, ...labels.map((l) => l.getBBox().height + 1));
      const labelY = spread(
        bounds.map((b) => yOf(b.value) - 3),
        gap,
        top + gap - 2,
        HEIGHT - BOTTOM - 3,
      );
      labels.forEach((label, i) => label.setAttribute('y', String(labelY[i])));
      for (const m of data.markers ?? []) {
        if (m.t < data.start - 1e-9 || m.t > data.end + 1e-9) continue;
        root.append(
          svg('line', {
            class: `marker marker-${m.id}`,
            'data-testid': `marker-${m.id}`,
            x1: xOf(m.t),
            x2: xOf(m.t),
            y1: top,
            y2: HEIGHT - BOTTOM,
          }),
        );
      }
      for (const s of panel.series) {
        const path = svg('path', { class: `line ${s.cls}`, 'data-series': s.name });
        const marks = svg('g', { class: `marks ${s.cls}` });
        root.append(path, marks);
        // Screen coordinates are computed once; a frame only decides how many of them to draw.
        const projected: ReplayPoint[] = s.points.map((p) =>
          p[1] === null ? [p[0], null] : p.length === 3 ? [p[0], yOf(p[1]), p[2]] : [p[0], yOf(p[1])],
        );
        dynamic.push({ path, marks, points: projected });
      }
      const cursor = svg('line', { class: 'cursor', y1: top, y2: HEIGHT - BOTTOM, x1: LEFT, x2: LEFT });
      root.append(cursor);
      cursors.push(cursor);
      for (const s of panel.series) {
        const key = document.createElement('span');
        key.className = `key ${s.cls}`;
        key.textContent = s.name;
        legend.append(key);
      }
    }

    readouts.replaceChildren();
    for (const r of data.readouts) {
      const row = document.createElement('div');
      row.className = 'readout';
      row.setAttribute('data-testid', `readout-${r.id}`);
      const label = document.createElement('span');
      label.className = 'label';
      label.textContent = r.label;
      const value = document.createElement('output');
      value.id = `readout-${r.id}`;
      value.className = 'value';
      row.append(label, value);
      readouts.append(row);
    }

    eventList.replaceChildren();
    shownEvent = -2;
    data.events.forEach((e, i) => {
      const li = document.createElement('li');
      li.setAttribute('data-testid', 'event');
      li.dataset['index'] = String(i);
      li.dataset['t'] = String(e.t);
      li.dataset['type'] = e.type;
      const stamp = document.createElement('time');
      stamp.textContent = `${e.t >= 0 ? '+' : ''}${e.t.toFixed(1)} s`;
      const type = document.createElement('span');
      type.className = 'type';
      type.textContent = e.type;
      const message = document.createElement('span');
      message.className = 'message';
      message.textContent = e.message;
      li.append(stamp, type, message);
      li.addEventListener('click', () => {
        pause();
        time = e.t;
        render();
      });
      eventList.append(li);
    });
  };

  const render = (): void => {
    scrubber.value = String(time);
    timeNow.textContent = `${time.toFixed(1)} s`;
    timeNow.dataset['time'] = String(time);
    const x = xOf(time);
    for (const c of cursors) {
      c.setAttribute('x1', String(x));
      c.setAttribute('x2', String(x));
    }
    for (const d of dynamic) {
      let path = '';
      let pen = false;
      let marks = '';
      for (const p of d.points) {
        if (p[0] > time + 1e-9) break;
        if (p[1] === null) {
          pen = false;
          continue;
        }
        const px = xOf(p[0]).toFixed(1);
        const py = p[1].toFixed(1);
        path += `${pen ? 'L' : 'M'}${px} ${py}`;
        pen = true;
        if (p[2] === 'breach' || p[2] === 'error' || p[2] === 'no-data') {
          marks += `<circle class="mark ${p[2]}" cx="${px}" cy="${py}" r="3"></circle>`;
        }
      }
      d.path.setAttribute('d', path);
      d.marks.innerHTML = marks;
    }
    for (const r of data.readouts) {
      const out = document.getElementById(`readout-${r.id}`);
      if (!out) continue;
      const p = at(r.points, time);
      out.textContent = fmt(p ? p[1] : null, r.decimals, r.unit);
      out.dataset['value'] = p && p[1] !== null ? String(p[1]) : '';
      out.dataset['status'] = p && p.length === 3 ? p[2] : p ? 'ok' : 'none';
    }
    let current = -1;
    data.events.forEach((e, i) => {
      if (e.t <= time + 1e-9) current = i;
    });
    const items = eventList.querySelectorAll('li');
    items.forEach((li, i) => {
      li.dataset['state'] = i === current ? 'current' : i < current ? 'past' : 'future';
      if (i === current) li.setAttribute('aria-current', 'true');
      else li.removeAttribute('aria-current');
    });
    // The list follows playback: the current event is kept in the middle of the list's own viewport
    // (the list scrolls, the page does not).
    if (current !== shownEvent) {
      shownEvent = current;
      const li = items[Math.max(0, current)];
      if (li) {
        const target = li.offsetTop - (eventList.clientHeight - li.offsetHeight) / 2;
        eventList.scrollTop = Math.max(0, target);
      }
    }
    const finished = time >= data.end - 1e-9;
    const state = playing ? 'playing' : finished ? 'finished' : time > data.start ? 'paused' : 'ready';
    status.dataset['state'] = state;
    status.textContent =
      state === 'finished' ? `finished — ${data.verdict.label}` : state === 'playing' ? 'playing' : state;
    play.textContent = playing ? 'Pause' : finished ? 'Replay' : 'Play';
  };

  const frame = (now: number): void => {
    if (!playing) return;
    time = Math.min(data.end, time + ((now - lastFrame) / 1000) * speed);
    lastFrame = now;
    if (time >= data.end) playing = false;
    render();
    if (playing) requestAnimationFrame(frame);
  };
  const pause = (): void => {
    playing = false;
  };
  play.addEventListener('click', () => {
    if (playing) {
      pause();
      render();
      return;
    }
    if (time >= data.end - 1e-9) time = data.start;
    playing = true;
    lastFrame = performance.now();
    render();
    requestAnimationFrame(frame);
  });
  next.addEventListener('click', () => {
    pause();
    const upcoming = data.events.find((e) => e.t > time + 1e-9);
    time = upcoming ? upcoming.t : data.end;
    render();
  });
  restart.addEventListener('click', () => {
    pause();
    time = data.start;
    render();
  });
  speedSelect.addEventListener('change', () => {
    speed = Number(speedSelect.value) || 1;
  });
  scrubber.addEventListener('input', () => {
    pause();
    time = Math.min(data.end, Math.max(data.start, Number(scrubber.value)));
    render();
  });

  build();
  render();
  return {
    load(fresh: ReplayData): void {
      pause();
      data = fresh;
      time = data.end;
      build();
      render();
    },
    time: () => time,
    playing: () => playing,
  };
}

/** The editable model inputs on the failover page: any change recomputes and shows the new answer, paused. */
export function bindFailoverInputs(
  controller: ReplayController,
  model: (inputs: FailoverInputs) => FailoverResult,
  reasons: (result: FailoverResult, inputs: FailoverInputs) => string[],
  toReplay: (result: FailoverResult, inputs: FailoverInputs, reasons: string[]) => ReplayData,
): void {
  const form = document.getElementById('inputs') as HTMLFormElement;
  const error = document.getElementById('input-error') as HTMLElement;
  const field = (name: string): HTMLInputElement | HTMLSelectElement =>
    form.elements.namedItem(name) as HTMLInputElement | HTMLSelectElement;
  let computations = 1;
  const recompute = (): void => {
    const number = (name: string): number => Number(field(name).value);
    const inputs: FailoverInputs = {
      every: number('every'),
      failures: number('failures'),
      depth: field('depth').value as FailoverInputs['depth'],
      ttl: number('ttl'),
      capacity: field('capacity').value as FailoverInputs['capacity'],
      replication: field('replication').value as FailoverInputs['replication'],
      fault: field('fault').value as FailoverInputs['fault'],
      minServed: number('minServed'),
      maxFailover: number('maxFailover'),
    };
    const problems: string[] = [];
    if (!(inputs.every > 0)) problems.push('every: a positive number of seconds');
    if (!(Number.isInteger(inputs.failures) && inputs.failures >= 1))
      problems.push('failures: a whole number ≥ 1');
    if (!(inputs.ttl > 0)) problems.push('ttl: a positive number of seconds');
    if (!(inputs.minServed >= 0 && inputs.minServed <= 100)) problems.push('min served: a percentage 0–100');
    if (!(inputs.maxFailover > 0)) problems.push('max failover: a positive number of seconds');
    error.textContent = problems.length ? `Not recomputed — expected ${problems.join('; ')}` : '';
    if (problems.length) return;
    const result = model(inputs);
    controller.load(toReplay(result, inputs, reasons(result, inputs)));
    computations++;
    document.body.dataset['computations'] = String(computations);
  };
  form.addEventListener('change', recompute);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    recompute();
  });
  document.body.dataset['computations'] = String(computations);
}
