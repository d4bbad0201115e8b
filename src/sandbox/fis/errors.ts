/** FIS error responses with the status codes of the model's `smithy.api#httpError` traits. */

/** HTTP status per modeled FIS error (M-FIS); `ThrottlingException` is unmodeled and uses 429 (docs/design/fis.md#wire-protocol). */
export const FIS_ERROR_STATUS = {
  ValidationException: 400,
  ResourceNotFoundException: 404,
  ConflictException: 409,
  ServiceQuotaExceededException: 402,
  ThrottlingException: 429,
  InternalServerException: 500,
} as const;

export type FisErrorCode = keyof typeof FIS_ERROR_STATUS;

/** An error the stand-in answers with: `x-amzn-ErrorType: <code>` and `{"message"}`. */
export class FisError extends Error {
  override name = 'FisError';
  readonly status: number;
  constructor(
    readonly code: FisErrorCode,
    message: string,
    status?: number,
  ) {
    super(message);
    this.status = status ?? FIS_ERROR_STATUS[code];
  }
}

/** Shorthand for the 400 every bad input gets. */
export function validation(message: string): FisError {
  return new FisError('ValidationException', message);
}

/** Shorthand for an unknown id or ARN. */
export function notFound(message: string): FisError {
  return new FisError('ResourceNotFoundException', message);
}
