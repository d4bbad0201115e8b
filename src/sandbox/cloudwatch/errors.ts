/**
 * CloudWatch errors as both wire protocols carry them: the awsQuery code (`<Code>`, and the first half
 * of the JSON protocol's `x-amzn-query-error` header), the HTTP status and the model shape the JSON
 * `__type` names (M-CW `aws.protocols#awsQueryError`; docs/design/cloudwatch.md#wire-protocols).
 */

/** ErrorMessage in the model is 1–255 characters (M-CW `ErrorMessage` length trait). */
export const MAX_ERROR_MESSAGE_LENGTH = 255;

/** An error the stand-in returns to the client. */
export class CloudWatchError extends Error {
  override name = 'CloudWatchError';
  constructor(
    /** The awsQuery error code, e.g. `ResourceNotFound`. */
    readonly code: string,
    message: string,
    readonly status: number,
    /** The JSON protocol's `__type`: a model shape id, or coral's for unmodeled errors. */
    readonly type: string,
    readonly fault: 'Sender' | 'Receiver' = 'Sender',
  ) {
    super(
      message.length > MAX_ERROR_MESSAGE_LENGTH
        ? `${message.slice(0, MAX_ERROR_MESSAGE_LENGTH - 3)}...`
        : message,
    );
  }
}

const NS = 'com.amazonaws.cloudwatch#';

/** Input that breaks a constraint the model does not list an error for (AWS answers `ValidationError`). */
export const validationError = (message: string) =>
  new CloudWatchError('ValidationError', message, 400, 'com.amazon.coral.validate#ValidationException');
/** PutMetricData / DescribeAlarms parameter value problems. */
export const invalidParameterValue = (message: string) =>
  new CloudWatchError('InvalidParameterValue', message, 400, `${NS}InvalidParameterValueException`);
/** Two parameters that must not be given together. */
export const invalidParameterCombination = (message: string) =>
  new CloudWatchError(
    'InvalidParameterCombination',
    message,
    400,
    `${NS}InvalidParameterCombinationException`,
  );
/** A required parameter is absent. */
export const missingParameter = (message: string) =>
  new CloudWatchError('MissingParameter', message, 400, `${NS}MissingRequiredParameterException`);
/** The named alarm does not exist. */
export const resourceNotFound = (message: string) =>
  new CloudWatchError('ResourceNotFound', message, 404, `${NS}ResourceNotFound`);
/** SetAlarmState `StateReasonData` is not JSON. */
export const invalidFormat = (message: string) =>
  new CloudWatchError('InvalidFormat', message, 400, `${NS}InvalidFormatFault`);
/** A NextToken this stand-in did not issue. */
export const invalidNextToken = (message: string) =>
  new CloudWatchError('InvalidNextToken', message, 400, `${NS}InvalidNextToken`);
/** PutMetricAlarm over a quota. */
export const limitExceeded = (message: string) =>
  new CloudWatchError('LimitExceeded', message, 400, `${NS}LimitExceededFault`);
/** An operation this stand-in does not implement, or an unknown one. */
export const invalidAction = (message: string) =>
  new CloudWatchError('InvalidAction', message, 400, 'com.amazon.coral.service#UnknownOperationException');
/** The request body is not what the protocol promises (bad JSON, bad gzip). */
export const serializationError = (message: string) =>
  new CloudWatchError('MalformedInput', message, 400, 'com.amazon.coral.service#SerializationException');
/** The request is larger than the service takes. */
export const tooLarge = (message: string) =>
  new CloudWatchError(
    'RequestEntityTooLarge',
    message,
    413,
    'com.amazon.coral.service#RequestEntityTooLargeException',
  );
