/**
 * The failover model's result as replay data. Runs in Node (first render) and in the browser
 * (after an input change), so it is self-contained like `modelFailover`: reasons are passed in.
 */
import type { FailoverInputs, FailoverResult } from '../../analysis/failover.js';
import type { ReplayData, ReplayPoint } from './types.js';

/** Builds the replay of one model run: requests served per second, the outage, the event trace. */
export function failoverReplayData(
  result: FailoverResult,
  inputs: FailoverInputs,
  reasons: string[],
): ReplayData {
  // The model's fixed scenario (docs/design/analysis.md#model-failover): outage from 15 s to 45 s of a 60 s window at 10 rps.
  const OUTAGE_START = 15;
  const OUTAGE_END = 45;
  const RPS = 10;
  const served: ReplayPoint[] = [];
  const secondary: ReplayPoint[] = [];
  const failed: ReplayPoint[] = [];
  const servedNow: ReplayPoint[] = [];
  const onSecondary: ReplayPoint[] = [];
  const shareSoFar: ReplayPoint[] = [[0, null]];
  let offered = 0;
  let done = 0;
  for (const s of result.series) {
    // Steps: a second's rate holds from its start to its end.
    served.push([s.t, s.served], [s.t + 1, s.served]);
    secondary.push([s.t, s.servedSecondary], [s.t + 1, s.servedSecondary]);
    failed.push([s.t, s.failed], [s.t + 1, s.failed]);
    servedNow.push([s.t, s.served]);
    onSecondary.push([s.t, (s.toSecondary / s.offered) * 100]);
    if (s.t >= OUTAGE_START && s.t < OUTAGE_END) {
      offered += s.offered;
      done += s.served;
      shareSoFar.push([s.t + 1, (done / offered) * 100]);
    }
  }
  const last = result.series[result.series.length - 1];
  const end = last ? last.t + 1 : OUTAGE_END;
  const bounds = [{ label: `offered ${RPS} rps`, value: RPS, cls: 'ref' }];
  if (inputs.capacity === 'half') bounds.push({ label: 'secondary capacity 5 rps', value: 5, cls: 'limit' });
  const yes = (ok: boolean): string => (ok ? 'pass' : 'fail');
  return {
    kind: 'failover',
    title: 'Regional failover model',
    subtitle:
      `health checks every ${inputs.every} s, ${inputs.failures} failures, ${inputs.depth}; TTL ${inputs.ttl} s; ` +
      `secondary ${inputs.capacity}; ${inputs.replication} replication; fault: ${inputs.fault}`,
    start: 0,
    end,
    events: result.events.map((e) => ({ t: e.at, type: e.type, message: e.message })),
    panels: [
      {
        id: 'served',
        title: 'Requests per second',
        unit: 'rps',
        // The series overlap (everything served comes from the secondary once it took over): the first is
        // drawn wide and pale, the second dashed on top, so both stay visible where they coincide.
        series: [
          { name: 'served', cls: 's0 wide', points: served },
          { name: 'served by secondary', cls: 's1 dashed', points: secondary },
          { name: 'failed', cls: 's3', points: failed },
        ],
        bounds,
        bands: [{ from: OUTAGE_START, to: OUTAGE_END, label: `outage (${inputs.fault})` }],
      },
    ],
    readouts: [
      { id: 'served-now', label: 'served this second', unit: 'rps', decimals: 1, points: servedNow },
      { id: 'on-secondary', label: 'clients on the secondary', unit: '%', decimals: 0, points: onSecondary },
      {
        id: 'served-share',
        label: 'outage requests served so far',
        unit: '%',
        decimals: 1,
        points: shareSoFar,
      },
    ],
    verdict: {
      label: result.pass ? 'pass' : 'fail',
      ok: result.pass,
      reason: reasons.length ? reasons.join('; ') : 'every criterion of the gate holds',
    },
    metrics: [
      {
        id: 'served-share',
        label: `served during outage (≥ ${inputs.minServed} %)`,
        value: `${result.servedShare.toFixed(1)} % — ${yes(result.criteria.served)}`,
        ok: result.criteria.served,
      },
      {
        id: 'marked-down',
        label: 'primary marked down',
        value: result.markedDownAt === null ? 'never' : `${result.markedDownAt} s`,
        ok: null,
      },
      {
        id: 'failover',
        label: `failover (≤ ${inputs.maxFailover} s)`,
        value: `${result.failoverSeconds === null ? 'none' : `${result.failoverSeconds} s`} — ${yes(result.criteria.failover)}`,
        ok: result.criteria.failover,
      },
      {
        id: 'lost',
        label: 'lost conversations (0)',
        value: `${result.lostConversations} — ${yes(result.criteria.sessions)}`,
        ok: result.criteria.sessions,
      },
    ],
  };
}
