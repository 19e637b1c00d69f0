// The answer to one admission of a key, formed from what any limiter backend reports (the in-memory
// one, or a script run in Redis): the two buckets' levels and the outcome. The headers describe the
// bucket with fewer tokens left; a ban shows that bucket's limit with nothing remaining and the ban's
// end as its reset; a refusal carries Retry-After, the wait until a request would succeed.
import type { Decision } from './decision.js';
import type { Limits } from './plans.js';
import { type HeaderView, rateLimitHeaders, retryAfterSeconds } from './rate-limit-headers.js';
import { wholeTokens } from './token-bucket.js';

/** A bucket as the headers need it: the tokens it holds now (fractions kept) and the ms until it is full. */
export interface BucketLevel {
  tokens: number;
  msUntilFull: number;
}

/** What one admission of a key came to, before headers are formed. */
export type KeyAdmission =
  | { outcome: 'admitted'; minute: BucketLevel; day: BucketLevel }
  /** `waitMs`: until the next request would succeed (a ban this refusal started included). */
  | { outcome: 'refused'; minute: BucketLevel; day: BucketLevel; waitMs: number; banStarted?: boolean }
  /** `banLeftMs`: until the ban ends. */
  | { outcome: 'banned'; minute: BucketLevel; day: BucketLevel; banLeftMs: number };

/** The decision and headers of `admission` for a key with `limits`; `policy` is its RateLimit-Policy value. */
export function keyDecision(admission: KeyAdmission, limits: Limits, policy: string, wallMs: number): Decision {
  const usual = view(admission.minute, admission.day, limits);
  switch (admission.outcome) {
    case 'admitted':
      return { allowed: true, headers: rateLimitHeaders(usual, policy, wallMs) };
    case 'refused': {
      const retryAfter = retryAfterSeconds(admission.waitMs);
      const decision: Decision = {
        allowed: false,
        code: 'rate_limited',
        retryAfterSeconds: retryAfter,
        headers: rateLimitHeaders(usual, policy, wallMs, retryAfter),
      };
      if (admission.banStarted === true) decision.banStarted = true;
      return decision;
    }
    case 'banned': {
      const retryAfter = retryAfterSeconds(admission.banLeftMs);
      const banView: HeaderView = { ...usual, remaining: 0, resetInMs: admission.banLeftMs };
      return {
        allowed: false,
        code: 'temporarily_banned',
        retryAfterSeconds: retryAfter,
        headers: rateLimitHeaders(banView, policy, wallMs, retryAfter),
      };
    }
  }
}

/**
 * The bucket the headers describe: the one with fewer tokens left, compared as the buckets hold them,
 * fractions included; on an exact tie, the one full again later.
 */
function view(minute: BucketLevel, day: BucketLevel, limits: Limits): HeaderView {
  if (day.tokens < minute.tokens || (day.tokens === minute.tokens && day.msUntilFull > minute.msUntilFull)) {
    return { policyName: 'day', limit: limits.perDay, remaining: wholeTokens(day), resetInMs: day.msUntilFull };
  }
  return {
    policyName: 'minute',
    limit: limits.perMinute,
    remaining: wholeTokens(minute),
    resetInMs: minute.msUntilFull,
  };
}
