/**
 * Files stay in the workspace (issue 14.4, docs/design/principles.md#security): the one loader every file goes through. A path a
 * plan names that resolves outside the workspace is refused without the file being opened — proved with
 * a FIFO whose writer stays blocked, because opening the FIFO for reading would release it — and only
 * regular files are read, with the size cap enforced while reading rather than trusted from `stat`.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FileReadError, planFileReader, readFileBounded, readFileBoundedSync } from '../../src/files/read.js';
import { loadPlan } from '../../src/plan/load.js';
import { loadPolicy, readCatalog } from '../../src/compose/inputs.js';
import { loadScenario } from '../../src/sim/scenario.js';
import { catalogGate } from '../../src/preflight/catalog.js';
import type { Plan } from '../../src/plan/schema.js';

/** The one field the catalog gate reads. */
const withCatalog = (path: string): Plan =>
  ({ blastRadius: { catalog: { path, components: ['component:default/redis'] } } }) as unknown as Plan;

let root: string;
let workspace: string;
let outside: string;
const writers: ChildProcess[] = [];

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'chaos-gate-files-'));
  workspace = join(root, 'workspace');
  outside = join(root, 'outside');
  mkdirSync(join(workspace, 'chaos'), { recursive: true });
  mkdirSync(outside);
  writeFileSync(
    join(workspace, 'chaos', 'catalog-info.yaml'),
    'kind: Component\nmetadata: { name: redis }\n',
  );
  writeFileSync(join(outside, 'secret.yaml'), 'kind: Component\nmetadata: { name: secret }\n');
});

