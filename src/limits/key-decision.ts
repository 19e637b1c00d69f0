// The answer to one admission of a key, formed from what any limiter backend reports (the in-memory
// one, or a script run in Redis): the two buckets' levels and the outcome. The answer describes the
// bucket with fewer tokens left; a ban shows that bucket's limit with nothing remaining and the ban's
// end as its reset; a refusal says when a request would next succeed.
import type { BucketState, Decision, QuotaPolicy } from './decision.js';
import type { Limits } from './plans.js';
import { DAY_POLICY, MINUTE_POLICY } from './policies.js';
import { ceilSeconds, retryAfterSeconds } from './seconds.js';
import { wholeTokens } from './token-bucket.js';

/** A bucket as the answer needs it: the tokens it holds now (fractions kept) and the ms until it is full. */
export interface BucketLevel {
  tokens: number;
  msUntilFull: number;
}

/** What one admission of a key came to, before it is told in whole numbers. */
export type KeyAdmission =
  | { outcome: 'admitted'; minute: BucketLevel; day: BucketLevel }
  /** `waitMs`: until the next request would succeed (a ban this refusal started included). */
  | { outcome: 'refused'; minute: BucketLevel; day: BucketLevel; waitMs: number; banStarted?: boolean }
  /** `banLeftMs`: until the ban ends. */
  | { outcome: 'banned'; minute: BucketLevel; day: BucketLevel; banLeftMs: number };

/** The decision of `admission` for a key with `limits` and `policies` (its own), at wall time `wallMs`. */
export function keyDecision(
  admission: KeyAdmission,
  limits: Limits,
  policies: readonly QuotaPolicy[],
  wallMs: number,
): Decision {
  switch (admission.outcome) {
    case 'admitted':
      return { allowed: true, bucket: fewerLeft(admission.minute, admission.day, limits, wallMs), policies };
    case 'refused': {
      const decision: Decision = {
        allowed: false,
        refusal: 'rate_limited',
        retryAfterSeconds: retryAfterSeconds(admission.waitMs),
        bucket: fewerLeft(admission.minute, admission.day, limits, wallMs),
        policies,
      };
      if (admission.banStarted === true) decision.banStarted = true;
      return decision;
    }
    case 'banned': {
      const usual = fewerLeft(admission.minute, admission.day, limits, wallMs);
      return {
        allowed: false,
        refusal: 'temporarily_banned',
        retryAfterSeconds: retryAfterSeconds(admission.banLeftMs),
        bucket: bucketState(usual.policy, usual.limit, 0, admission.banLeftMs, wallMs),
        policies,
      };
    }
  }
}

/** A bucket as clients are told of it: `resetInMs` from wall time `wallMs`, both in whole seconds rounded up. */
export function bucketState(
  policy: string,
  limit: number,
  remaining: number,
  resetInMs: number,
  wallMs: number,
): BucketState {
  return {
    policy,
    limit,
    remaining,
    resetAtSeconds: ceilSeconds(wallMs + resetInMs),
    resetInSeconds: ceilSeconds(resetInMs),
  };
}

/**
 * The bucket the answer describes: the one with fewer tokens left, compared as the buckets hold them,
 * fractions included; on an exact tie, the one full again later.
 */
function fewerLeft(minute: BucketLevel, day: BucketLevel, limits: Limits, wallMs: number): BucketState {
  if (day.tokens < minute.tokens || (day.tokens === minute.tokens && day.msUntilFull > minute.msUntilFull))
    return bucketState(DAY_POLICY, limits.perDay, wholeTokens(day), day.msUntilFull, wallMs);
  return bucketState(MINUTE_POLICY, limits.perMinute, wholeTokens(minute), minute.msUntilFull, wallMs);
}
