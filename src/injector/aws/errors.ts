/**
 * Which AWS call failures mean the set-up is broken, as opposed to "not now". A throttled or 5xx call may
 * succeed on the next run, so a gate that meets one may say `not-run`; missing credentials, an expired
 * token, a missing permission or an endpoint nobody answers on will fail every run the same way until a
 * person fixes the set-up, and saying `not-run` ("try later") would hide that. Pure: no SDK import, so
 * it classifies errors from any client (the pinned FIS and CloudWatch clients, the Tagging client, the
 * hand-signed safety-lever requests) and from other copies of the SDK.
 */

/**
 * Error names (the SDK's `error.name`, which is the service's error code for service errors) that mean
 * the credentials or the permissions are wrong:
 * - `CredentialsProviderError`, `TokenProviderError`: the SDK's provider chain found no credentials (no
 *   environment variables, profile, web identity, container or instance role) or could not refresh an
 *   SSO token;
 * - `ExpiredToken`, `ExpiredTokenException`, `RequestExpired`: the session credentials have expired
 *   (the name differs between the query and JSON protocols);
 * - `InvalidClientTokenId`, `UnrecognizedClientException`, `InvalidAccessKeyId`, `AuthFailure`: AWS does
 *   not know the access key;
 * - `InvalidSignatureException`, `SignatureDoesNotMatch`, `IncompleteSignature`,
 *   `MissingAuthenticationToken`, `MissingAuthenticationTokenException`: the secret key is wrong or the
 *   request is not signed;
 * - `AccessDenied`, `AccessDeniedException`, `UnauthorizedOperation`, `UnauthorizedException`: the role
 *   lacks a permission the run needs (docs/fis.md lists the least-privilege policy).
 */
export const SETUP_ERROR_NAMES: ReadonlySet<string> = new Set([
  'CredentialsProviderError',
  'TokenProviderError',
  'ExpiredToken',
  'ExpiredTokenException',
  'RequestExpired',
  'InvalidClientTokenId',
  'UnrecognizedClientException',
  'InvalidAccessKeyId',
  'AuthFailure',
  'InvalidSignatureException',
  'SignatureDoesNotMatch',
  'IncompleteSignature',
  'MissingAuthenticationToken',
  'MissingAuthenticationTokenException',
  'AccessDenied',
  'AccessDeniedException',
  'UnauthorizedOperation',
  'UnauthorizedException',
]);

/**
 * Node network error codes that mean the endpoint cannot be reached at all: nothing listens there
 * (`ECONNREFUSED`, after the SDK's own retries) or the host name does not exist (`ENOTFOUND`). Both
 * point at a wrong `AWS_ENDPOINT_URL*` or Region. Resets and timeouts (`ECONNRESET`, `ETIMEDOUT`) and a
 * temporary DNS failure (`EAI_AGAIN`) are left out: they come and go, so they stay "not now".
 */
export const SETUP_NETWORK_CODES: ReadonlySet<string> = new Set(['ECONNREFUSED', 'ENOTFOUND']);

/** Messages that say the same when the name is generic (e.g. an SDK wrapped the provider error). */
const SETUP_MESSAGES = [/could not load credentials/i, /security token included in the request is expired/i];

/**
 * Whether an AWS call failure means the set-up is broken (credentials, permissions, endpoint) rather
 * than a transient condition. Looks through `cause` chains and the `errors` of an AggregateError (Node
 * reports a refused dual-stack connection as one), at most a few levels deep.
 */
export function isSetupError(error: unknown): boolean {
  return setupErrorOf(error) !== undefined;
}

/** The error in the chain that makes `error` a set-up error, for messages; undefined when it is none. */
export function setupErrorOf(error: unknown, depth = 0): Error | undefined {
  if (!(error instanceof Error) || depth > 5) return undefined;
  const code = (error as { code?: unknown }).code;
  const awsCode = (error as { Code?: unknown }).Code;
  if (
    SETUP_ERROR_NAMES.has(error.name) ||
    (typeof awsCode === 'string' && SETUP_ERROR_NAMES.has(awsCode)) ||
    (typeof code === 'string' && SETUP_NETWORK_CODES.has(code)) ||
    SETUP_MESSAGES.some((re) => re.test(error.message))
  ) {
    return error;
  }
  const inner = (error as { errors?: unknown }).errors;
  if (Array.isArray(inner)) {
    for (const e of inner) {
      const found = setupErrorOf(e, depth + 1);
      if (found) return found;
    }
  }
  return setupErrorOf(error.cause, depth + 1);
}

/** `CredentialsProviderError: Could not load credentials from any providers`: the name says what broke. */
export function describeAwsError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: unknown }).code;
  // Node's network errors are plain Errors whose message already quotes the code (`connect ECONNREFUSED …`).
  if (error.name === 'Error' && typeof code === 'string') {
    return error.message.includes(code) ? error.message : `${code}: ${error.message}`;
  }
  return error.message.startsWith(error.name) ? error.message : `${error.name}: ${error.message}`;
}
