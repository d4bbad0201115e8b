import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { afterAll, describe, expect, it } from 'vitest';
import { VirtualClock } from '../../src/clock/clock.js';
import { runGate } from '../../src/engine/run.js';
import { FileJournalWriter, MemoryJournalWriter } from '../../src/journal/writer.js';
import { JournalError, parseJournal, readJournal } from '../../src/journal/read.js';
import { SimWorld } from '../../src/sim/world.js';
import { loadScenario } from '../../src/sim/scenario.js';
import { loadTestPlan, simulate } from '../sim/helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'chaos-gate-journal-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('journal', () => {
  it('writes NDJSON while the run goes and the final JSON at the end, both readable', async () => {
    const path = join(dir, 'run.journal.json');
    const clock = new VirtualClock();
    const world = new SimWorld(loadScenario('fixtures/scenarios/aborted-rule.yaml'), clock);
    const writer = new FileJournalWriter(path);
    const midRun: string[] = [];
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
      onTick: () => void midRun.push(readFileSync(path, 'utf8')),
    });
    const during = midRun[8]!;
    expect(during.split('\n')[0]).toContain('"record":"header"');
    const prefix = parseJournal(during, path);
    expect(prefix.complete).toBe(false);
    expect(prefix.verdict).toBeNull();
    expect(prefix.measurements).toHaveLength(9); // onTick runs after the measurement is on disk

    const final = readJournal(path);
    expect(final.complete).toBe(true);
    expect(final.verdict).toBe('aborted');
    expect(final).toEqual(JSON.parse(JSON.stringify(result.journal)));
    expect(readFileSync(path, 'utf8').startsWith('{\n')).toBe(true);
  });

  it('reads the prefix a crashed run left, dropping the half-written last line', async () => {
    const { journal } = await simulate('held');
    const lines = journal.lines;
    const cut = Math.floor(lines.length / 2);
    const crashed = lines.slice(0, cut).join('') + lines[cut]!.slice(0, 17);
    const path = join(dir, 'crashed.journal');
    writeFileSync(path, crashed);
    const j = readJournal(path);
    expect(j.complete).toBe(false);
    expect(j.verdict).toBeNull();
    const records = lines.slice(0, cut).map((l) => JSON.parse(l) as { record: string });
    expect(j.measurements).toHaveLength(records.filter((r) => r.record === 'measurement').length);
    expect(j.events).toHaveLength(records.filter((r) => r.record === 'event').length);
    expect(j.planId).toBe('checkout-redis-partition');
  });

  it('rejects a corrupt line in the middle with the file and line number', () => {
    const w = new MemoryJournalWriter();
    w.begin({
      kind: 'chaos-gate-journal',
      version: 1,
      runId: 'r',
      planId: 'p',
      planDigest: 'd',
      title: 't',
      service: 's',
      environment: 'e',
      slis: [],
      abortRules: [],
      intervalMs: 1000,
      startedAt: 0,
    });
    w.event({ at: 1, type: 'run-started', message: 'x' });
    const text = w.lines[0] + 'garbage\n' + w.lines[1];
    expect(() => parseJournal(text, 'j.ndjson')).toThrow(
      new JournalError('j.ndjson:2: not a JSON record (expected one journal record per line)'),
    );
    expect(() => parseJournal('{"record":"event","at":1}\n', 'j.ndjson')).toThrow(
      /j.ndjson:1: the first record is 'event'/,
    );
  });
});
