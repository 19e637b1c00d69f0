// The shape of every route: what the dispatcher hands it once authentication, the limiter, routing and
// body reading are done, the answer it gives, and its description in the OpenAPI document, declared beside
// its handler. Routes hand the service the request's input as HTTP read it (the service validates it) and
// turn its results into answers (status, JSON, headers); they are testable without sockets.
import type { Awaitable } from '../core/awaitable.js';
import type { Arrival } from '../idempotency/idempotency.js';
import type { ApiKey } from '../keys/api-key.js';
import type { Operation } from './openapi/operation.js';

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

/** The methods API routes are declared with (`HEAD` is answered wherever `GET` is). */
export type RouteMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';

/** A route as it is declared: method, path, its description in the OpenAPI document, and its handler. */
export interface RouteDeclaration {
  method: RouteMethod;
  /** Template relative to the base path, e.g. `/pets/{petId}`. */
  path: string;
  /** What the OpenAPI document says of the route; required, so that no route exists undescribed. */
  operation: Operation;
  deprecation?: Deprecation;
  /** The answer; at once when the service has it at once (an in-memory store), so no turn of the microtask queue is spent. */
  handle(input: RouteInput): Awaitable<Answer>;
}

/** An API route: its declaration, with what the dispatcher reads on every request taken from the description once. */
export interface Route extends Readonly<RouteDeclaration> {
  /** The operation's id (access log, metrics). */
  readonly operationId: string;
  /** Media types of the JSON body this route reads; undefined when it takes no body. */
  readonly bodyMediaTypes: readonly string[] | undefined;
  /** Whether a request may leave the body out (it is then read as `{}`). */
  readonly bodyOptional: boolean;
  /** Whether the route honours an `Idempotency-Key` header (safe retries of a POST). */
  readonly acceptsIdempotencyKey: boolean;
  /**
   * The status of the route's success (201 for a creation, 202, 200), remembered with an answer under an
   * Idempotency-Key; a replay is answered with the status remembered.
   */
  readonly rememberedStatus: number;
}

/** The route of `declaration`; one without its OpenAPI description is a programmer error. */
export function defineRoute(declaration: RouteDeclaration): Route {
  const { operation } = declaration;
  if (operation === undefined) {
    throw new TypeError(`route ${declaration.method} ${declaration.path} has no OpenAPI description (operation)`);
  }
  const mediaTypes = operation.requestBody?.mediaTypes;
  const bodyOptional = operation.requestBody?.optional === true;
  // A body left out is read as {}: only a schema whose every member is optional takes that.
  const required: unknown = (operation.requestBody?.schema as { required?: unknown } | undefined)?.required;
  if (bodyOptional && Array.isArray(required) && required.length > 0) {
    throw new TypeError(`route ${declaration.method} ${declaration.path} has an optional body with required members`);
  }
  return {
    ...declaration,
    operationId: operation.operationId,
    bodyMediaTypes: mediaTypes === undefined ? undefined : Object.keys(mediaTypes),
    bodyOptional,
    acceptsIdempotencyKey: operation.acceptsIdempotencyKey === true,
    rememberedStatus: operation.success.status,
  };
}
