/**
 * No secret in any report (issue 14.1–2, docs/design/principles.md#security), end to end. The bundled action runs against the
 * sandbox with secrets planted where the issue found them leaking: a scrape URL's `access_token=${…}`, a
 * Prometheus `Authorization: Bearer …` header whose bare token an auth proxy in front of a real Prometheus
 * echoes in its error body, a `user:password@` Prometheus URL (echoed decoded), and the AWS keys (echoed
 * by the proxy from a SigV4-signed request). Every run ends `not-run` with those errors in its readings;
 * none of the secrets may appear in the journal, the HTML report, the job summary, the outputs, anything
 * the GitHub stand-in received, or a log line — the runner's `::add-mask::` commands aside, which must
 * name them. The CLI's bad-input paths exit 2 with no stack trace and no secret.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ActionsJob } from '../helpers/actions-runner.js';
import { buildActionBundle, type ActionBundle } from '../helpers/action-bundle.js';
import { prometheusSkipReason, startPrometheus, type PrometheusServer } from '../helpers/prometheus.js';
import { startSandboxProcess, type RunningSandbox } from '../helpers/sandbox.js';
import { cliArgs } from '../helpers/cli.js';

const FIXTURES = new URL('../../fixtures/events/', import.meta.url);
const read = (rel: string): string => readFileSync(new URL(rel, FIXTURES), 'utf8');

const SECRETS = {
  scrapeToken: 'scrapeTok-7f3a9c1e5b',
  headerToken: 'hdrTok-2b8d4f6a0c',
  urlPassword: 'urlPass-9e1c3a5b7d',
  awsKeyId: 'AKIAPLANTED7EXAMPLE',
  awsSecret: 'awsSecret/Planted+9x8y7z6w5v',
  awsSession: 'awsSession-Planted-0a1b2c3d',
} as const;

/** The lifecycle plan with a Prometheus SLI and a scrape SLI whose URL carries a declared secret. */
const PLAN = read('plans/lifecycle-partition.yaml')
  .replace('duration: PT20S', 'duration: PT1M')
  .replace('maxActionDuration: 30s', 'maxActionDuration: 60s')
  .replace(
    '  slis:\n',
    [
      '  slis:',
      '    - name: prom_up',
      '      prometheus: sum(up)',
      '      min: 0',
      '    - name: private_scrape',
      '      scrape:',
      '        url: ${CANARY_URL}/private/metrics?access_token=${SCRAPE_TOKEN}',
      '        gauge: up',
      '      min: 0',
      '',
    ].join('\n'),
  )
  .replace('env:\n', 'env:\n  - SCRAPE_TOKEN # a secret: masked wherever it appears\n');

const TOKEN = 'sandbox-token';
const OWNER = 'octo-org';
const CASE_TIMEOUT_MS = 120_000;

let sandbox: RunningSandbox;
let bundle: ActionBundle;
let prom: PrometheusServer | undefined;
let proxy: { origin: string; close(): Promise<void> };
const jobs: ActionsJob[] = [];

/**
 * An auth proxy in front of Prometheus that has rotated its credentials: it forwards nothing it is sent
 * here, and answers in Prometheus's error format quoting what it received — the bare bearer token, the
 * decoded basic credentials, the SigV4 Authorization header and session token.
 */
