/**
 * The action's inputs, read once into a typed object. A bad input fails with the input's name, what
 * was given and the form expected; secrets are masked before anything else can print them.
 */
import { DURATION_EXPECTED, parseDuration } from '../plan/duration.js';
import { prometheusUrlProblem } from '../metrics/prometheus/url.js';
import { displayUrl, secrets } from '../security/redact.js';
import { DEFAULT_QUEUE_TIMEOUT } from '../preflight/concurrency.js';
import { isBadInput } from '../errors/bad-input.js';
import { parseNotifyTargets, type NotifyTarget } from '../notify/config.js';

export const COMMANDS = ['run', 'plan', 'validate'] as const;
export type Command = (typeof COMMANDS)[number];

/** Everything the action reads from `with:`. */
export interface ActionInputs {
  plan: string;
  command: Command;
  policy: string | undefined;
  githubToken: string | undefined;
  prometheusUrl: string | undefined;
  /** Alertmanager for `abort.alerts` (else `CHAOS_GATE_ALERTMANAGER_URL`). */
  alertmanagerUrl: string | undefined;
  /** Extra Prometheus request headers (values are masked). */
  prometheusHeaders: Record<string, string>;
  awsRegion: string | undefined;
  prComment: boolean;
  checkRun: boolean;
  findings: 'none' | 'issue';
  inconclusiveConclusion: 'failure' | 'neutral';
  /** Not-run never promotes; it may be shown as failure (default), neutral or skipped. */
  notRunConclusion: 'failure' | 'neutral' | 'skipped';
  journalPath: string;
  reportPath: string;
  queueTimeoutMs: number;
  /** `notify`: the notification sinks, one `KIND=URL` per line (their URLs registered as secrets). */
  notify: NotifyTarget[];
  /** `deployment-id`: an existing GitHub deployment the gate posts its statuses to. */
  deploymentId: number | undefined;
  /** `environment`: the GitHub environment the gate's deployment statuses are for. */
  environment: string | undefined;
  /**
   * `attest-subject-name` + `attest-subject-digest`: the artifact the verdict attestation is about;
   * both or neither.
   */
  attestSubject: { name: string; digest: { sha256: string } } | undefined;
  /** `attestation-path`: where the unsigned in-toto Statement is written, relative to the workspace. */
  attestationPath: string;
  /** `history`: a directory of past journals a policy's `requires` is checked against. */
  history: string | undefined;
}

/** A bad input: names the input, the value (unless secret) and the expected form. */
export class InputError extends Error {
  override name = 'InputError';
  constructor(
    readonly input: string,
    message: string,
  ) {
    super(message);
  }
}

/** Reads one input (core.getInput semantics: trimmed, '' when unset). */
export type GetInput = (name: string) => string;

/** Defaults, also written into action.yml (a test keeps the two in step). */
export const INPUT_DEFAULTS = {
  command: 'run',
  'pr-comment': 'true',
  'check-run': 'true',
  findings: 'none',
  'inconclusive-conclusion': 'failure',
  'not-run-conclusion': 'failure',
  'journal-path': 'chaos-gate/journal.json',
  'report-path': 'chaos-gate/report.html',
  'queue-timeout': DEFAULT_QUEUE_TIMEOUT,
  'attestation-path': 'chaos-gate/attestation.intoto.json',
} as const;

/** A GitHub environment name: at most 255 characters, no line breaks (GitHub's own limit). */
const ENVIRONMENT_MAX = 255;

/** `sha256:<64 lowercase hex>`, the form `docker inspect`, `sha256sum` and registries give a digest in. */
const SHA256_DIGEST = /^sha256:([0-9a-f]{64})$/;

/** The YAML 1.2 core-schema booleans, as `core.getBooleanInput` accepts them. */
const TRUE = new Set(['true', 'True', 'TRUE']);
const FALSE = new Set(['false', 'False', 'FALSE']);

/** A header name as HTTP defines a token (RFC 9110 §5.6.2). */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** AWS Region names such as `eu-west-1`, `us-gov-west-1`, `ap-southeast-5`. */
const REGION = /^[a-z]{2}(-[a-z]+)+-\d+$/;

