/**
 * A journal that cannot be written (a full disk, a revoked permission) mid-run: the writer never throws
 * into the engine, the engine stops the fault first and the run ends `failed`, naming the journal and the
 * error. The failing file system is injected (CI runs as root, so a read-only directory would not fail).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { afterAll, describe, expect, it } from 'vitest';
import { VirtualClock } from '../../src/clock/clock.js';
import { runGate } from '../../src/engine/run.js';
import { FileJournalWriter, journalFileSystem, type JournalFileSystem } from '../../src/journal/writer.js';
import { readJournal } from '../../src/journal/read.js';
import { SimWorld } from '../../src/sim/world.js';
import { loadScenario } from '../../src/sim/scenario.js';
import { loadTestPlan } from '../sim/helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'chaos-gate-journal-fail-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function enospc(): Error {
  return Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
}

/** Node's file system whose appends fail once `failAfter(line)` says so; `replace` fails while `full`. */
function fillingDisk(failWhen: (line: string) => boolean, opts: { replaceFails?: boolean } = {}) {
  const real = journalFileSystem();
  const state = { full: false, appends: 0, replaces: 0 };
  const fs: JournalFileSystem = {
    open: (p) => real.open(p),
    append: (fd, line) => {
      if (state.full || failWhen(line)) {
        state.full = true;
        throw enospc();
      }
      state.appends++;
      real.append(fd, line);
    },
    close: (fd) => real.close(fd),
    replace: (p, data) => {
      state.replaces++;
      if (opts.replaceFails) throw enospc();
      real.replace(p, data);
    },
  };
  return { fs, state };
}

async function run(fs: JournalFileSystem, path: string) {
  const clock = new VirtualClock();
  const world = new SimWorld(loadScenario('fixtures/scenarios/held.yaml'), clock);
  const writer = new FileJournalWriter(path, { fs });
  const result = await runGate({
    plan: loadTestPlan(),
    planDigest: 'sha256:x',
    runId: 'r',
    attempt: 1,
    clock,
    sources: world.sources,
    injector: world.injector,
    journal: writer,
    ctx: { runId: 'r', attempt: 1 },
  });
  return { result, world, writer };
}

describe('a journal that cannot be written', () => {
  it('mid-fault: the fault is stopped and the run ends failed, naming the journal and the error', async () => {
    const path = join(dir, 'mid-fault.json');
    let faultTicks = 0;
    const disk = fillingDisk((line) => line.includes('"phase":"fault"') && ++faultTicks >= 3);
    const { result, world, writer } = await run(disk.fs, path);
    expect(result.verdict).toBe('failed');
    expect(result.reason).toContain(`cannot write the journal ${path}`);
    expect(result.reason).toContain('no space left on device');
    // The engine stopped the fault itself, right away: one stop request, on the tick after the failure.
    expect(world.injector.stopCount).toBe(1);
    const abort = result.journal.events.find((e) => e.type === 'abort');
    expect(abort?.data?.cause).toBe('journal');
    expect(result.journal.events.some((e) => e.type === 'stop-verified')).toBe(true);
    expect(result.journal.measurements.filter((m) => m.phase === 'fault').length).toBeLessThanOrEqual(4);
    expect(writer.failure()).toContain('ENOSPC');
    // The whole journal was still tried once at the end (this disk stayed full: the prefix is what is left).
    expect(disk.state.replaces).toBe(1);
  });

  it('with space back at the end: the whole journal (verdict failed) is on disk', async () => {
    const path = join(dir, 'healed.json');
    let faultTicks = 0;
    const real = journalFileSystem();
    let full = false;
    const fs: JournalFileSystem = {
      ...real,
      append: (fd, line) => {
        if (full || (line.includes('"phase":"fault"') && ++faultTicks >= 2)) {
          full = true;
          throw enospc();
        }
        real.append(fd, line);
      },
    };
    const { result } = await run(fs, path);
    const onDisk = readJournal(path);
    expect(onDisk.complete).toBe(true);
    expect(onDisk.verdict).toBe('failed');
    expect(onDisk.verdict).toBe(result.verdict);
  });

  it('before the start: nothing is started', async () => {
    const path = join(dir, 'before.json');
    const disk = fillingDisk((line) => line.includes('"phase":"steady"'));
    const { result, world } = await run(disk.fs, path);
    expect(result.verdict).toBe('failed');
    expect(world.injector.calls.some((c) => c.method === 'start')).toBe(false);
    expect(world.injector.stopCount).toBe(0);
  });

  it('only at the final write: a held run is recorded failed, saying the journal could not be written', async () => {
    const path = join(dir, 'final.json');
    const disk = fillingDisk(() => false, { replaceFails: true });
    const { result } = await run(disk.fs, path);
    expect(result.verdict).toBe('failed');
    expect(result.reason).toContain(`cannot write the journal ${path}`);
    // The NDJSON prefix on disk holds every record up to the first final one.
    expect(readFileSync(path, 'utf8').split('\n')[0]).toContain('"record":"header"');
  });
});