async function startEchoingProxy(upstream: string | undefined): Promise<typeof proxy> {
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const auth = String(req.headers.authorization ?? '');
    const echoes: string[] = [];
    if (auth.startsWith('Bearer ')) echoes.push(`token ${auth.slice(7)} is not valid`);
    if (auth.startsWith('Basic '))
      echoes.push(`user ${Buffer.from(auth.slice(6), 'base64').toString()} is not valid`);
    if (auth.startsWith('AWS4-HMAC-SHA256')) echoes.push(`signature ${auth} does not match`);
    const session = req.headers['x-amz-security-token'];
    if (session) echoes.push(`session ${String(session)} expired`);
    if (echoes.length === 0 && upstream) {
      void fetch(`${upstream}${req.url ?? '/'}`).then(async (up) =>
        res.writeHead(up.status, { 'content-type': 'application/json' }).end(await up.text()),
      );
      return;
    }
    res
      .writeHead(401, { 'content-type': 'application/json' })
      .end(JSON.stringify({ status: 'error', errorType: 'auth', error: echoes.join('; ') }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

beforeAll(async () => {
  [bundle, sandbox] = await Promise.all([buildActionBundle(), startSandboxProcess()]);
  if (!prometheusSkipReason)
    prom = await startPrometheus([{ name: 'canary', target: new URL(sandbox.urls.canary).host }]);
  proxy = await startEchoingProxy(prom?.url);
}, 240_000);

afterAll(async () => {
  for (const job of jobs) await job.dispose();
  await proxy?.close();
  await prom?.stop();
  await sandbox?.stop();
  bundle?.dispose();
});

async function ghState(): Promise<string> {
  const get = async (route: string): Promise<string> =>
    (await fetch(`${sandbox.urls.github}/_sandbox/${route}`)).text();
  return `${await get('state')}\n${await get('rejected')}`;
}

interface Written {
  code: number | null;
  /** Every log line but the runner's `::add-mask::` commands. */
  log: string;
  masks: string[];
  outputs: Record<string, string>;
  outputsFile: string;
  summary: string;
  journal: string;
  report: string;
  github: string;
}

/** Runs the main step with `inputs` and `env` and collects everything it wrote. */
async function runAction(
  name: string,
  opts: { inputs: Record<string, string>; env?: Record<string, string>; pullRequest?: boolean },
): Promise<Written> {
  const repo = `sec-${name}`;
  const repository = {
    ...(JSON.parse(read('push.json')) as { repository: object }).repository,
    name: repo,
    full_name: `${OWNER}/${repo}`,
  };
  let payload: Record<string, unknown> = { ref: 'refs/heads/main', repository };
  let event = 'push';
  if (opts.pullRequest) {
    const res = await fetch(`${sandbox.urls.github}/_sandbox/pulls`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ owner: OWNER, repo, headSha: 'c'.repeat(40) }),
    });
    const pull = (await res.json()) as { number: number };
    const p = JSON.parse(read('pull_request.json')) as {
      number: number;
      pull_request: Record<string, unknown> & {
        head: Record<string, unknown>;
        base: Record<string, unknown>;
      };
      repository: unknown;
    };
    p.number = pull.number;
    p.pull_request.number = pull.number;
    p.pull_request.head.repo = repository;
    p.pull_request.base.repo = repository;
    p.repository = repository;
    payload = p as unknown as Record<string, unknown>;
    event = 'pull_request';
  }
  const job = new ActionsJob({
    event,
    payload,
    sha: 'e8a0c2e4b6d8f0a2c4e6b8d0f2a4c6e8b0d2f4a6',
    repository: `${OWNER}/${repo}`,
    runId: String(8_200_000 + jobs.length),
    inputs: { plan: 'chaos/plan.yaml', 'github-token': TOKEN, findings: 'issue', ...opts.inputs },
    token: TOKEN,
    files: { 'chaos/plan.yaml': PLAN },
    env: {
      GITHUB_API_URL: sandbox.urls.github ?? '',
      AWS_ENDPOINT_URL: sandbox.urls.aws,
      AWS_ACCESS_KEY_ID: SECRETS.awsKeyId,
      AWS_SECRET_ACCESS_KEY: SECRETS.awsSecret,
      AWS_SESSION_TOKEN: SECRETS.awsSession,
      AWS_REGION: 'us-east-1',
      CANARY_URL: sandbox.urls.canary,
      SCRAPE_TOKEN: SECRETS.scrapeToken,
      ...opts.env,
    },
    bundles: bundle,
  });
  jobs.push(job);
  const main = await job.runMain();
  const lines = `${main.stdout}\n${main.stderr}`.split('\n');
  const outputs = job.outputs();
  const file = (p: string | undefined): string => (p && existsSync(p) ? readFileSync(p, 'utf8') : '');
  return {
    code: main.code,
    log: lines.filter((l) => !l.startsWith('::add-mask::')).join('\n'),
    masks: lines.filter((l) => l.startsWith('::add-mask::')).map((l) => l.slice('::add-mask::'.length)),
    outputs,
    outputsFile: readFileSync(job.files.output, 'utf8'),
    summary: job.summary(),
    journal: file(outputs.journal),
    report: file(outputs.report),
    github: await ghState(),
  };
}

/** Asserts that no secret (raw, percent-encoded or JSON-escaped) is in anything the run wrote. */
function expectNoSecret(w: Written): void {
  const places: Record<string, string> = {
    log: w.log,
    outputs: w.outputsFile,
    summary: w.summary,
    journal: w.journal,
    report: w.report,
    'GitHub request bodies': w.github,
  };
  for (const secret of Object.values(SECRETS)) {
    const forms = [secret, encodeURIComponent(secret), JSON.stringify(secret).slice(1, -1)];
    for (const [where, text] of Object.entries(places)) {
      for (const form of forms) expect(text.includes(form), `${form} in the ${where}`).toBe(false);
    }
  }
}