/** Parses every input; `setSecret` masks secret values before any error can mention them. */
export function parseInputs(
  get: GetInput,
  setSecret: (secret: string) => void = () => undefined,
): ActionInputs {
  const read = (name: keyof typeof INPUT_DEFAULTS | string): string => {
    const v = get(name).trim();
    return v === '' && name in INPUT_DEFAULTS ? INPUT_DEFAULTS[name as keyof typeof INPUT_DEFAULTS] : v;
  };
  const optional = (name: string): string | undefined => read(name) || undefined;

  const token = optional('github-token');
  if (token) {
    secrets.add(token);
    setSecret(token);
  }

  const plan = read('plan');
  if (!plan)
    throw new InputError(
      'plan',
      'Input "plan" is required: the path of the plan file, e.g. chaos/redis-partition.yaml.',
    );

  const prometheusUrl = optional('prometheus-url');
  if (prometheusUrl !== undefined) {
    // The password in `user:password@` is a secret before the URL is even checked: errors quote the
    // URL with its userinfo masked.
    secrets.addUrl(prometheusUrl);
    const problem = prometheusUrlProblem(prometheusUrl);
    if (problem)
      throw new InputError(
        'prometheus-url',
        `Input "prometheus-url" is "${displayUrl(prometheusUrl)}": ${problem}; expected an http(s) URL such as https://prometheus.example.com.`,
      );
  }

  const alertmanagerUrl = optional('alertmanager-url');
  if (alertmanagerUrl !== undefined) {
    secrets.addUrl(alertmanagerUrl);
    const problem = prometheusUrlProblem(alertmanagerUrl);
    if (problem)
      throw new InputError(
        'alertmanager-url',
        `Input "alertmanager-url" is "${displayUrl(alertmanagerUrl)}": ${problem}; expected an http(s) URL such as https://alertmanager.example.com.`,
      );
  }

  const awsRegion = optional('aws-region');
  if (awsRegion !== undefined && !REGION.test(awsRegion)) {
    throw new InputError(
      'aws-region',
      `Input "aws-region" is "${awsRegion}": expected an AWS Region name such as eu-west-1.`,
    );
  }

  const queue = read('queue-timeout');
  const queueTimeoutMs = parseDuration(queue);
  if (queueTimeoutMs === undefined) {
    throw new InputError(
      'queue-timeout',
      `Input "queue-timeout" is "${queue}": expected ${DURATION_EXPECTED}.`,
    );
  }

  let notify: NotifyTarget[];
  try {
    notify = parseNotifyTargets(get('notify').split(/\r?\n/), 'Input "notify"');
  } catch (error) {
    if (isBadInput(error)) throw new InputError('notify', `${error.message}.`);
    throw error;
  }

  const deploymentText = optional('deployment-id');
  let deploymentId: number | undefined;
  if (deploymentText !== undefined) {
    deploymentId = Number(deploymentText);
    if (!/^[1-9][0-9]*$/.test(deploymentText) || !Number.isSafeInteger(deploymentId))
      throw new InputError(
        'deployment-id',
        `Input "deployment-id" is "${deploymentText}": expected the numeric id of a GitHub deployment, e.g. \${{ github.event.deployment.id }}.`,
      );
  }
  const environment = optional('environment');
  if (environment !== undefined && (environment.length > ENVIRONMENT_MAX || /[\r\n]/.test(environment)))
    throw new InputError(
      'environment',
      `Input "environment" is ${environment.length} characters long: expected a GitHub environment name of at most ${ENVIRONMENT_MAX} characters on one line.`,
    );

  const subjectName = optional('attest-subject-name');
  const subjectDigest = optional('attest-subject-digest');
  let attestSubject: ActionInputs['attestSubject'];
  if (subjectName !== undefined || subjectDigest !== undefined) {
    if (subjectName === undefined || subjectDigest === undefined)
      throw new InputError(
        subjectName === undefined ? 'attest-subject-name' : 'attest-subject-digest',
        'Inputs "attest-subject-name" and "attest-subject-digest" go together: give both (the artifact and its sha256:<hex> digest) or neither.',
      );
    const hex = SHA256_DIGEST.exec(subjectDigest)?.[1];
    if (!hex)
      throw new InputError(
        'attest-subject-digest',
        `Input "attest-subject-digest" is "${subjectDigest}": expected sha256: followed by 64 lowercase hex digits, e.g. the image digest from docker/build-push-action's digest output.`,
      );
    attestSubject = { name: subjectName, digest: { sha256: hex } };
  }

  return {
    plan,
    command: oneOf('command', read('command'), COMMANDS),
    policy: optional('policy'),
    githubToken: token,
    prometheusUrl,
    alertmanagerUrl,
    prometheusHeaders: parseHeaders(get('prometheus-headers'), setSecret),
    awsRegion,
    prComment: bool('pr-comment', read('pr-comment')),
    checkRun: bool('check-run', read('check-run')),
    findings: oneOf('findings', read('findings'), ['none', 'issue'] as const),
    inconclusiveConclusion: oneOf('inconclusive-conclusion', read('inconclusive-conclusion'), [
      'failure',
      'neutral',
    ] as const),
    notRunConclusion: oneOf('not-run-conclusion', read('not-run-conclusion'), [
      'failure',
      'neutral',
      'skipped',
    ] as const),
    journalPath: read('journal-path'),
    reportPath: read('report-path'),
    queueTimeoutMs,
    notify,
    deploymentId,
    environment,
    attestSubject,
    attestationPath: read('attestation-path'),
    history: optional('history'),
  };
}

function oneOf<T extends string>(name: string, value: string, allowed: readonly T[]): T {
  if ((allowed as readonly string[]).includes(value)) return value as T;
  const extra =
    name === 'inconclusive-conclusion' && value === 'success'
      ? ' (an inconclusive run is never a success)'
      : '';
  throw new InputError(name, `Input "${name}" is "${value}": expected one of ${allowed.join(', ')}${extra}.`);
}

function bool(name: string, value: string): boolean {
  if (TRUE.has(value)) return true;
  if (FALSE.has(value)) return false;
  throw new InputError(name, `Input "${name}" is "${value}": expected true or false.`);
}

/**
 * `Key: Value` per line (blank lines and `#` comments ignored). Values are masked at once; errors name
 * the line, never the value.
 */
export function parseHeaders(
  text: string,
  setSecret: (secret: string) => void = () => undefined,
): Record<string, string> {
  const out: Record<string, string> = {};
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.trim();
    if (!line || line.startsWith('#')) return;
    const colon = line.indexOf(':');
    const name = colon > 0 ? line.slice(0, colon).trim() : '';
    const value = colon > 0 ? line.slice(colon + 1).trim() : '';
    if (value) {
      // The whole value and the credential inside it (`Bearer X` → X): a server may echo either.
      secrets.addHeader(value);
      setSecret(value);
    }
    if (!HEADER_NAME.test(name) || !value) {
      throw new InputError(
        'prometheus-headers',
        `Input "prometheus-headers" line ${i + 1}: expected "Name: value" with an HTTP header name and a non-empty value.`,
      );
    }
    out[name] = value;
  });
  return out;
}
