/**
 * The FIS Smithy model drives the stand-in's router and its request validation, so routes, required
 * members, lengths, patterns and enums are AWS's own rather than a hand copy. `model.json` is
 * `fixtures/aws-models/fis.json` (api-models-aws @ 56c8953e, Apache-2.0) with documentation traits removed.
 */
import modelJson from './model.json' with { type: 'json' };

interface Member {
  target: string;
  traits?: Record<string, unknown>;
}
interface Shape {
  type: string;
  members?: Record<string, Member>;
  member?: Member;
  key?: Member;
  value?: Member;
  input?: { target: string };
  output?: { target: string };
  traits?: Record<string, unknown>;
}

const shapes = (modelJson as unknown as { shapes: Record<string, Shape> }).shapes;
const NS = 'com.amazonaws.fis#';

/** One operation's HTTP binding, from its `smithy.api#http` trait. */
export interface Route {
  operation: string;
  method: string;
  segments: string[];
}

/** Every FIS operation with its HTTP method and URI pattern. */
export const ROUTES: Route[] = Object.entries(shapes)
  .filter(([, s]) => s.type === 'operation')
  .map(([id, s]) => {
    const http = s.traits?.['smithy.api#http'] as { method: string; uri: string };
    return {
      operation: id.slice(NS.length),
      method: http.method,
      segments: http.uri.split('/').filter(Boolean),
    };
  });

/** Finds the operation for a request; labels come back percent-decoded (they are never greedy). */
export function matchRoute(
  method: string,
  pathname: string,
): { operation: string; labels: Record<string, string> } | undefined {
  const parts = pathname.split('/').filter(Boolean);
  let best: { operation: string; labels: Record<string, string>; literals: number } | undefined;
  for (const route of ROUTES) {
    if (route.method !== method || route.segments.length !== parts.length) continue;
    const labels: Record<string, string> = {};
    let literals = 0;
    let ok = true;
    route.segments.forEach((seg, i) => {
      const part = parts[i] ?? '';
      if (seg.startsWith('{') && seg.endsWith('}')) {
        try {
          labels[seg.slice(1, -1)] = decodeURIComponent(part);
        } catch {
          ok = false;
        }
      } else if (seg === part) literals++;
      else ok = false;
    });
    if (ok && (!best || literals > best.literals)) best = { operation: route.operation, labels, literals };
  }
  return best && { operation: best.operation, labels: best.labels };
}

function inputShape(operation: string): Shape | undefined {
  const op = shapes[NS + operation];
  return op?.input ? shapes[op.input.target] : undefined;
}

/** Query-string member bindings of an operation: wire name → member name and whether it is a list. */
export function queryBindings(
  operation: string,
): Map<string, { member: string; list: boolean; numeric: boolean }> {
  const out = new Map<string, { member: string; list: boolean; numeric: boolean }>();
  for (const [name, m] of Object.entries(inputShape(operation)?.members ?? {})) {
    const q = m.traits?.['smithy.api#httpQuery'];
    if (typeof q !== 'string') continue;
    const target = shapes[m.target];
    out.set(q, {
      member: name,
      list: target?.type === 'list',
      numeric: target?.type === 'integer' || target?.type === 'long',
    });
  }
  return out;
}

/** Member names of the operation's input that carry `@idempotencyToken` (the server fills them when absent). */
export function idempotencyMembers(operation: string): string[] {
  return Object.entries(inputShape(operation)?.members ?? {})
    .filter(([, m]) => m.traits?.['smithy.api#idempotencyToken'] !== undefined)
    .map(([n]) => n);
}

