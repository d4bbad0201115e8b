/** The human-readable `scan` report: aligned tables, one per question the scan answers. */
import type { ScanReport } from './scan.js';

/** Renders aligned columns; the first column is left-aligned, numbers right-aligned. */
export function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, c) => Math.max(h.length, ...rows.map((r) => (r[c] ?? '').length)));
  const line = (cells: string[]): string =>
    cells
      .map((cell, c) => (c === 0 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!)))
      .join('  ')
      .trimEnd();
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

/** Formats a fraction as a percentage with up to `digits` decimals (`0.05` → `5%`). */
export function percent(x: number, digits = 2): string {
  return `${Number((x * 100).toFixed(digits))}%`;
}

/** The full text report of `chaos-gate scan`. */
export function formatScanText(report: ScanReport): string {
  const { result, context } = report;
  const unit = context.damageUnit;
  const out: string[] = [];
  const empty = context.emptyWindows;
  out.push(
    `baseline full share ${result.baseline.toFixed(4)} (${percent(result.baseline)}): mean of ${result.windows.control} control windows of ${context.window}`,
  );
  out.push(`windows: ${result.windows.control} control, ${result.windows.experiment} experiment`);
  if (empty.control + empty.experiment > 0) {
    out.push(
      `windows with nothing measurable (no-data or errors, never falsified): ${empty.control} control, ${empty.experiment} experiment`,
    );
  }
  out.push('');
  out.push(
    table(
      ['margin', 'false fails (control)', 'falsified (experiment)', 'first falsified window'],
      result.margins.map((m) => [
        percent(m.margin),
        String(m.falseFails),
        String(m.falsified),
        m.firstFalsified === null ? 'none' : String(m.firstFalsified),
      ]),
    ),
  );
  out.push('');
  if (result.chosenMargin === null) {
    out.push('chosen margin: none — every margin falsifies some control window; widen --margins');
    out.push(`total damage if never aborted: ${result.totalDamage} ${unit}`);
  } else {
    const threshold = result.baseline - result.chosenMargin;
    out.push(
      `chosen margin: ${percent(result.chosenMargin)} (smallest with zero false fails) → hypothesis: full share ≥ ${threshold.toFixed(4)}`,
    );
    out.push(`total damage if never aborted: ${result.totalDamage} ${unit} (tagged and degraded)`);
    out.push('');
    out.push(
      table(
        ['k', 'abort window', `damage until abort (${unit})`, 'cost over k=1'],
        result.aborts.map((a) => [
          String(a.k),
          a.abortWindow === null ? 'never' : String(a.abortWindow),
          String(a.damage),
          a.costOverK1 > 0 ? `+${a.costOverK1}` : String(a.costOverK1),
        ]),
      ),
    );
  }
  out.push('');
  const b = result.blastRadius;
  if (b === null) {
    out.push(
      context.source === 'journal'
        ? 'measured blast radius: not computable from a journal (it does not record which requests were tagged)'
        : 'measured blast radius: not computable (no experiment request in the fault window)',
    );
  } else {
    const planned =
      b.plannedShare === null || b.multiplier === null
        ? ' (pass --planned-share to compare with the plan)'
        : ` against ${percent(b.plannedShare)} planned: ×${b.multiplier.toFixed(2)}`;
    out.push(
      `measured blast radius: ${percent(b.measuredShare)} of ${b.faultWindowRequests} fault-window requests tagged (${b.tagged})${planned}`,
    );
  }
  if (report.suggestion) out.push('', ...suggestionText(report.suggestion));
  return out.join('\n');
}

/** The hypothesis `scan` suggests from a held run's noise, as plan fields to paste. */
function suggestionText(s: NonNullable<ScanReport['suggestion']>): string[] {
  if (s.slis === null) return [`suggested hypothesis: none — ${s.why ?? 'not a held run'}`];
  const out = [
    'suggested hypothesis (from this one held run; confirm over several before tightening a gate):',
    '',
    table(
      ['SLI', 'bound', 'suggested bound', 'settle', 'outside after settle', 'longest run', 'tolerance'],
      s.slis.map((x) => [
        x.sli,
        x.bound,
        x.suggestedBound ?? 'n/a',
        `${x.settleMs / 1000}s`,
        `${x.outside} of ${x.measured}`,
        String(x.longestRun),
        x.outside === 0
          ? 'strict'
          : `{ outside: ${x.outside}${x.longestRun < x.outside ? `, consecutive: ${x.longestRun}` : ''} }`,
      ]),
    ),
  ];
  return out;
}
