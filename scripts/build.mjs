// Bundles the entry points into dist/ (ESM) with scripts/bundle.mjs. CI rebuilds and diffs dist/.
//
// `node scripts/build.mjs --outdir <dir>` builds somewhere else (e.g. a temporary directory for a
// measurement) without touching the committed dist/; `--metafile <file>` writes esbuild's analysis of
// what each output file holds, to see where bytes come from.
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { bundle } from './bundle.mjs';

const { values } = parseArgs({
  options: { outdir: { type: 'string', default: 'dist' }, metafile: { type: 'string' } },
});
const result = await bundle({ outdir: values.outdir, metafile: values.metafile !== undefined });
if (values.metafile !== undefined) writeFileSync(values.metafile, JSON.stringify(result.metafile));
