// Admission of an API request, in the order README "Rate limits" gives: the client address's
// failed-authentication budget, then the key (401), then the key's limits (429), then whether the
// service can take the request now (503). Every answer from the limiter on carries its rate-limit
// fields. A limiter that decides in memory answers at once and one in Redis with a promise; only a
// promise is waited for, so that a request decided in memory takes no turn of the microtask queue.
import type { IncomingMessage } from 'node:http';
import { type Awaitable, isPending } from '../core/awaitable.js';
import { ApiError } from '../core/errors.js';
import type { ApiKey } from '../keys/api-key.js';
import type { Decision, Limiter } from '../limits/index.js';
import { authenticate, type KeyLookup } from './authorization.js';
import { clientAddress } from './client-address.js';
import { setRateLimitHeaders } from './rate-limit-headers.js';
import { failedAuthRefusal, keyRefusal } from './rate-limit-refusals.js';
import type { RequestObserver } from './request-observer.js';
import type { ResponseHeaders } from './response-headers.js';

/** What admission decides with. */
export interface AdmissionOptions {
  keys: KeyLookup;
  limiter: Limiter;
  trustProxy: boolean;
  /** API requests allowed in flight at once; more are refused at once with 503 rather than queued. */
  maxInFlight: number;
  /** False once a graceful stop has begun: new API requests are refused with 503. */
  isAccepting(): boolean;
  observe: RequestObserver | undefined;
}

/** Authentication, rate limits and capacity. */
export class Admission {
  readonly #options: AdmissionOptions;

  constructor(options: AdmissionOptions) {
    this.#options = options;
  }

  /**
   * The key `req` authenticates with. Refused with 429 while its address is out of failed
   * authentications, and with 401 (which is charged to the address) without a usable key.
   */
  authenticate(req: IncomingMessage, headers: ResponseHeaders): Awaitable<ApiKey> {
    const address = clientAddress(req, this.#options.trustProxy);
    const checked = this.#options.limiter.checkAddress(address);
    if (isPending(checked)) return checked.then((refusal) => this.#authenticate(req, headers, address, refusal));
    return this.#authenticate(req, headers, address, checked);
  }

  /** Takes the request from `key`'s limits, or refuses it with 429; its rate-limit fields go on `headers`. */
  admit(key: ApiKey, headers: ResponseHeaders): Awaitable<void> {
    const decided = this.#options.limiter.admitKey(key.id, key);
    if (isPending(decided)) return decided.then((decision) => this.#admit(decision, headers));
    this.#admit(decided, headers);
    return undefined;
  }

  /** Gives back what `admit` took, for a request that counts against no key after all (Node's 408). */
  async refund(key: ApiKey): Promise<void> {
    await this.#options.limiter.refundKey(key.id, key);
  }

  /**
   * Refuses with 503 while the service stops, or when more than `maxInFlight` requests (this one
   * included) are in flight. Checked after the limits, so these 503s count and carry the rate-limit
   * fields like any answer.
   */
  assertCapacity(inFlight: number): void {
    if (!this.#options.isAccepting()) {
      throw new ApiError('unavailable', 'The service is stopping; retry on another instance or shortly', undefined, {
        retryAfterSeconds: 1,
        headers: { connection: 'close' },
      });
    }
    const { maxInFlight } = this.#options;
    if (inFlight > maxInFlight) {
      this.#options.observe?.shed();
      throw new ApiError(
        'unavailable',
        `The service is at capacity (${maxInFlight} requests in flight); retry after the Retry-After seconds`,
        undefined,
        { retryAfterSeconds: 1 },
      );
    }
  }

  #authenticate(
    req: IncomingMessage,
    headers: ResponseHeaders,
    address: string,
    refusal: Decision | undefined,
  ): Awaitable<ApiKey> {
    if (refusal !== undefined) {
      this.#options.observe?.refused('rate_limited', false);
      setRateLimitHeaders(headers, refusal);
      throw failedAuthRefusal(refusal);
    }
    try {
      return authenticate(req, this.#options.keys);
    } catch (error) {
      return this.#chargeFailure(address, headers, error);
    }
  }

  /** After a 401: the address pays a token, and the 401 tells of its bucket. */
  async #chargeFailure(address: string, headers: ResponseHeaders, error: unknown): Promise<never> {
    setRateLimitHeaders(headers, await this.#options.limiter.chargeFailedAuth(address));
    throw error;
  }

  #admit(decision: Decision, headers: ResponseHeaders): void {
    setRateLimitHeaders(headers, decision);
    if (!decision.allowed) {
      this.#options.observe?.refused(decision.refusal ?? 'rate_limited', decision.banStarted === true);
      throw keyRefusal(decision);
    }
  }
}