function show(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

function codePoints(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

const patternCache = new Map<string, RegExp>();
function compiled(pattern: string): RegExp {
  let re = patternCache.get(pattern);
  if (!re) {
    re = new RegExp(pattern, 'u');
    patternCache.set(pattern, re);
  }
  return re;
}

/**
 * Validates a value against a model shape the way AWS reports it: one message per violation, naming
 * the member path, the value and the constraint.
 */
export function validateShape(shapeId: string, value: unknown, path: string, errors: string[]): void {
  if (value === undefined || value === null) return;
  if (shapeId.startsWith('smithy.api#')) return validatePrelude(shapeId, value, path, errors);
  const shape = shapes[shapeId];
  if (!shape) return;
  const traits = shape.traits ?? {};
  const length = traits['smithy.api#length'] as { min?: number; max?: number } | undefined;
  const range = traits['smithy.api#range'] as { min?: number; max?: number } | undefined;
  const pattern = traits['smithy.api#pattern'] as string | undefined;
  const at = path || 'input';
  const fail = (what: string): void =>
    void errors.push(`Value '${show(value)}' at '${at}' failed to satisfy constraint: Member must ${what}`);

  switch (shape.type) {
    case 'structure': {
      if (typeof value !== 'object' || Array.isArray(value)) return fail('be a structure');
      const obj = value as Record<string, unknown>;
      for (const [name, m] of Object.entries(shape.members ?? {})) {
        const child = path ? `${path}.${name}` : name;
        if (obj[name] === undefined || obj[name] === null) {
          if (m.traits?.['smithy.api#required'] !== undefined)
            errors.push(`Value null at '${child}' failed to satisfy constraint: Member must not be null`);
          continue;
        }
        validateShape(m.target, obj[name], child, errors);
      }
      return;
    }
    case 'list': {
      if (!Array.isArray(value)) return fail('be a list');
      if (length?.min !== undefined && value.length < length.min)
        fail(`have length greater than or equal to ${length.min}`);
      if (length?.max !== undefined && value.length > length.max)
        fail(`have length less than or equal to ${length.max}`);
      value.forEach((v, i) => validateShape(shape.member!.target, v, `${at}.${i + 1}.member`, errors));
      return;
    }
    case 'map': {
      if (typeof value !== 'object' || Array.isArray(value)) return fail('be a map');
      const entries = Object.entries(value as Record<string, unknown>);
      if (length?.min !== undefined && entries.length < length.min)
        fail(`have length greater than or equal to ${length.min}`);
      if (length?.max !== undefined && entries.length > length.max)
        fail(`have length less than or equal to ${length.max}`);
      for (const [k, v] of entries) {
        validateShape(shape.key!.target, k, `${at}.key`, errors);
        validateShape(shape.value!.target, v, `${at}.${k}`, errors);
      }
      return;
    }
    case 'string': {
      if (typeof value !== 'string') return fail('be a string');
      const n = codePoints(value);
      if (length?.min !== undefined && n < length.min)
        fail(`have length greater than or equal to ${length.min}`);
      if (length?.max !== undefined && n > length.max)
        fail(`have length less than or equal to ${length.max}`);
      if (pattern && !compiled(pattern).test(value)) fail(`satisfy regular expression pattern: ${pattern}`);
      return;
    }
    case 'enum': {
      const allowed = Object.values(shape.members ?? {}).map(
        (m) => m.traits?.['smithy.api#enumValue'] as string,
      );
      if (typeof value !== 'string' || !allowed.includes(value))
        fail(`satisfy enum value set: [${allowed.join(', ')}]`);
      return;
    }
    case 'integer':
    case 'long': {
      if (typeof value !== 'number' || !Number.isInteger(value)) return fail('be an integer');
      if (range?.min !== undefined && value < range.min)
        fail(`have value greater than or equal to ${range.min}`);
      if (range?.max !== undefined && value > range.max)
        fail(`have value less than or equal to ${range.max}`);
      return;
    }
    case 'boolean':
      if (typeof value !== 'boolean') fail('be a boolean');
      return;
    case 'timestamp':
      if (typeof value !== 'number') fail('be a timestamp in epoch seconds');
      return;
    default:
      return;
  }
}

function validatePrelude(shapeId: string, value: unknown, path: string, errors: string[]): void {
  const expected: Record<string, string> = {
    'smithy.api#String': 'string',
    'smithy.api#Boolean': 'boolean',
    'smithy.api#Integer': 'number',
    'smithy.api#Long': 'number',
    'smithy.api#Timestamp': 'number',
  };
  const type = expected[shapeId];
  if (type && typeof value !== type)
    errors.push(`Value '${show(value)}' at '${path}' failed to satisfy constraint: Member must be a ${type}`);
}

/** Validates an operation's assembled input (labels + query + body); returns AWS-style messages. */
export function validateInput(operation: string, input: Record<string, unknown>): string[] {
  const op = shapes[NS + operation];
  const errors: string[] = [];
  if (op?.input) validateShape(op.input.target, input, '', errors);
  return errors;
}

/** The shape id of an operation's input or output, for tests that validate wire payloads. */
export function operationShape(operation: string, side: 'input' | 'output'): string | undefined {
  return shapes[NS + operation]?.[side]?.target;
}
