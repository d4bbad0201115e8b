/**
 * The FIS safety lever (GetSafetyLever, UpdateSafetyLeverState): engaging it stops every experiment that
 * has not ended and cancels new ones before they run, until it is disengaged.
 */
import { FisError, notFound } from './errors.js';
import type { FisStore, FisTimings, Json } from './store.js';

/** The lever's status: `engaging` lasts `leverEngagingMs`, then it reads `engaged`. */
export type LeverStatus = 'disengaged' | 'engaging' | 'engaged';

/** The account's one safety lever, `default`. */
export class SafetyLever {
  private state: { status: LeverStatus; reason: string; engagedAt?: number } = {
    status: 'disengaged',
    reason: 'Safety lever is disengaged.',
  };

  /**
   * @param stopExperiments called when the lever engages, with the reason each stopped experiment shows
   */
  constructor(
    private readonly store: FisStore,
    private readonly timings: () => FisTimings,
    private readonly stopExperiments: (now: number, reason: string) => void,
  ) {}

  /** The lever's status now. */
  get status(): LeverStatus {
    return this.state.status;
  }

  /** GetSafetyLever. */
  get(input: Json): Json {
    return { safetyLever: this.view(String(input.id)) };
  }

  /** UpdateSafetyLeverState: engage (stopping what runs) or disengage; a change while engaging is a Conflict. */
  update(input: Json): Json {
    const id = String(input.id);
    this.view(id);
    const state = input.state as { status: 'engaged' | 'disengaged'; reason: string };
    if (this.state.status === 'engaging')
      throw new FisError(
        'ConflictException',
        'The safety lever is engaging and cannot be changed until it is engaged.',
      );
    if (this.state.status === state.status)
      throw new FisError('ConflictException', `The safety lever is already ${state.status}.`);
    const now = this.store.now();
    if (state.status === 'engaged') {
      const engagingMs = this.timings().leverEngagingMs;
      this.state = { status: 'engaging', reason: state.reason, engagedAt: now + engagingMs };
      this.stopExperiments(now, `Experiment stopped by the safety lever: ${state.reason}`);
      if (engagingMs <= 0) this.state.status = 'engaged';
    } else {
      this.state = { status: 'disengaged', reason: state.reason };
    }
    return { safetyLever: this.view(id) };
  }

  /** Moves an engaging lever to engaged once its time has come. */
  tick(now: number): void {
    if (this.state.status === 'engaging' && now >= (this.state.engagedAt ?? now))
      this.state.status = 'engaged';
  }

  private view(id: string): Json {
    if (id !== 'default') throw notFound(`Safety lever ${id} not found.`);
    return {
      id: 'default',
      arn: this.store.arn('safety-lever/default'),
      state: { status: this.state.status, reason: this.state.reason },
    };
  }
}
