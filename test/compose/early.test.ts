/**
 * A run's kill-switch read sent before its plan is loaded (src/compose/early.ts): the gate takes that
 * answer only while it is fresh, every later read is a new one, and an answer nobody takes is dropped
 * without an unhandled rejection.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { EARLY_READ_MAX_AGE_MS, readAhead, startEarlyReads } from '../../src/compose/early.js';
import { VirtualClock } from '../../src/clock/clock.js';
import type { KillSwitchProbe } from '../../src/injector/ports.js';

type State = Awaited<ReturnType<KillSwitchProbe['engaged']>>;

/** A probe answering from `answers` in turn, recording each read and the signal it was given. */
function scripted(answers: (State | Error)[]): KillSwitchProbe & { reads: (AbortSignal | undefined)[] } {
  const reads: (AbortSignal | undefined)[] = [];
  return {
    reads,
    engaged(signal) {
      reads.push(signal);
      const answer = answers[reads.length - 1];
      if (answer === undefined) throw new Error(`read ${reads.length} was not expected`);
      return answer instanceof Error ? Promise.reject(answer) : Promise.resolve(answer);
    },
  };
}

const RELEASED: State = { engaged: false };
const ENGAGED: State = { engaged: true, reason: 'kill-switch alarm chaos-gate-kill-switch is ALARM' };

describe('readAhead', () => {
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown): void => void unhandled.push(reason);
  afterEach(() => {
    process.off('unhandledRejection', onUnhandled);
    unhandled.length = 0;
  });

  it('sends the first read when it is created, before anyone asks', () => {
    const probe = scripted([RELEASED]);
    readAhead(probe, new VirtualClock());
    expect(probe.reads).toHaveLength(1);
  });

  it('gives the first asker that read while it is fresh, without reading again', async () => {
    const clock = new VirtualClock();
    const probe = scripted([ENGAGED]);
    const ahead = readAhead(probe, clock);
    clock.advance(EARLY_READ_MAX_AGE_MS);
    expect(await ahead.engaged(new AbortController().signal)).toEqual(ENGAGED);
    expect(probe.reads).toHaveLength(1);
  });

  it('reads again for every later asker, passing its signal', async () => {
    const probe = scripted([RELEASED, ENGAGED, RELEASED]);
    const ahead = readAhead(probe, new VirtualClock());
    expect(await ahead.engaged()).toEqual(RELEASED);
    const signal = new AbortController().signal;
    expect(await ahead.engaged(signal)).toEqual(ENGAGED);
    expect(await ahead.engaged()).toEqual(RELEASED);
    expect(probe.reads).toEqual([undefined, signal, undefined]);
  });

  it('reads again when the first asker comes later than the freshness bound: an old "released" is not trusted', async () => {
    const clock = new VirtualClock();
    const probe = scripted([RELEASED, ENGAGED]);
    const ahead = readAhead(probe, clock);
    clock.advance(EARLY_READ_MAX_AGE_MS + 1);
    const signal = new AbortController().signal;
    expect(await ahead.engaged(signal)).toEqual(ENGAGED);
    expect(probe.reads).toEqual([undefined, signal]);
  });

  it('hands a failed early read to the asker, who decides what it means', async () => {
    const failure = new Error('ThrottlingException: Rate exceeded');
    const ahead = readAhead(scripted([failure]), new VirtualClock());
    await expect(ahead.engaged()).rejects.toBe(failure);
  });

  it('drops a failed early read nobody takes (a plan that did not load) without an unhandled rejection', async () => {
    process.on('unhandledRejection', onUnhandled);
    readAhead(
      scripted([new Error('CredentialsProviderError: Could not load credentials')]),
      new VirtualClock(),
    );
    // Node reports an unhandled rejection after the microtask queue drains; give it a macrotask.
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(unhandled).toEqual([]);
  });
});

describe('startEarlyReads().sent()', () => {
  afterEach(() => vi.unstubAllEnvs());

  /** A loopback endpoint that takes requests and never answers them (the read stays on its way). */
  async function silentEndpoint(): Promise<{ url: string; requests: string[]; close(): Promise<void> }> {
    const requests: string[] = [];
    const held: ServerResponse[] = [];
    const server = createServer((req, res) => {
      requests.push(`${req.method} ${req.headers['content-type'] ?? ''}`);
      held.push(res);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    return {
      url: `http://127.0.0.1:${port}`,
      requests,
      close: async () => {
        for (const res of held) res.destroy();
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      },
    };
  }

  const CAP_NEVER_REACHED_MS = 60_000;

  // First: Node's HTTP channel is process-wide, and the other case leaves a read retrying on its way.
  it('settles when the read ends before any request, for want of credentials', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'chaos-gate-early-'));
    try {
      vi.stubEnv('AWS_ENDPOINT_URL', 'http://127.0.0.1:9');
      for (const name of ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN', 'AWS_PROFILE'])
        vi.stubEnv(name, undefined);
      vi.stubEnv('AWS_CONFIG_FILE', join(dir, 'config'));
      vi.stubEnv('AWS_SHARED_CREDENTIALS_FILE', join(dir, 'credentials'));
      vi.stubEnv('AWS_EC2_METADATA_DISABLED', 'true');
      const early = startEarlyReads({ region: 'eu-west-1', env: process.env });
      await early.sent(CAP_NEVER_REACHED_MS);
      await expect(early.killSwitch.engaged()).rejects.toThrow(/credentials/i);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 20_000);

  it('settles when the kill-switch request has been created, long before its answer or the cap', async () => {
    const endpoint = await silentEndpoint();
    try {
      // The SDK reads its endpoint and credentials from the process's environment, as in a run.
      vi.stubEnv('AWS_ENDPOINT_URL', endpoint.url);
      vi.stubEnv('AWS_ACCESS_KEY_ID', 'AKIDEXAMPLE');
      vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'secret');
      const early = startEarlyReads({ region: 'eu-west-1', env: process.env });
      await early.sent(CAP_NEVER_REACHED_MS);
      await vi.waitFor(() => expect(endpoint.requests).toHaveLength(1), { timeout: 5_000 });
    } finally {
      await endpoint.close();
    }
  }, 20_000);
});