afterEach(() => {
  // A writer still blocked on a FIFO is released by opening it for reading, then reaped.
  for (const w of writers.splice(0)) {
    if (w.exitCode === null && w.signalCode === null && w.pid !== undefined) process.kill(w.pid, 'SIGKILL');
  }
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

async function problemOf(p: Promise<unknown>): Promise<FileReadError> {
  const error = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(FileReadError);
  return error as FileReadError;
}

/** A FIFO with a writer blocked until someone opens it for reading. */
function fifoWithBlockedWriter(path: string): ChildProcess {
  expect(spawnSync('mkfifo', [path]).status).toBe(0);
  const writer = spawn('sh', ['-c', `echo opened > '${path}'`], { stdio: 'ignore' });
  writers.push(writer);
  return writer;
}

function stillBlocked(writer: ChildProcess, ms = 300): Promise<boolean> {
  return new Promise((resolve) => setTimeout(() => resolve(writer.exitCode === null), ms));
}

describe('readFileBounded with a workspace (paths a plan names)', () => {
  it('reads a regular file inside the workspace, relative to the plan file', async () => {
    const r = await planFileReader(join(workspace, 'chaos'), workspace)('catalog-info.yaml', 'catalog', 1024);
    expect(r.text).toContain('redis');
  });

  it('refuses ../ out of the workspace, naming the file and the workspace', async () => {
    const e = await problemOf(
      planFileReader(join(workspace, 'chaos'), workspace)(
        '../../outside/secret.yaml',
        'service catalog',
        1024,
      ),
    );
    expect(e.problem).toBe('outside-workspace');
    expect(e.message).toMatch(
      /^cannot read the service catalog \.\.\/\.\.\/outside\/secret\.yaml: it is outside the workspace .*workspace; a plan may name only files of its own repository; expected a regular file of at most 1024 bytes inside the workspace$/,
    );
  });

  it('refuses a symlink inside the workspace that points out of it', async () => {
    symlinkSync(join(outside, 'secret.yaml'), join(workspace, 'chaos', 'escape.yaml'));
    const e = await problemOf(
      planFileReader(join(workspace, 'chaos'), workspace)('escape.yaml', 'catalog', 1024),
    );
    expect(e.problem).toBe('outside-workspace');
    expect(e.message).toContain(`(escape.yaml resolves to ${join(outside, 'secret.yaml')})`);
  });

  it('refuses /dev/zero, directly or through a symlink, without reading it', async () => {
    symlinkSync('/dev/zero', join(workspace, 'chaos', 'zero.yaml'));
    const start = Date.now();
    for (const p of ['/dev/zero', 'zero.yaml']) {
      const e = await problemOf(planFileReader(join(workspace, 'chaos'), workspace)(p, 'catalog', 1024));
      expect(e.problem).toBe('outside-workspace');
    }
    expect(Date.now() - start).toBeLessThan(1_000);
  });

  it('refuses a FIFO outside the workspace without opening it: its writer stays blocked', async () => {
    const fifo = join(outside, 'pipe.yaml');
    const writer = fifoWithBlockedWriter(fifo);
    const e = await problemOf(planFileReader(join(workspace, 'chaos'), workspace)(fifo, 'catalog', 1024));
    expect(e.problem).toBe('outside-workspace');
    expect(await stillBlocked(writer)).toBe(true);
  });

  it('refuses a FIFO inside the workspace as not a regular file, at once instead of hanging', async () => {
    expect(spawnSync('mkfifo', [join(workspace, 'chaos', 'fifo.yaml')]).status).toBe(0);
    const e = await problemOf(
      planFileReader(join(workspace, 'chaos'), workspace)('fifo.yaml', 'catalog', 1024),
    );
    expect(e).toMatchObject({ problem: 'not-a-file', reason: 'it is a FIFO (named pipe)' });
  });

  it('refuses a directory and a missing file, saying which', async () => {
    const reader = planFileReader(join(workspace, 'chaos'), workspace);
    expect(await problemOf(reader('.', 'catalog', 1024))).toMatchObject({
      problem: 'not-a-file',
      reason: 'it is a directory',
    });
    expect(await problemOf(reader('nope.yaml', 'catalog', 1024))).toMatchObject({
      problem: 'missing',
      reason: 'it does not exist',
    });
  });
});

describe('readFileBounded without a workspace (the plan, policy and scenario the user names)', () => {
  it('enforces the cap while reading: /proc files report size 0 in stat and are still cut off', async () => {
    const e = await problemOf(readFileBounded('/proc/self/status', { what: 'plan file', maxBytes: 16 }));
    expect(e).toMatchObject({ problem: 'too-large', reason: 'it is larger than 16 bytes' });
    expect(() => readFileBoundedSync('/proc/self/status', { what: 'scenario', maxBytes: 16 })).toThrow(
      'it is larger than 16 bytes',
    );
  });

  it('refuses a character device and a FIFO as the plan, policy or scenario', async () => {
    const fifo = join(outside, 'plan-pipe.yaml');
    const writer = fifoWithBlockedWriter(fifo);
    await expect(loadPlan('/dev/zero', 'chaos/plan.yaml')).rejects.toThrow(
      'chaos/plan.yaml:1:1: cannot read the plan file: it is a character device; expected a regular file of at most 262144 bytes',
    );
    await expect(loadPlan(fifo, 'chaos/plan.yaml')).rejects.toThrow('it is a FIFO (named pipe)');
    await expect(loadPolicy('/dev/zero', 'chaos/policy.yaml')).rejects.toThrow(
      'cannot read the policy file: it is a character device',
    );
    expect(() => loadScenario('/dev/zero')).toThrow('cannot read the scenario: it is a character device');
    expect(() => loadScenario(fifo)).toThrow('it is a FIFO (named pipe)');
    // Opened non-blocking and refused on its descriptor: the loaders returned without waiting for it.
    writer.kill('SIGKILL');
  });
});

describe('the catalog the gate sees is read through the workspace reader', () => {
  it('refuses a plan whose catalog escapes the workspace, naming the field', async () => {
    const plan = withCatalog('../../outside/secret.yaml');
    const gate = catalogGate({
      catalog: await readCatalog(plan, planFileReader(join(workspace, 'chaos'), workspace)),
    });
    const outcome = await gate.check({ plan, now: 0, record: () => undefined });
    expect(outcome).toMatchObject({ pass: false, verdict: 'refused', field: 'blastRadius.catalog.path' });
    expect(!outcome.pass && outcome.reason).toMatch(
      /^\.\.\/\.\.\/outside\/secret\.yaml:1:1: cannot read the catalog: it is outside the workspace/,
    );
  });

  it('refuses a plan naming a catalog when no workspace reader is wired (fails closed)', async () => {
    const plan = withCatalog('catalog-info.yaml');
    const outcome = await catalogGate({}).check({ plan, now: 0, record: () => undefined });
    expect(outcome).toMatchObject({ pass: false, verdict: 'refused' });
  });
});
