/**
 * What an `aws:eks:inject-kubernetes-custom-resource` action does in the sandbox. FIS applies the custom
 * resource to the cluster and a chaos tool in the cluster acts on it: Chaos Mesh (`chaos-mesh.org`
 * PodChaos, NetworkChaos, StressChaos) or Litmus (`litmuschaos.io` ChaosEngine). The sandbox reads the
 * resource the way those tools do — its selector, its mode and its duration — to know which of the
 * cluster's pods it hits and how.
 */

/** The fault a custom resource causes on the pods it selects. */
export type CustomResourceEffect =
  | { kind: 'error-burst' }
  | { kind: 'latency'; addedMs: number; jitterMs: number }
  | { kind: 'outage' }
  | { kind: 'cpu-stress' };

/** How many of the matching pods the tool picks (Chaos Mesh `mode`/`value`; Litmus `PODS_AFFECTED_PERC`). */
export type SelectionMode =
  | { kind: 'one' }
  | { kind: 'all' }
  | { kind: 'fixed'; n: number }
  | { kind: 'fixed-percent'; percent: number }
  | { kind: 'random-max-percent'; percent: number };

/** A custom resource as the sandbox understands it. */
export interface CustomResource {
  effect: CustomResourceEffect;
  mode: SelectionMode;
  /** Namespaces whose pods may be selected. */
  namespaces: string[];
  /** Labels every selected pod carries. */
  labels: Record<string, string>;
  /** The resource's own duration, when it names one. */
  durationMs?: number | undefined;
}

type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Parses a Go duration (`30s`, `1m30s`, `500ms`) as Chaos Mesh takes them. */
export function goDurationMs(text: string): number | undefined {
  const unit: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
  const parts = [...text.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g)];
  if (parts.length === 0 || parts.map((p) => p[0]).join('') !== text) return undefined;
  return parts.reduce((sum, p) => sum + Number(p[1]) * (unit[p[2] ?? 's'] ?? 0), 0);
}

function labelsOf(selector: unknown): Record<string, string> {
  if (isObject(selector) && isObject(selector.labelSelectors))
    return Object.fromEntries(
      Object.entries(selector.labelSelectors).filter((e): e is [string, string] => typeof e[1] === 'string'),
    );
  return {};
}

function chaosMeshMode(spec: Json): SelectionMode {
  const value = Number(spec.value);
  switch (spec.mode) {
    case 'all':
      return { kind: 'all' };
    case 'fixed':
      return { kind: 'fixed', n: Number.isFinite(value) ? value : 1 };
    case 'fixed-percent':
      return { kind: 'fixed-percent', percent: Number.isFinite(value) ? value : 100 };
    case 'random-max-percent':
      return { kind: 'random-max-percent', percent: Number.isFinite(value) ? value : 100 };
    default:
      return { kind: 'one' };
  }
}

function litmusEnv(experiment: Json): Record<string, string> {
  const components = isObject(experiment.spec) ? experiment.spec.components : undefined;
  const env = isObject(components) && Array.isArray(components.env) ? components.env : [];
  const out: Record<string, string> = {};
  for (const e of env) if (isObject(e) && typeof e.name === 'string') out[e.name] = String(e.value ?? '');
  return out;
}

/**
 * Reads an action's custom resource; undefined for a kind the sandbox does not know (the action then
 * runs without touching the canary, as a resource no tool in the cluster acts on would).
 */
