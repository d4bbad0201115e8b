/**
 * FIS's restJson1 wire, as `@aws-sdk/client-fis@3.523.0` speaks it: matches a request to its operation,
 * assembles the input from path labels, query string and JSON body, validates it against the model, turns
 * anything thrown into a status and `x-amzn-ErrorType`, and pages list answers.
 */
import { errorMessage } from '../../errors/message.js';
import { FisError, validation } from './errors.js';
import { idempotencyMembers, matchRoute, queryBindings, validateInput } from './model.js';
import { newId, type Json } from './store.js';

/** Page size when the caller sends no maxResults (the model's upper bound). */
const DEFAULT_PAGE_SIZE = 100;

/** What the stand-in answered: the router writes it to the socket. */
export interface FisResponse {
  status: number;
  body: Json;
  headers?: Record<string, string>;
}

/** Runs one validated operation; throws a FisError for an answer other than 200. */
export type Dispatch = (operation: string, input: Json) => Json;

/** The operation a request names, or undefined for a path FIS does not have. */
export function operationOf(method: string, pathname: string): string | undefined {
  return matchRoute(method, pathname)?.operation;
}

/** Handles one FIS request end to end; never throws. */
export function handleRequest(method: string, url: URL, body: Buffer, dispatch: Dispatch): FisResponse {
  try {
    const match = matchRoute(method, url.pathname);
    if (!match)
      throw new FisError('ValidationException', `No FIS operation for ${method} ${url.pathname}`, 404);
    const input = assembleInput(match.operation, match.labels, url.searchParams, body);
    const errors = validateInput(match.operation, input);
    if (errors.length > 0)
      throw validation(
        `${errors.length} validation error${errors.length > 1 ? 's' : ''} detected: ${errors.join('; ')}`,
      );
    return { status: 200, body: dispatch(match.operation, input) };
  } catch (error) {
    if (error instanceof FisError)
      return {
        status: error.status,
        headers: { 'x-amzn-ErrorType': error.code },
        body: { message: error.message },
      };
    return {
      status: 500,
      headers: { 'x-amzn-ErrorType': 'InternalServerException' },
      body: { message: errorMessage(error) },
    };
  }
}

function assembleInput(
  operation: string,
  labels: Record<string, string>,
  query: URLSearchParams,
  body: Buffer,
): Json {
  let input: Json = {};
  if (body.length > 0) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(body.toString('utf8'));
    } catch {
      throw validation('Request body is not valid JSON');
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
      throw validation('Request body must be a JSON object');
    input = parsed as Json;
  }
  for (const [wire, binding] of queryBindings(operation)) {
    const values = query.getAll(wire);
    if (values.length === 0) continue;
    if (binding.list) input[binding.member] = values;
    else if (binding.numeric) {
      const n = Number(values[0]);
      if (!Number.isInteger(n))
        throw validation(
          `Value '${values[0]}' at '${binding.member}' failed to satisfy constraint: Member must be an integer`,
        );
      input[binding.member] = n;
    } else input[binding.member] = values[0];
  }
  for (const [k, v] of Object.entries(labels)) input[k] = v;
  // The SDK fills idempotency tokens; other callers (curl, old CLIs) may not, and the server fills them.
  for (const m of idempotencyMembers(operation)) if (input[m] === undefined) input[m] = newId('tok-');
  return input;
}

/** One page of `all` as the input's maxResults/nextToken ask for it. */
export function paginate<T>(all: T[], input: Json): { items: T[]; nextToken?: string } {
  const size = (input.maxResults as number | undefined) ?? DEFAULT_PAGE_SIZE;
  let offset = 0;
  if (typeof input.nextToken === 'string') {
    offset = Number(Buffer.from(input.nextToken, 'base64url').toString('utf8'));
    if (!Number.isInteger(offset) || offset < 0) throw validation(`Invalid nextToken ${input.nextToken}.`);
  }
  const items = all.slice(offset, offset + size);
  const next =
    offset + size < all.length ? Buffer.from(String(offset + size)).toString('base64url') : undefined;
  return next ? { items, nextToken: next } : { items };
}

/** A list answer: one page of `all` under `member`, and `nextToken` when more follow. */
export function listAnswer(member: string, all: unknown[], input: Json): Json {
  const page = paginate(all, input);
  return { [member]: page.items, ...(page.nextToken ? { nextToken: page.nextToken } : {}) };
}
