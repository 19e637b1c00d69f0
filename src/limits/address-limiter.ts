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

import type { Clock } from '../core/clock.js';
import type { Decision, QuotaPolicy } from './decision.js';
import { bucketState } from './key-decision.js';
import { LruTable } from './lru-table.js';
import type { ResolvedLimiterOptions } from './options.js';
import { FAILED_AUTH_POLICY, failedAuthPolicies } from './policies.js';
import { retryAfterSeconds } from './seconds.js';
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

/** The per-address failed-authentication limit, in a bounded LRU table. */
export class AddressLimiter {
  readonly #clock: Clock;
  readonly #capacity: number;
  readonly #windowMs: number;
  readonly #policies: readonly QuotaPolicy[];
  readonly #buckets: LruTable<TokenBucket>;

  constructor(clock: Clock, options: AddressLimiterOptions) {
    this.#clock = clock;
    this.#capacity = options.failedAuthCapacity;
    this.#windowMs = options.failedAuthWindowMs;
    this.#buckets = new LruTable(options.maxAddresses);
    this.#policies = failedAuthPolicies(this.#capacity, this.#windowMs);
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
    return addressDecision(bucket, this.#capacity, this.#windowMs, this.#policies, this.#clock.now(), true);
  }

  /** Takes one token for a 401 and tells of the bucket for that answer; `allowed` is true, as the 401 is the answer. */
  charge(address: string): Decision {
    const nowMs = this.#clock.monotonic();
    let bucket = this.#buckets.get(address);
    if (bucket === undefined) bucket = fullBucket(this.#capacity, nowMs);
    else refill(bucket, this.#capacity, this.#windowMs, nowMs);
    takeToken(bucket);
    this.#buckets.set(address, bucket);
    return addressDecision(bucket, this.#capacity, this.#windowMs, this.#policies, this.#clock.now(), false);
  }
}

/**
 * The decision about an address whose failed-authentication bucket holds `bucket.tokens` (refilled up
 * to now) of `capacity` over `windowMs`: a refusal (`refused`), waiting until one token is back, or
 * the bucket as a 401 tells of it. Shared by every limiter backend, so they answer alike.
 */
export function addressDecision(
  bucket: TokenBucket,
  capacity: number,
  windowMs: number,
  policies: readonly QuotaPolicy[],
  wallMs: number,
  refused: boolean,
): Decision {
  const state = bucketState(
    FAILED_AUTH_POLICY,
    capacity,
    wholeTokens(bucket),
    msUntilFull(bucket, capacity, windowMs),
    wallMs,
  );
  if (!refused) return { allowed: true, bucket: state, policies };
  return {
    allowed: false,
    refusal: 'rate_limited',
    retryAfterSeconds: retryAfterSeconds(msUntilToken(bucket, capacity, windowMs)),
    bucket: state,
    policies,
  };
}

/**
 * Whether a refusal of `Limiter.admit` is the client address's (its failed-authentication bucket is
 * empty: the request was refused whatever its key) rather than the key's own limits'.
 */
export function isAddressRefusal(decision: Decision): boolean {
  return !decision.allowed && decision.bucket?.policy === FAILED_AUTH_POLICY;
}
