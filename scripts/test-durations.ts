/**
 * `npm run test:durations`: records how long each test file took in the last `npm test`, from vitest's
 * own results cache, into test/setup/durations.json. The sequencer (test/setup/sequencer.ts) starts the
 * longest files first with it on a clone that has no results cache yet. Run it after a full, passing
 * `npm test` on an idle machine, when files were added, split or made much slower or faster.
 */
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..');
const CACHE = join(ROOT, 'node_modules/.vite/vitest');
const OUT = join(ROOT, 'test/setup/durations.json');

interface Results {
  results: [string, { duration?: number; failed?: boolean }][];
}

const caches = existsSync(CACHE) ? readdirSync(CACHE).map((d) => join(CACHE, d, 'results.json')) : [];
const found = caches.filter((f) => existsSync(f));
if (found.length === 0) {
  console.error(`no vitest results under ${CACHE}: run \`npm test\` first`);
  process.exit(1);
}
const durations: Record<string, number> = {};
for (const file of found) {
  for (const [key, r] of (JSON.parse(readFileSync(file, 'utf8')) as Results).results) {
    // Keys are `<project>:<path>`; the suite has one unnamed project (entries of projects it once had are
    // stale). Files since removed are dropped.
    if (!key.startsWith(':')) continue;
    const rel = key.slice(1);
    if (r.failed || r.duration === undefined || !existsSync(join(ROOT, rel))) continue;
    durations[rel] = Math.round(r.duration / 100) * 100;
  }
}
const sorted = Object.fromEntries(Object.entries(durations).sort(([a], [b]) => a.localeCompare(b)));
writeFileSync(OUT, `${JSON.stringify(sorted, null, 2)}\n`);
console.log(`${Object.keys(sorted).length} files recorded in ${OUT}`);
