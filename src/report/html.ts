/**
 * HTML replay reports (docs/design/evidence.md#reports): one self-contained file per run or model, no network at view time.
 * Pure functions of their input; the page carries its data as JSON and its player as inline script.
 */
import type { Journal } from '../journal/types.js';
import {
  failoverReasons,
  modelFailover,
  type FailoverInputs,
  type FailoverResult,
} from '../analysis/failover.js';
import { failoverReplayData } from './html/failover-data.js';
import { escapeHtml, renderPage, scriptSource } from './html/page.js';
import { bindFailoverInputs, replayPlayer } from './html/player.js';
import { journalReplayData } from './html/run-data.js';

export { journalReplayData } from './html/run-data.js';
export { failoverReplayData } from './html/failover-data.js';
export type { ReplayData } from './html/types.js';

/** Reads the embedded data and starts the player; `extra` runs with `replay` in scope. */
function bootScript(extra = ''): string {
  // Each function is embedded as an expression bound to a fixed name: a bundler may rename the
  // declaration (minified identifiers) while keepNames makes `.name` report the original.
  return `const cgReplayPlayer = (${scriptSource(replayPlayer)});
const replayData = JSON.parse(document.getElementById('replay-data').textContent);
const replay = cgReplayPlayer(replayData);
window.chaosGateReplay = replay;
${extra}`;
}

/** The replay of a run journal: SLIs against their bounds, the event trace, the verdict. */
export function renderReplayHtml(journal: Journal): string {
  return renderPage({ data: journalReplayData(journal), script: bootScript() });
}

/** The replay of the failover model, with its inputs editable in the page (recomputed in the browser). */
export function renderFailoverHtml(result: FailoverResult, inputs: FailoverInputs): string {
  const data = failoverReplayData(result, inputs, failoverReasons(result, inputs));
  const extra = `const cgModelFailover = (${scriptSource(modelFailover)});
const cgFailoverReasons = (${scriptSource(failoverReasons)});
const cgFailoverReplayData = (${scriptSource(failoverReplayData)});
const cgBindFailoverInputs = (${scriptSource(bindFailoverInputs)});
cgBindFailoverInputs(replay, cgModelFailover, cgFailoverReasons, cgFailoverReplayData);`;
  return renderPage({ data, beforeControls: inputsForm(inputs), script: bootScript(extra) });
}

function inputsForm(inputs: FailoverInputs): string {
  const number = (name: keyof FailoverInputs, label: string, value: number, attrs: string): string =>
    `<label>${escapeHtml(label)}<input id="input-${name}" data-testid="input-${name}" name="${name}" type="number" value="${value}" ${attrs}></label>`;
  const choice = (
    name: keyof FailoverInputs,
    label: string,
    value: string,
    options: readonly string[],
  ): string =>
    `<label>${escapeHtml(label)}<select id="input-${name}" data-testid="input-${name}" name="${name}">${options
      .map((o) => `<option value="${o}"${o === value ? ' selected' : ''}>${o}</option>`)
      .join('')}</select></label>`;
  return `<form id="inputs" data-testid="inputs" aria-label="Model inputs">
${number('every', 'health check every (s)', inputs.every, 'min="0.1" step="any"')}
${number('failures', 'failures to mark down', inputs.failures, 'min="1" step="1"')}
${choice('depth', 'check depth', inputs.depth, ['shallow', 'deep'])}
${number('ttl', 'route TTL (s)', inputs.ttl, 'min="0.1" step="any"')}
${choice('capacity', 'secondary capacity', inputs.capacity, ['full', 'half', 'zero'])}
${choice('replication', 'replication', inputs.replication, ['async', 'sync'])}
${choice('fault', 'fault', inputs.fault, ['region', 'model'])}
${number('minServed', 'gate: min served (%)', inputs.minServed, 'min="0" max="100" step="any"')}
${number('maxFailover', 'gate: max failover (s)', inputs.maxFailover, 'min="0.1" step="any"')}
<p id="input-error" data-testid="input-error" role="alert"></p>
</form>`;
}
