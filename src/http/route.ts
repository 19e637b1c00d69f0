// The shape of every route: what the dispatcher hands it once authentication, the limiter, routing and
// body reading are done, and the answer it gives. Routes turn HTTP input into typed calls of the service
// layer and its results into answers (status, JSON, headers); they are testable without sockets.
import type { Awaitable } from '../awaitable.js';
import type { ApiKey } from '../auth/api-key.js';
import type { Arrival } from '../idempotency/idempotency.js';

/** What a route receives. */
export interface RouteInput {
  /** Raw (never decoded) path parameters by name. */
  params: Record<string, string>;
  /** The raw query string, without "?". */
  query: string;
  /** The parsed JSON body, for routes that take one. */
  body: unknown;
  /** The authenticated key. */
  key: ApiKey;
  /** The request's Idempotency-Key, noted in flight, for routes that accept one. */
  arrival: Arrival | undefined;
}

/** An answer: status, JSON text and the route's own headers. */
export interface Answer {
  status: number;
  body: string;
  headers?: Record<string, string>;
}

/** The deprecation of a route: RFC 9745 `Deprecation`, RFC 8594 `Sunset`, and its successor. */
export interface Deprecation {
  /** The headers every answer of the route carries. */
  headers: Record<string, string>;
  /** From this wall-clock time (ms) on, the route answers `410 gone`. */
  sunsetMs: number;
  /** What to use instead, for the 410 message. */
  replacement: string;
}

/** An API route bound to a method and path template. */
export interface Route {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** Template relative to the base path, e.g. `/pets/{petId}`. */
  path: string;
  operationId: string;
  /** Media types of the JSON body this route reads; absent when it takes no body. */
  bodyMediaTypes?: readonly string[];
  deprecation?: Deprecation;
  /** Whether the route honours an `Idempotency-Key` header (safe retries of a POST). */
  acceptsIdempotencyKey?: boolean;
  /**
   * With `acceptsIdempotencyKey`: the status the route answers a request it carries out with (201 for a
   * creation), remembered with the answer under the key; a replay is answered with the status remembered.
   */
  rememberedStatus?: number;
  /** The answer; at once when the service has it at once (an in-memory store), so no turn of the microtask queue is spent. */
  handle(input: RouteInput): Awaitable<Answer>;
}
