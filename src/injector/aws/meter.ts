/**
 * Counts the AWS API calls of one run at its SDK clients: a middleware at the `initialize` step sees
 * every command once (SDK retries of it are not counted), named `service:Operation`. GetMetricData also
 * counts the metrics it requests, which is what CloudWatch bills. The run's cost estimate is built from
 * these counts (src/engine/cost.ts).
 */
import type { ApiMeter } from '../ports.js';

/** A client whose middleware stack takes an `initialize` middleware (every AWS SDK v3 client). */
interface StackClient {
  middlewareStack: {
    add(
      mw: (
        next: (args: { input: unknown }) => Promise<unknown>,
        context: { commandName?: string },
      ) => (args: { input: unknown }) => Promise<unknown>,
      options: { step: 'initialize'; name: string; override?: boolean },
    ): void;
  };
}

export class RunMeter implements ApiMeter {
  private readonly counts = new Map<string, number>();
  private metrics = 0;

  /** Counts `client`'s commands under `service` from now on. */
  attach(client: unknown, service: string): void {
    (client as StackClient).middlewareStack.add(
      (next, context) => (args) => {
        const op = (context.commandName ?? 'Unknown').replace(/Command$/, '');
        this.count(`${service}:${op}`);
        if (op === 'GetMetricData') {
          const queries = (args.input as { MetricDataQueries?: unknown[] } | undefined)?.MetricDataQueries;
          this.metrics += Array.isArray(queries) ? queries.length : 0;
        }
        return next(args);
      },
      { step: 'initialize', name: 'chaosGateRunMeter', override: true },
    );
  }

  /** Counts one call made outside the SDK clients (the hand-signed safety-lever requests). */
  count(key: string): void {
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
  }

  calls(): Record<string, number> {
    return Object.fromEntries([...this.counts.entries()].sort(([a], [b]) => a.localeCompare(b)));
  }

  metricsRequested(): number {
    return this.metrics;
  }
}
