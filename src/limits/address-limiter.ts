// Failed authentication per client address (README "Rate limits"): a bucket of `failedAuthCapacity`
// refilled continuously over `failedAuthWindowMs`, one token per 401. While an address's bucket
// holds less than one token, every API request from it is refused with `rate_limited` before its
// key is looked at, so keys cannot be guessed at speed.
//
// The table is bounded at `maxAddresses` entries, least recently used evicted first (lru-table.ts,
// O(1) per operation). An evicted address, like one never seen, starts full; and a bucket found
// full again is dropped at once, so only addresses with recent failures take room. A refused
// address that keeps knocking stays recent, so a flood of new addresses evicts the quiet ones first.
// Which string identifies an address (socket address, trusted X-Forwarded-For, an IPv6 /64) is
// the caller's choice.

import type { Clock } from '../clock.js';
import type { Decision } from './decision.js';
import { LruTable } from './lru-table.js';
import type { ResolvedLimiterOptions } from './options.js';
import type { HeaderView } from './rate-limit-headers.js';
import { failedAuthPolicy, rateLimitHeaders, retryAfterSeconds } from './rate-limit-headers.js';
import type { TokenBucket } from './token-bucket.js';
import {
  fullBucket,
  hasToken,
  isFull,
  msUntilFull,
  msUntilToken,
  refill,
  takeToken,
  wholeTokens,
} from './token-bucket.js';

/** The options the address limiter uses. */
export type AddressLimiterOptions = Pick<
  ResolvedLimiterOptions,
  'failedAuthCapacity' | 'failedAuthWindowMs' | 'maxAddresses'
>;

/** The policy name of the failed-authentication bucket in RateLimit and RateLimit-Policy (README "Rate limits"). */
export const FAILED_AUTH_POLICY_NAME = 'failed-auth';

/** The per-address failed-authentication limit, in a bounded LRU table. */
export class AddressLimiter {
  readonly #clock: Clock;
  readonly #capacity: number;
  readonly #windowMs: number;
  readonly #policy: string;
  readonly #buckets: LruTable<TokenBucket>;

  constructor(clock: Clock, options: AddressLimiterOptions) {
    this.#clock = clock;
    this.#capacity = options.failedAuthCapacity;
    this.#windowMs = options.failedAuthWindowMs;
    this.#buckets = new LruTable(options.maxAddresses);
    this.#policy = failedAuthPolicy(this.#capacity, this.#windowMs);
  }

  /** Number of addresses in the table (at most maxAddresses). */
  get size(): number {
    return this.#buckets.size;
  }

  /** Refuses (`rate_limited`) while the address's bucket is empty; takes nothing. `undefined` = go on. */
  check(address: string): Decision | undefined {
    const bucket = this.#buckets.get(address);
    if (bucket === undefined) return undefined;
    const nowMs = this.#clock.monotonic();
    refill(bucket, this.#capacity, this.#windowMs, nowMs);
    if (isFull(bucket, this.#capacity)) {
      this.#buckets.delete(address);
      return undefined;
    }
    if (hasToken(bucket)) return undefined;
    this.#buckets.touch(address);
    const retryAfter = retryAfterSeconds(msUntilToken(bucket, this.#capacity, this.#windowMs));
    return {
      allowed: false,
      code: 'rate_limited',
      retryAfterSeconds: retryAfter,
      headers: rateLimitHeaders(this.#view(bucket), this.#policy, this.#clock.now(), retryAfter),
    };
  }

  /** Takes one token for a 401 and returns that answer's headers; `allowed` is true, as the 401 is the answer. */
  charge(address: string): Decision {
    const nowMs = this.#clock.monotonic();
    let bucket = this.#buckets.get(address);
    if (bucket === undefined) bucket = fullBucket(this.#capacity, nowMs);
    else refill(bucket, this.#capacity, this.#windowMs, nowMs);
    takeToken(bucket);
    this.#buckets.set(address, bucket);
    return { allowed: true, headers: rateLimitHeaders(this.#view(bucket), this.#policy, this.#clock.now()) };
  }

  #view(bucket: TokenBucket): HeaderView {
    return {
      policyName: FAILED_AUTH_POLICY_NAME,
      limit: this.#capacity,
      remaining: wholeTokens(bucket),
      resetInMs: msUntilFull(bucket, this.#capacity, this.#windowMs),
    };
  }
}
