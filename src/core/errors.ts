// The one error table of README "Errors": every code a client can see, its status and default message.
// Handlers throw `ApiError`; `http/answers.ts` turns it into the `{code, message, status}` body.

/** Each error code of the contract, with its HTTP status and a default message a person can act on. */
export const ERRORS = {
  bad_request: { status: 400, message: 'The request is not valid HTTP.' },
  invalid_json: { status: 400, message: 'The request body must be well-formed JSON.' },
  invalid_body: { status: 400, message: 'The request body does not match the schema of this operation.' },
  invalid_query: { status: 400, message: 'A query parameter has a bad value or is repeated.' },
  invalid_parameter: { status: 400, message: 'A path parameter is malformed.' },
  invalid_header: { status: 400, message: 'A request header is malformed or repeated.' },
  invalid_cursor: {
    status: 400,
    message: 'The cursor was not issued by this service for this listing and filter; start again from the first page.',
  },
  unauthorized: { status: 401, message: "Send a valid API key in the Authorization header as 'Bearer <key>'." },
  not_found: { status: 404, message: 'No resource exists at this address.' },
  method_not_allowed: { status: 405, message: 'This method is not allowed on this resource; see the Allow header.' },
  request_timeout: { status: 408, message: 'The request headers or body were not received in time.' },
  conflict: { status: 409, message: 'The current state of the resource does not allow this change.' },
  gone: { status: 410, message: 'This operation has been removed.' },
  payload_too_large: { status: 413, message: 'The request body is larger than the limit.' },
  uri_too_long: { status: 414, message: 'The request target is longer than the limit.' },
  unsupported_media_type: { status: 415, message: "Send the request body as 'Content-Type: application/json'." },
  rate_limited: {
    status: 429,
    message: 'Too many requests; retry after the number of seconds in the Retry-After header.',
  },
  temporarily_banned: {
    status: 429,
    message:
      'This API key is temporarily banned after repeated requests over its limit; retry after the number of seconds in the Retry-After header.',
  },
  headers_too_large: { status: 431, message: 'The request headers are larger than the limit.' },
  internal_error: {
    status: 500,
    message: 'An unexpected error occurred; quote the X-Request-Id header when reporting it.',
  },
  unavailable: {
    status: 503,
    message:
      'The service cannot take this request right now; retry after the number of seconds in the Retry-After header.',
  },
} as const satisfies Record<string, { status: number; message: string }>;

/** A machine-readable error code of the contract. */
export type ErrorCode = keyof typeof ERRORS;

/** One fault found by validation: where it is and what is wrong there. */
export interface ErrorDetail {
  path: string;
  message: string;
}

/** What an ApiError may carry besides its code, message and details. */
export interface ApiErrorOptions {
  /** Whole seconds a client should wait before retrying (sent as Retry-After, RFC 9110 section 10.2.3). */
  retryAfterSeconds?: number;
  /** Extra response headers an HTTP-level error needs (`Allow`, `WWW-Authenticate`, `Connection`). */
  headers?: Record<string, string>;
}

/** An error meant for the client: it carries a code of the table and a message naming what is at fault. */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly details: ErrorDetail[] | undefined;
  /** Whole seconds a client should wait before retrying, when the error is temporary. */
  readonly retryAfterSeconds: number | undefined;
  /** Extra response headers this error needs (`Allow`, `WWW-Authenticate`, ...). */
  readonly headers: Record<string, string> | undefined;

  constructor(code: ErrorCode, message?: string, details?: ErrorDetail[], options: ApiErrorOptions = {}) {
    super(message ?? ERRORS[code].message);
    this.name = 'ApiError';
    this.code = code;
    this.status = ERRORS[code].status;
    this.details = details;
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.headers = options.headers;
  }
}

/** The JSON text of an error body, in the key order of the Error schema: code, message, status (then details). */
export function errorBody(code: ErrorCode, message: string, details?: ErrorDetail[]): string {
  const body: { code: ErrorCode; message: string; status: number; details?: ErrorDetail[] } = {
    code,
    message,
    status: ERRORS[code].status,
  };
  if (details !== undefined && details.length > 0) body.details = details;
  return JSON.stringify(body);
}
