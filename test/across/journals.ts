/**
 * Journals for the views across runs, made quickly from the GitHub fixtures (one per verdict): each is
 * read through the journal reader (which gives it its judgement) and re-labelled as another plan, run
 * and time, then written as a file the way a run leaves it.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readJournal } from '../../src/journal/read.js';
import type { Journal, Verdict } from '../../src/journal/types.js';

const FIXTURES = 'fixtures/github/journals';

const read = new Map<Verdict, Journal>();

/** A fresh copy of the fixture journal of `verdict` (each read once). */
export function fixtureJournal(verdict: Verdict): Journal {
  let j = read.get(verdict);
  if (!j) read.set(verdict, (j = readJournal(join(FIXTURES, `${verdict}.json`))));
  return structuredClone(j);
}

export interface Relabel {
  planId: string;
  verdict: Verdict;
  runId: string;
  startedAt: number;
  environment?: string;
  service?: string;
  planDigest?: string;
}

/** A fixture journal of `verdict` as the run `r`: every time moved so the run starts at `startedAt`. */
export function relabelled(r: Relabel): Journal {
  const j = fixtureJournal(r.verdict);
  const shift = r.startedAt - j.startedAt;
  j.planId = r.planId;
  j.runId = r.runId;
  j.title = `${r.planId} title`;
  j.startedAt = r.startedAt;
  if (r.environment) j.environment = r.environment;
  if (r.service) j.service = r.service;
  if (r.planDigest) j.planDigest = r.planDigest;
  for (const m of j.measurements) m.at += shift;
  for (const e of j.events) e.at += shift;
  for (const k of Object.keys(j.timings) as (keyof Journal['timings'])[]) {
    const t = j.timings[k];
    if (t !== undefined) j.timings[k] = t + shift;
  }
  // The fixtures predate per-action states: say, as FIS would, that the fault ran, and let the reader
  // judge the journal again (its verdict and reason stay the fixture's).
  const inject = j.events.find((e) => e.type === 'inject');
  if (inject)
    j.events.push({ at: inject.at, type: 'experiment-state', message: 'running', data: { injected: true } });
  delete j.judgement;
  return j;
}

/** Writes `journal` under `dir` as `<name>/chaos-gate/journal.json`, the layout an artifact download makes. */
export function writeJournal(dir: string, name: string, journal: Journal): string {
  const at = join(dir, name, 'chaos-gate');
  mkdirSync(at, { recursive: true });
  const file = join(at, 'journal.json');
  writeFileSync(file, JSON.stringify(journal, null, 2) + '\n');
  return file;
}
