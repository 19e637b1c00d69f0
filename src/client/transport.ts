// One API call over undici, with its retries: bearer key and request id on every attempt, a JSON
// body in and out, 429 and 503 sent again after the wait retry.ts computes, network failures sent
// again only where repeating cannot change anything twice, and the whole call bounded by its deadline.
import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import type { Dispatcher } from 'undici';
import type { Clock } from '../core/clock.js';
import { AnimalStoreError, CLIENT_ERROR_CODES, errorFromAnswer } from './errors.js';
import { nextRetryDelayMs, parseRetryAfterMs, type RetryPolicy } from './retry.js';

/** A request of the API: an absolute path (base path and query included) and an optional JSON body. */
export interface ApiRequest {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  path: string;
  body?: unknown;
  /** Sent as `Idempotency-Key` on every attempt (README "Store orders (beta) and safe retries"). */
  idempotencyKey?: string;
}

/** A 2xx answer with its JSON body parsed. */
export interface ApiAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
}

/** What a transport needs: where, who, how to retry, and the time and randomness it may use. */
export interface TransportOptions {
  origin: string;
  apiKey: string;
  dispatcher: Dispatcher;
  retry: RetryPolicy;
  clock: Clock;
  sleep?: ((ms: number) => Promise<void>) | undefined;
  random?: (() => number) | undefined;
}

/**
 * 429: refused before the operation (README "How the API behaves"). 503: storage could not write, and
 * nothing half-written stays visible, or the service is stopping before it began (section 7). Either
 * way nothing was changed, so any method may be sent again.
 */
const RETRYABLE_STATUSES = new Set([429, 503]);

/** Connection failures that happen before a byte of the request left: nothing reached the service. */
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'UND_ERR_CONNECT_TIMEOUT', 'EAI_AGAIN', 'ENOTFOUND']);

/** Sends API requests with retries; one per client. */
export class Transport {
  readonly #options: TransportOptions;
  readonly #sleep: (ms: number) => Promise<void>;
  readonly #random: () => number;

  constructor(options: TransportOptions) {
    this.#options = options;
    this.#sleep = options.sleep ?? ((ms) => delay(ms));
    this.#random = options.random ?? Math.random;
  }

  /** Sends `request` until it gets a final answer; resolves with a 2xx, throws an AnimalStoreError otherwise. */
  async send(request: ApiRequest): Promise<ApiAnswer> {
    const { clock, retry } = this.#options;
    const startedMs = clock.monotonic();
    // One id for every attempt of a call, so the service's logs show them together.
    const requestId = randomUUID();
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.#options.apiKey}`,
      accept: 'application/json',
      'x-request-id': requestId,
    };
    let body: string | undefined;
    if (request.body !== undefined) {
      body = JSON.stringify(request.body);
      headers['content-type'] = 'application/json';
    }
    if (request.idempotencyKey !== undefined) headers['idempotency-key'] = request.idempotencyKey;

    for (let attempts = 1; ; attempts += 1) {
      const remainingMs = retry.deadlineMs - (clock.monotonic() - startedMs);
      let failure: AnimalStoreError;
      let retryAfterMs: number | undefined;
      let repeatable: boolean;
      try {
        const answer = await this.#attempt(request, headers, body, remainingMs, requestId);
        if (answer.status >= 200 && answer.status < 300) return parseAnswer(answer, requestId, attempts);
        failure = errorFromAnswer(answer.status, answer.text, headerText(answer.headers['x-request-id']) ?? requestId);
        repeatable = RETRYABLE_STATUSES.has(answer.status);
        retryAfterMs = parseRetryAfterMs(headerText(answer.headers['retry-after']), clock.now());
      } catch (error) {
        if (!(error instanceof AnimalStoreError)) throw error;
        failure = error;
        repeatable = error.code === CLIENT_ERROR_CODES.network_error && safeToRepeat(request, error.cause);
      }
      const waitMs = repeatable
        ? nextRetryDelayMs({ attempts, elapsedMs: clock.monotonic() - startedMs, retryAfterMs }, retry, this.#random)
        : undefined;
      if (waitMs === undefined) throw failure.withAttempts(attempts);
      await this.#sleep(waitMs);
    }
  }

  async #attempt(
    request: ApiRequest,
    headers: Record<string, string>,
    body: string | undefined,
    remainingMs: number,
    requestId: string,
  ): Promise<{ status: number; headers: ApiAnswer['headers']; text: string }> {
    if (remainingMs <= 0) throw deadlineError(requestId);
    // The deadline bounds this attempt too: a hung connection must not outlive the call.
    const signal = AbortSignal.timeout(Math.ceil(remainingMs));
    try {
      const response = await this.#options.dispatcher.request({
        origin: this.#options.origin,
        path: request.path,
        method: request.method,
        headers,
        body: body ?? null,
        signal,
      });
      return { status: response.statusCode, headers: response.headers, text: await response.body.text() };
    } catch (error) {
      if (signal.aborted) throw deadlineError(requestId, error);
      throw new AnimalStoreError({
        status: 0,
        code: CLIENT_ERROR_CODES.network_error,
        message: `${request.method} ${request.path} failed before a whole answer arrived: ${(error as Error).message}`,
        requestId,
        cause: error,
      });
    }
  }
}

/**
 * Whether a request that met a network error may be sent again. A GET changes nothing. A POST with
 * an Idempotency-Key is answered from the stored answer if the first attempt did land (see
 * README "Store orders (beta) and safe retries"). A PATCH or DELETE that landed would be refused the
 * second time (409: the order has moved on), so those are repeated only when the connection was never made.
 */
function safeToRepeat(request: ApiRequest, cause: unknown): boolean {
  const code = (cause as { code?: unknown } | undefined)?.code;
  if (code === 'UND_ERR_CLOSED' || code === 'UND_ERR_DESTROYED') return false; // the client was closed: no retry can help
  if (request.method === 'GET') return true;
  if (request.method === 'POST' && request.idempotencyKey !== undefined) return true;
  return typeof code === 'string' && NOT_SENT_CODES.has(code);
}

function parseAnswer(
  answer: { status: number; headers: ApiAnswer['headers']; text: string },
  requestId: string,
  attempts: number,
): ApiAnswer {
  try {
    return {
      status: answer.status,
      headers: answer.headers,
      body: answer.text.length === 0 ? undefined : JSON.parse(answer.text),
    };
  } catch (error) {
    throw new AnimalStoreError({
      status: answer.status,
      code: CLIENT_ERROR_CODES.unexpected_response,
      message: `The server answered ${answer.status} with a body that is not JSON`,
      requestId,
      attempts,
      cause: error,
    });
  }
}

function deadlineError(requestId: string, cause?: unknown): AnimalStoreError {
  return new AnimalStoreError({
    status: 0,
    code: CLIENT_ERROR_CODES.deadline_exceeded,
    message: "The call's deadline passed before an answer arrived; raise retry.deadlineMs or try again later",
    requestId,
    cause,
  });
}

/** The first value of a header undici may give as a list. */
export function headerText(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