describe('secrets planted in every input appear in nothing the action writes', () => {
  it(
    'a scrape URL token and a Prometheus bearer token echoed back, on a pull request with a check run and comment',
    async () => {
      const w = await runAction('bearer', {
        pullRequest: true,
        inputs: {
          'prometheus-url': proxy.origin,
          'prometheus-headers': `Authorization: Bearer ${SECRETS.headerToken}`,
        },
      });
      expect(w.code, w.log).toBe(1);
      expect(w.outputs.verdict, w.log).toBe('not-run');
      // The errors are there, with the secrets masked: the redaction is not vacuous.
      expect(w.journal).toContain('token *** is not valid');
      expect(w.journal).toContain('/private/metrics?access_token=***');
      expect(w.report).toContain('token *** is not valid');
      expect(w.github).toContain('chaos-gate / lifecycle-partition');
      expect(w.github).toContain('<!-- chaos-gate:');
      expect(w.masks).toEqual(
        expect.arrayContaining([SECRETS.headerToken, SECRETS.scrapeToken, SECRETS.awsSecret]),
      );
      expectNoSecret(w);
    },
    CASE_TIMEOUT_MS,
  );

  it(
    'a Prometheus URL password, echoed back decoded',
    async () => {
      const w = await runAction('basic', {
        inputs: { 'prometheus-url': proxy.origin.replace('http://', `http://alice:${SECRETS.urlPassword}@`) },
      });
      expect(w.outputs.verdict, w.log).toBe('not-run');
      expect(w.journal).toContain('user *** is not valid');
      expect(w.masks).toContain(SECRETS.urlPassword);
      expectNoSecret(w);
    },
    CASE_TIMEOUT_MS,
  );

  it(
    'the AWS keys, echoed back from a SigV4-signed Prometheus request',
    async () => {
      const w = await runAction('sigv4', {
        inputs: { 'prometheus-url': `${proxy.origin}/workspaces/ws-1` },
        env: { CHAOS_GATE_PROMETHEUS_SIGV4_REGION: 'us-east-1' },
      });
      expect(w.outputs.verdict, w.log).toBe('not-run');
      expect(w.journal).toContain('signature AWS4-HMAC-SHA256 Credential=***/');
      expect(w.journal).toContain('session *** expired');
      expect(w.masks).toEqual(expect.arrayContaining([SECRETS.awsKeyId, SECRETS.awsSession]));
      expectNoSecret(w);
    },
    CASE_TIMEOUT_MS,
  );

  it(
    'a Prometheus URL with a password and a bad port is bad input: exit 2, masked, no stack trace',
    async () => {
      const w = await runAction('badport', {
        inputs: { 'prometheus-url': `http://alice:${SECRETS.urlPassword}@127.0.0.1:99999` },
      });
      expect(w.code).toBe(2);
      expect(w.log).toContain('Input "prometheus-url" is "http://***@127.0.0.1:99999"');
      expect(w.log).not.toMatch(/\n\s+at /);
      expectNoSecret(w);
    },
    CASE_TIMEOUT_MS,
  );
});

describe('the CLI on bad Prometheus input', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'chaos-gate-secrets-cli-'));
    writeFileSync(path.join(dir, 'plan.yaml'), PLAN);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const cli = (args: string[], env: Record<string, string> = {}) =>
    spawnSync(process.execPath, cliArgs(args), {
      cwd: dir,
      encoding: 'utf8',
      timeout: 60_000,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: dir,
        CANARY_URL: 'http://127.0.0.1:9',
        SCRAPE_TOKEN: 'x',
        ...env,
      },
    });

  // A broken set-up is the `failed` verdict (exit 2): its reason is on the verdict line, on stdout.
  it('refuses a password URL with a port out of range: exit 2, the password masked, no stack trace', () => {
    const r = cli([
      'run',
      'plan.yaml',
      '--prometheus-url',
      `http://alice:${SECRETS.urlPassword}@127.0.0.1:99999`,
    ]);
    expect(r.status, `${r.stdout}${r.stderr}`).toBe(2);
    expect(`${r.stdout}${r.stderr}`).toContain(
      "prometheus-url 'http://***@127.0.0.1:99999': it is not a valid URL",
    );
    expect(`${r.stdout}${r.stderr}`).not.toContain(SECRETS.urlPassword);
    expect(`${r.stdout}${r.stderr}`).not.toMatch(/\n\s+at /);
  });

  it('refuses a bad percent-escape in the password: exit 2, named, no URIError stack', () => {
    const r = cli(['run', 'plan.yaml', '--prometheus-url', 'http://alice:pa%zzss@127.0.0.1:9090']);
    expect(r.status, `${r.stdout}${r.stderr}`).toBe(2);
    expect(`${r.stdout}${r.stderr}`).toContain('the password in it has a bad percent-escape');
    expect(`${r.stdout}${r.stderr}`).not.toContain('pa%zzss');
    expect(`${r.stdout}${r.stderr}`).not.toContain('URIError');
    expect(`${r.stdout}${r.stderr}`).not.toMatch(/\n\s+at /);
  });

  it('refuses a run whose declared secret variable is not set: exit 2, naming it and the field', () => {
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? '',
      HOME: dir,
      CANARY_URL: 'http://127.0.0.1:9',
    };
    const r = spawnSync(process.execPath, cliArgs(['run', 'plan.yaml']), {
      cwd: dir,
      encoding: 'utf8',
      timeout: 60_000,
      env,
    });
    expect(r.status, `${r.stdout}${r.stderr}`).toBe(2);
    expect(`${r.stdout}${r.stderr}`).toContain(
      "hypothesis.slis[1].scrape.url: the plan's env: declares SCRAPE_TOKEN, but it is not set in the environment",
    );
    expect(`${r.stdout}${r.stderr}`).not.toMatch(/\n\s+at /);
  });
});
