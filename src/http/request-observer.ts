// What the dispatcher tells about each request, for metrics: which operation it was, how it ended and
// how long it took; the rate limits' refusals; the requests shed at capacity. Called once per request,
// so an observer keeps its work per call to a few additions.

/** Told of every request the dispatcher answers. */
export interface RequestObserver {
  /** One answered request: its operation (an operationId, or what else it was), status, and seconds taken. */
  answered(operation: string, status: number, seconds: number): void;
  /** A request refused by the rate limits: `rate_limited` or `temporarily_banned`; `banStarted` when this refusal started a ban. */
  refused(code: string, banStarted: boolean): void;
  /** A request answered 503 because the service was at capacity (`--max-in-flight`). */
  shed(): void;
}

/** Operation labels of what is not an API operation. */
export const NON_API_OPERATIONS = [
  'healthz',
  'readyz',
  'openapi',
  'docs',
  'preflight',
  'malformed',
  'not_found',
  'unrouted',
] as const;
