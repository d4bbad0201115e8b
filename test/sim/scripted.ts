/** A hand-written source for boundary tests: values scripted per second since injection. */
import type { MetricSource, Query, Reading, SourceKind } from '../../src/metrics/source.js';
import type { SimWorld } from '../../src/sim/world.js';

export type Scripted = number | null | 'error';

/** Wraps the world's source and overrides some series with a script indexed by whole seconds after injection. */
export function scriptedSource(
  world: SimWorld,
  kind: SourceKind,
  scripts: Record<string, (second: number) => Scripted | undefined>,
): MetricSource {
  const inner = world.sources[kind];
  return {
    kind,
    async read(queries: readonly Query[], at: number, windowMs: number): Promise<Reading[]> {
      const base = await inner.read(queries, at, windowMs);
      const start = world.injector.startedAt;
      return base.map((r) => {
        const script = scripts[r.name];
        if (!script || start === undefined || at <= start) return r;
        const v = script(Math.round((at - start) / 1000));
        if (v === undefined) return r;
        if (v === 'error') return { ...r, value: null, status: 'error', error: 'scripted error' };
        if (v === null) return { ...r, value: null, status: 'no-data', error: 'scripted gap' };
        return { ...r, value: v, status: 'ok' };
      });
    },
  };
}