export function readCustomResource(parameters: Record<string, string>): CustomResource | undefined {
  let spec: unknown;
  try {
    spec = JSON.parse(parameters.kubernetesSpec ?? '');
  } catch {
    return undefined;
  }
  if (!isObject(spec)) return undefined;
  // A whole manifest is accepted too: FIS takes the spec, authors often paste the resource.
  if (isObject(spec.spec) && (spec.kind !== undefined || spec.apiVersion !== undefined))
    spec = spec.spec as Json;
  const s = spec as Json;
  const group = (parameters.kubernetesApiVersion ?? '').split('/')[0];
  const kind = parameters.kubernetesKind;
  const defaultNs = parameters.kubernetesNamespace ?? 'default';
  if (group === 'chaos-mesh.org') {
    const selector = isObject(s.selector) ? s.selector : {};
    const namespaces = Array.isArray(selector.namespaces)
      ? selector.namespaces.filter((n): n is string => typeof n === 'string')
      : [defaultNs];
    const base = {
      mode: chaosMeshMode(s),
      namespaces,
      labels: labelsOf(selector),
      ...(typeof s.duration === 'string' && goDurationMs(s.duration) !== undefined
        ? { durationMs: goDurationMs(s.duration) }
        : {}),
    };
    if (kind === 'PodChaos') return { ...base, effect: { kind: 'error-burst' } };
    if (kind === 'StressChaos') return { ...base, effect: { kind: 'cpu-stress' } };
    if (kind === 'NetworkChaos') {
      if (s.action === 'delay') {
        const delay = isObject(s.delay) ? s.delay : {};
        return {
          ...base,
          effect: {
            kind: 'latency',
            addedMs: goDurationMs(String(delay.latency ?? '')) ?? 100,
            jitterMs: goDurationMs(String(delay.jitter ?? '')) ?? 0,
          },
        };
      }
      if (s.action === 'loss' || s.action === 'partition') return { ...base, effect: { kind: 'outage' } };
    }
    return undefined;
  }
  if (group === 'litmuschaos.io' && kind === 'ChaosEngine') {
    const app = isObject(s.appinfo) ? s.appinfo : {};
    const labels: Record<string, string> = {};
    for (const pair of String(app.applabel ?? '').split(',')) {
      const [k, v] = pair.split('=');
      if (k && v !== undefined) labels[k.trim()] = v.trim();
    }
    const experiment = Array.isArray(s.experiments) && isObject(s.experiments[0]) ? s.experiments[0] : {};
    const env = litmusEnv(experiment);
    const percent = Number(env.PODS_AFFECTED_PERC ?? '');
    const seconds = Number(env.TOTAL_CHAOS_DURATION ?? '');
    const base = {
      mode:
        Number.isFinite(percent) && percent > 0
          ? ({ kind: 'fixed-percent', percent } as const)
          : ({ kind: 'one' } as const),
      namespaces: [typeof app.appns === 'string' ? app.appns : defaultNs],
      labels,
      ...(Number.isFinite(seconds) && seconds > 0 ? { durationMs: seconds * 1000 } : {}),
    };
    switch (experiment.name) {
      case 'pod-delete':
        return { ...base, effect: { kind: 'error-burst' } };
      case 'pod-cpu-hog':
        return { ...base, effect: { kind: 'cpu-stress' } };
      case 'pod-network-latency':
        return {
          ...base,
          effect: {
            kind: 'latency',
            addedMs: Number(env.NETWORK_LATENCY ?? '') || 2000,
            jitterMs: Number(env.JITTER ?? '') || 0,
          },
        };
      case 'pod-network-loss':
        return { ...base, effect: { kind: 'outage' } };
      default:
        return undefined;
    }
  }
  return undefined;
}

/** How many of `available` pods the mode picks (`random-max-percent` counted at its maximum). */
export function selectedCount(mode: SelectionMode, available: number): number {
  switch (mode.kind) {
    case 'one':
      return Math.min(1, available);
    case 'all':
      return available;
    case 'fixed':
      return Math.min(mode.n, available);
    case 'fixed-percent':
    case 'random-max-percent':
      return Math.floor((available * mode.percent) / 100);
  }
}

/** The custom resource's own duration, for the action's run time (FIS stops it at maxDuration). */
export function customResourceDurationMs(parameters: Record<string, string>): number | undefined {
  return readCustomResource(parameters)?.durationMs;
}
