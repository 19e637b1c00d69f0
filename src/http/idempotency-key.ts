// The Idempotency-Key protocol of HTTP (README "Store orders (beta) and safe retries"), around the core
// in src/idempotency/, which knows no HTTP:
// - the field: 1 to 255 visible ASCII characters, sent once, else 400 (a POST without the body it
//   needs is refused as invalid_json instead);
// - its scope: per API key and per route, `<key id> <METHOD> <path>`, the path being the route's
//   template with its parameters filled in: a key sent to one webhook's `/test` is not a repeat of the
//   same key sent to another's. A route without parameters has the scope the first release wrote in
//   the log, so answers remembered then are still found;
// - the claim, taken once the request is admitted and routed but before its body is read, so that a
//   repeat arriving meanwhile finds it, also after a `100 Continue`;
// - the release, before the answer is sent: a client that retries the moment it has an answer must find
//   the key free (and the answer remembered), also on a store where the release is a round trip;
// - a replay is answered with the status remembered with the answer, and `Idempotent-Replayed: true`.
// The status remembered is the one the route names for a request it carries out (`Route.rememberedStatus`).
import type { IncomingMessage } from 'node:http';
import { ApiError } from '../core/errors.js';
import type { Arrival } from '../idempotency/idempotency.js';
import { announcesBody } from './body.js';
import { countHeader } from './headers.js';
import { repeatedField } from './request-checks.js';
import type { ResponseHeaders } from './response-headers.js';
import type { Answer, Route } from './route.js';

/** Notes a request with an Idempotency-Key as in flight (the core's `Idempotency.arrive`). */
export type Arrive = (scope: string, key: string, status: number) => Promise<Arrival>;

// An Idempotency-Key is 1 to 255 visible ASCII characters.
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

/**
 * The request's Idempotency-Key, checked; undefined when none was sent, or when it is repeated on a
 * request without the body its route needs, which is refused as invalid_json whatever its headers. A
 * POST that takes no body, or may go without, is carried out on its key alone: a repeat is refused.
 */
export function idempotencyKeyOf(req: IncomingMessage, bodyRequired = false): string | undefined {
  const count = countHeader(req, 'idempotency-key');
  if (count === 0) return undefined;
  if (count > 1) {
    if (bodyRequired && !announcesBody(req)) return undefined;
    throw repeatedField('Idempotency-Key');
  }
  const value = req.headers['idempotency-key'];
  if (typeof value !== 'string' || !IDEMPOTENCY_KEY.test(value)) {
    throw new ApiError('invalid_header', 'Header "Idempotency-Key" must be 1 to 255 visible ASCII characters', [
      { path: 'Idempotency-Key', message: '"Idempotency-Key" must be 1 to 255 visible ASCII characters' },
    ]);
  }
  return value;
}

/** The scope of Idempotency-Keys sent with the API key `keyId` to `route`, its path parameters `params`. */
export function idempotencyScope(keyId: string, route: Route, params: Readonly<Record<string, string>>): string {
  const path = route.path.replace(PATH_PARAMETER, (template, name: string) => params[name] ?? template);
  return `${keyId} ${route.method} ${path}`;
}

const PATH_PARAMETER = /\{(\w+)\}/g;

/** Claims, releases and replays of Idempotency-Keys. */
export class IdempotencyKeys {
  readonly #arrive: Arrive;
  readonly #logError: (requestId: string, error: unknown) => void;

  constructor(arrive: Arrive, logError: (requestId: string, error: unknown) => void) {
    this.#arrive = arrive;
    this.#logError = logError;
  }

  /**
   * Claims the Idempotency-Key of `req` for `route` (with `params`) and the API key `keyId`: the request is in flight
   * from now until `release`. Undefined when the route takes no key or none was sent.
   */
  claim(
    req: IncomingMessage,
    route: Route,
    params: Readonly<Record<string, string>>,
    keyId: string,
  ): Promise<Arrival> | undefined {
    if (route.acceptsIdempotencyKey !== true) return undefined;
    const key = idempotencyKeyOf(req, route.bodyMediaTypes !== undefined && !route.bodyOptional);
    if (key === undefined) return undefined;
    const status = route.rememberedStatus;
    if (status === undefined)
      throw new TypeError(`${route.method} ${route.path} accepts an Idempotency-Key but names no rememberedStatus`);
    return this.#arrive(idempotencyScope(keyId, route, params), key, status);
  }

  /** Ends the claim of `arrival`, before the answer is sent; a failure is logged, and the answer goes out. */
  async release(arrival: Arrival, requestId: string): Promise<void> {
    try {
      await arrival.leave();
    } catch (error) {
      this.#logError(requestId, error);
    }
  }

  /** The status `answer` is sent with: on a replay, the status remembered, with `Idempotent-Replayed: true`. */
  statusOf(answer: Answer, arrival: Arrival | undefined, headers: ResponseHeaders): number {
    const replayedStatus = arrival?.replayedStatus;
    if (replayedStatus === undefined) return answer.status;
    headers.set('idempotent-replayed', 'true');
    return replayedStatus;
  }
}
