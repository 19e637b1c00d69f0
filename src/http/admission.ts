// Admission of an API request, in the order README "Rate limits" gives: the client address's
// failed-authentication budget, then the key (401), then the key's limits (429), then whether the
// service can take the request now (503). Every answer from the limiter on carries its rate-limit
// fields. With a limiter in another process (Redis), the key is found in memory first and the address
// and the key are decided in one call, address first: one round trip a request, not two, and the
// answer to a spent address is the same whatever the key, which pays nothing. A limiter that decides in memory answers at once and one in Redis with a promise; only a
// promise is waited for, so that a request decided in memory takes no turn of the microtask queue.
import type { IncomingMessage } from 'node:http';
import { type Awaitable, isPending } from '../core/awaitable.js';
import { ApiError } from '../core/errors.js';
import type { ApiKey } from '../keys/api-key.js';
import { type Decision, isAddressRefusal, type Limiter } from '../limits/index.js';
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
   * The key `req` authenticates with, its request taken from the key's limits; its rate-limit fields
   * go on `headers`. Refused with 429 while its address is out of failed authentications (the key
   * then pays nothing), with 401 (charged to the address) without a usable key, and with 429 when the
   * key is over its limits.
   */
  admit(req: IncomingMessage, headers: ResponseHeaders): Awaitable<ApiKey> {
    const address = clientAddress(req, this.#options.trustProxy);
    const { limiter } = this.#options;
    // A limiter in another process decides the address and the key in one call (one round trip), so
    // the key is found first; see Limiter.remote.
    if (limiter.remote) return this.#admitInOneCall(req, headers, address);
    const checked = limiter.checkAddress(address);
    if (isPending(checked)) return checked.then((refusal) => this.#afterAddress(req, headers, address, refusal));
    return this.#afterAddress(req, headers, address, checked);
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

  /** After the address's check: its refusal, or the key (401 without one) and the key's limits. */
  #afterAddress(
    req: IncomingMessage,
    headers: ResponseHeaders,
    address: string,
    refusal: Decision | undefined,
  ): Awaitable<ApiKey> {
    if (refusal !== undefined) this.#refuseAddress(refusal, headers);
    let key: ApiKey;
    try {
      key = authenticate(req, this.#options.keys);
    } catch (error) {
      return this.#chargeFailure(address, headers, error);
    }
    const decided = this.#options.limiter.admitKey(key.id, key);
    if (isPending(decided)) return decided.then((decision) => this.#admitted(decision, headers, key));
    return this.#admitted(decided, headers, key);
  }

  /** After a 401: the address pays a token, and the 401 tells of its bucket. */
  async #chargeFailure(address: string, headers: ResponseHeaders, error: unknown): Promise<never> {
    setRateLimitHeaders(headers, await this.#options.limiter.chargeFailedAuth(address));
    throw error;
  }

  /** The key found first, then one call of the limiter: the address's check and the key's admission, or the 401's charge. */
  #admitInOneCall(req: IncomingMessage, headers: ResponseHeaders, address: string): Awaitable<ApiKey> {
    const { limiter } = this.#options;
    let key: ApiKey;
    try {
      key = authenticate(req, this.#options.keys);
    } catch (error) {
      const decided = limiter.refuseAuthentication(address);
      if (isPending(decided)) return decided.then((decision) => this.#unauthenticated(decision, headers, error));
      return this.#unauthenticated(decided, headers, error);
    }
    const decided = limiter.admit(address, key.id, key);
    if (isPending(decided)) return decided.then((decision) => this.#admitted(decision, headers, key));
    return this.#admitted(decided, headers, key);
  }

  /** A request without a usable key: its address's 429 when it is spent, else the 401 with the bucket it was charged to. */
  #unauthenticated(decision: Decision, headers: ResponseHeaders, error: unknown): never {
    if (!decision.allowed) this.#refuseAddress(decision, headers);
    setRateLimitHeaders(headers, decision);
    throw error;
  }

  /** The 429 of an address out of failed authentications. */
  #refuseAddress(decision: Decision, headers: ResponseHeaders): never {
    this.#options.observe?.refused('rate_limited', false);
    setRateLimitHeaders(headers, decision);
    throw failedAuthRefusal(decision);
  }

  /** The key's admission (or, in one call, its address's refusal): the key, or the 429. */
  #admitted(decision: Decision, headers: ResponseHeaders, key: ApiKey): ApiKey {
    if (isAddressRefusal(decision)) this.#refuseAddress(decision, headers);
    setRateLimitHeaders(headers, decision);
    if (!decision.allowed) {
      this.#options.observe?.refused(decision.refusal ?? 'rate_limited', decision.banStarted === true);
      throw keyRefusal(decision);
    }
    return key;
  }
}
