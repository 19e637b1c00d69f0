// What a failed client call throws: one error class for the service's answers (its `Error` body of
// README "Errors") and for the failures that never got an answer (network, deadline), so a
// caller matches on `code` alone.

/** One entry of a validation error's `details`: the value at fault and what is wrong with it. */
export interface ErrorDetail {
  path: string;
  message: string;
}

/**
 * Codes the client itself gives, with `status` 0 because no HTTP answer carried them. The service's
 * own codes (README "Errors") come with the answer's status.
 */
export const CLIENT_ERROR_CODES = {
  /** The connection failed or broke before a whole answer arrived. */
  network_error: 'network_error',
  /** The total deadline passed while a request was in flight. */
  deadline_exceeded: 'deadline_exceeded',
  /** An answer that is not what the API sends (a proxy's HTML page, say). */
  unexpected_response: 'unexpected_response',
} as const;

/** What went wrong in an `AnimalStoreError`, for its constructor. */
export interface AnimalStoreErrorInit {
  status: number;
  code: string;
  message: string;
  details?: ErrorDetail[] | undefined;
  requestId?: string | undefined;
  /** How many requests were sent for this call, retries included. */
  attempts?: number;
  cause?: unknown;
}

/** A failed call: the service's error answer (status, code, message, details, request id), or a client-side failure with status 0. */
export class AnimalStoreError extends Error {
  override name = 'AnimalStoreError';
  /** The HTTP status, or 0 when no answer arrived. */
  readonly status: number;
  /** The machine-readable code: the service's (`not_found`, `rate_limited`, ...) or one of CLIENT_ERROR_CODES. */
  readonly code: string;
  /** Per-field problems of a validation error, when the service gave them. */
  readonly details: ErrorDetail[] | undefined;
  /** The `X-Request-Id` of the answer (the one this client sent): quote it when reporting a problem. */
  readonly requestId: string | undefined;
  /** How many requests were sent for this call, retries included. */
  readonly attempts: number;

  constructor(init: AnimalStoreErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.status = init.status;
    this.code = init.code;
    this.details = init.details;
    this.requestId = init.requestId;
    this.attempts = init.attempts ?? 1;
  }

  /** The same error, counting `attempts` requests. */
  withAttempts(attempts: number): AnimalStoreError {
    return new AnimalStoreError({
      status: this.status,
      code: this.code,
      message: this.message,
      details: this.details,
      requestId: this.requestId,
      attempts,
      cause: this.cause,
    });
  }
}

/** The error of a non-2xx answer: its `Error` body when it has one, else a generic `unexpected_response`. */
export function errorFromAnswer(status: number, text: string, requestId: string | undefined): AnimalStoreError {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (isErrorBody(body)) {
    return new AnimalStoreError({ status, code: body.code, message: body.message, details: body.details, requestId });
  }
  const excerpt = text.length > 200 ? `${text.slice(0, 200)}…` : text;
  return new AnimalStoreError({
    status,
    code: CLIENT_ERROR_CODES.unexpected_response,
    message: `The server answered ${status} without an error body of this API${excerpt.length > 0 ? `: ${excerpt}` : ''}`,
    requestId,
  });
}

function isErrorBody(body: unknown): body is { code: string; message: string; details?: ErrorDetail[] } {
  if (typeof body !== 'object' || body === null) return false;
  const { code, message, details } = body as Record<string, unknown>;
  return typeof code === 'string' && typeof message === 'string' && (details === undefined || Array.isArray(details));
}
