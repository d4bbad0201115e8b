/** One sample of an exposition and its labels: what the parser (exposition.ts) and the OpenMetrics rules share. */

/** Label name → value. A label that is absent is, as in Prometheus, the same as one with an empty value. */
export type Labels = Record<string, string>;

/** An OpenMetrics exemplar: `# {trace_id="…"} 0.42 1712345678.123` after a sample. */
export interface Exemplar {
  labels: Labels;
  value: number;
  /** Milliseconds since the epoch. */
  timestampMs?: number;
}

/** One sample line. */
export interface Sample {
  name: string;
  labels: Labels;
  value: number;
  /** Milliseconds since the epoch, when the line carries a timestamp. */
  timestampMs?: number;
  exemplar?: Exemplar;
  /** 1-based line in the exposition. */
  line: number;
}
