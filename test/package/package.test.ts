/**
 * The packed product, as an npm user gets it: `npm pack` ships the CLI bundle, the plan schema and the
 * demo's plans and nothing else, and the tarball installed with `npm install --omit=dev` into an empty
 * directory runs `--version` and `validate` on its own. `demo` and `sandbox` need GitHub's REST
 * description, a development dependency: without it they say how to add it; with it beside the package
 * the sandbox starts. The tarball is packed from the suite's bundle of the current sources (the same
 * build as dist/), with the repository's own `files` list.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundle } from '../../scripts/bundle.mjs';
import { installCommand, OPENAPI_MAJOR, OPENAPI_PACKAGE } from '../../src/sandbox/github/requirement.js';
import { BUNDLE_ENV } from '../helpers/cli.js';

const ROOT = join(import.meta.dirname, '../..');
const PKG = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  version: string;
  files: string[];
  dependencies?: Record<string, string>;
  devDependencies: Record<string, string>;
};

interface PackEntry {
  filename: string;
  files: { path: string }[];
}

function npm(args: string[], cwd: string): string {
  return execFileSync('npm', [...args, '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, npm_config_update_notifier: 'false' },
  });
}

/** What `npm pack` would put in the tarball of `dir`, by path. */
function packList(dir: string): string[] {
  const [entry] = JSON.parse(npm(['pack', '--dry-run', '--json'], dir)) as PackEntry[];
  return (entry?.files ?? []).map((f) => f.path).sort();
}

const work = mkdtempSync(join(tmpdir(), 'chaos-gate-pack-'));
/** Where the tarball is installed: under the system temp directory, so nothing resolves from the repository. */
const home = join(work, 'project');
let bin = '';

function cli(args: string[], env: NodeJS.ProcessEnv = {}) {
  return spawnSync(process.execPath, [bin, ...args], {
    cwd: home,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1', CI: '', ...env },
    timeout: 30_000,
  });
}

beforeAll(async () => {
  // The tarball's contents: the repository's files outside dist/, and the current sources' bundle as dist/.
  const stage = join(work, 'stage');
  for (const path of packList(ROOT)) {
    if (path.startsWith('dist/')) continue;
    mkdirSync(dirname(join(stage, path)), { recursive: true });
    cpSync(join(ROOT, path), join(stage, path));
  }
  let built = process.env[BUNDLE_ENV];
  if (!built) {
    built = join(work, 'bundle');
    await bundle({ outdir: built, minify: false });
  }
  mkdirSync(join(stage, 'dist/chunks'), { recursive: true });
  cpSync(join(built, 'cli.js'), join(stage, 'dist/cli.js'));
  for (const chunk of readdirSync(join(built, 'chunks')).filter((n) => n.endsWith('.js')))
    cpSync(join(built, 'chunks', chunk), join(stage, 'dist/chunks', chunk));
  const [packed] = JSON.parse(npm(['pack', '--json', '--pack-destination', work], stage)) as PackEntry[];
  mkdirSync(home);
  writeFileSync(join(home, 'package.json'), '{ "name": "a-project", "private": true }\n');
  npm(['install', '--omit=dev', '--prefer-offline', join(work, packed?.filename ?? 'missing.tgz')], home);
  bin = join(home, 'node_modules/chaos-gate/dist/cli.js');
}, 120_000);

afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('npm pack', () => {
  it('ships the CLI bundle, the plan schema, the demo plans, the README and the licence, and nothing else', () => {
    const files = packList(ROOT);
    const allowed = [
      /^package\.json$/,
      /^README\.md$/,
      /^LICENSE$/,
      /^dist\/cli\.js$/,
      /^dist\/chunks\/[\w-]+\.js$/,
      /^schema\/plan\.schema\.json$/,
      /^fixtures\/plans\/(redis-partition|demo-holds|demo-aborts)\.yaml$/,
    ];
    expect(files.filter((f) => !allowed.some((re) => re.test(f)))).toEqual([]);
    expect(files).toContain('dist/cli.js');
    expect(files).toContain('schema/plan.schema.json');
    expect(files.filter((f) => f.startsWith('dist/chunks/')).length).toBeGreaterThan(0);
  });

  it('declares no runtime dependency: the bundle carries every package it runs', () => {
    expect(PKG.dependencies ?? {}).toEqual({});
    expect(readdirSync(join(home, 'node_modules')).filter((n) => !n.startsWith('.'))).toEqual(['chaos-gate']);
  });

  it(`names the major version of ${OPENAPI_PACKAGE} the repository is tested with`, () => {
    expect(PKG.devDependencies[OPENAPI_PACKAGE]).toMatch(new RegExp(`^\\^?${OPENAPI_MAJOR}\\.`));
  });
});

