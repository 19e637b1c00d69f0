// The shape every operation has: what the dispatcher hands it and what it answers. Operations are
// plain functions of their input, so they are unit-testable without sockets.
import type { IncomingHttpHeaders } from 'node:http';
import type { ApiKey } from '../auth/api-key.js';
import type { IdempotencyRequest } from '../idempotency/run-idempotent.js';

/** What an operation receives once authentication, the limiter, routing and body reading are done. */
export interface OperationInput {
  /** Raw (never decoded) path parameters by name. */
  params: Record<string, string>;
  /** The raw query string, without "?". */
  query: string;
  /** The parsed JSON body, for operations that take one. */
  body: unknown;
  /** The authenticated key. */
  key: ApiKey;
  headers: IncomingHttpHeaders;
  /** The request's Idempotency-Key and its scope, for operations that take one. */
  idempotency: IdempotencyRequest | undefined;
}

/** An answer: status, JSON text and the operation's own headers. */
export interface Answer {
  status: number;
  body: string;
  headers?: Record<string, string>;
}

/** The deprecation of an operation: RFC 9745 `Deprecation`, RFC 8594 `Sunset`, and its successor. */
export interface Deprecation {
  /** The headers every answer of the route carries. */
  headers: Record<string, string>;
  /** From this wall-clock time (ms) on, the operation answers `410 gone`. */
  sunsetMs: number;
  /** What to use instead, for the 410 message. */
  replacement: string;
}

/** An API operation bound to a method and path template. */
export interface Operation {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** Template relative to the base path, e.g. `/pets/{petId}`. */
  path: string;
  operationId: string;
  /** Media types of the JSON body this operation reads; absent when it takes no body. */
  bodyMediaTypes?: readonly string[];
  deprecation?: Deprecation;
  /** Takes an `Idempotency-Key` header (CONTRACT.md section 9). */
  idempotent?: boolean;
  handle(input: OperationInput): Answer | Promise<Answer>;
}
