/**
 * Deterministic noise. A value is a pure function of (seed, series name, time), not of call order, so
 * reading the same series twice at the same time — or in another order — gives the same number.
 */

/** FNV-1a, 32 bit: a small, well-spread string hash. */
export function hash32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** One step of mulberry32: a 32-bit state to a float in [0, 1). */
export function mulberry32(state: number): number {
  let t = (state + 0x6d2b79f5) >>> 0;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}

/** A uniform number in [0, 1) for this seed, name and time. */
export function noiseAt(seed: number, name: string, at: number): number {
  return mulberry32(hash32(`${seed}:${name}:${at}`));
}