describe('the tarball installed with --omit=dev', () => {
  it('prints its version', () => {
    const r = cli(['--version']);
    expect(r.status).toBe(0);
    expect(r.stdout.trim()).toBe(PKG.version);
  });

  it('validates a plan, and refuses a broken one with file, line and field', () => {
    cpSync(
      join(home, 'node_modules/chaos-gate/fixtures/plans/redis-partition.yaml'),
      join(home, 'plan.yaml'),
    );
    const ok = cli(['validate', 'plan.yaml']);
    expect(ok.stderr).toBe('');
    expect(ok.status).toBe(0);
    writeFileSync(
      join(home, 'broken.yaml'),
      readFileSync(join(home, 'plan.yaml'), 'utf8').replace(/interval: \S+/, 'interval: 1 second'),
    );
    const bad = cli(['validate', 'broken.yaml']);
    expect(bad.status).toBe(2);
    expect(bad.stderr + bad.stdout).toMatch(/broken\.yaml:\d+:\d+: hypothesis\.interval: "1 second"/);
  });

  it.each(['demo', 'sandbox'])(
    '%s says exactly how to add the GitHub description, and starts nothing',
    (command) => {
      const r = cli([command]);
      expect(r.status).toBe(1);
      expect(r.stderr).toContain(`chaos-gate ${command}: the sandbox's GitHub stand-in needs`);
      expect(r.stderr).toContain(
        `npm install --prefix ${JSON.stringify(home)} --no-save ${OPENAPI_PACKAGE}@${OPENAPI_MAJOR}`,
      );
      expect(r.stderr).not.toMatch(/Cannot find module|\n\s+at /);
    },
  );

  it('starts the sandbox once the GitHub description is beside it', async () => {
    // The package the message names, linked from the repository's install instead of fetched again.
    mkdirSync(join(home, 'node_modules/@octokit'), { recursive: true });
    symlinkSync(
      join(ROOT, 'node_modules', OPENAPI_PACKAGE),
      join(home, 'node_modules', OPENAPI_PACKAGE),
      'dir',
    );
    const portFile = join(home, '.sandbox.json');
    const child = spawn(process.execPath, [bin, 'sandbox', '--port-file', portFile, '--no-load'], {
      cwd: home,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
    try {
      for (let i = 0; i < 600 && !existsSync(portFile) && child.exitCode === null; i++)
        await new Promise((r) => setTimeout(r, 50));
      expect(stderr).toBe('');
      const urls = JSON.parse(readFileSync(portFile, 'utf8')) as { github: string };
      const res = await fetch(`${urls.github}/repos/acme/shop/check-runs`, {
        method: 'POST',
        headers: { authorization: 'token sandbox-token', 'content-type': 'application/json' },
        body: JSON.stringify({ head_sha: 'not-a-sha-field-error' }),
      });
      // The stand-in validated the body against GitHub's description: `name` is required.
      expect(res.status).toBe(422);
    } finally {
      if (child.pid !== undefined && child.exitCode === null) process.kill(child.pid, 'SIGTERM');
      await exited;
    }
  }, 60_000);
});

describe('where the missing GitHub description goes', () => {
  it.each([
    ['a project', 'file:///home/me/shop/node_modules/chaos-gate/dist/chunks/a.js', '"/home/me/shop"'],
    ['a global install', 'file:///usr/lib/node_modules/chaos-gate/dist/chunks/a.js', '"/usr/lib"'],
    ['a nested install', 'file:///p/node_modules/x/node_modules/chaos-gate/dist/a.js', '"/p/node_modules/x"'],
  ])('in %s: beside chaos-gate', (_, from, prefix) => {
    expect(installCommand(from)).toBe(
      `npm install --prefix ${prefix} --no-save ${OPENAPI_PACKAGE}@${OPENAPI_MAJOR}`,
    );
  });

  it('in a clone: the development dependencies', () => {
    expect(installCommand('file:///work/chaos-gate/src/sandbox/github/requirement.ts')).toMatch(/^npm ci\b/);
  });
});
