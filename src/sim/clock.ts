/** A clock for the live demo: simulated time runs `speed` times faster than the wall clock. */
import type { Clock } from '../clock/clock.js';
import { longTimeout } from '../net/timer.js';

export class ScaledClock implements Clock {
  private readonly realStart = Date.now();

  constructor(
    private readonly speed: number,
    private readonly start = Date.now(),
  ) {}

  now(): number {
    return this.start + Math.round((Date.now() - this.realStart) * this.speed);
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise<void>((resolve) => {
      if (signal?.aborted || ms <= 0) return resolve();
      const timer = longTimeout(done, ms / this.speed);
      function done(): void {
        timer.clear();
        signal?.removeEventListener('abort', done);
        resolve();
      }
      signal?.addEventListener('abort', done, { once: true });
    });
  }
}
