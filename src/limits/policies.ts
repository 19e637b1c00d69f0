// The quota policies of README "Rate limits", as numbers: a key's minute and day buckets, and the
// per-address failed-authentication bucket. A limiter hands out one array per distinct set of limits
// (not a new one per request), so that whatever is formed from it can be kept by identity.
import type { QuotaPolicy } from './decision.js';
import { DAY_MS, type Limits, MINUTE_MS } from './plans.js';
import { ceilSeconds } from './seconds.js';

/** The policy names clients see (README "Rate limits"). */
export const MINUTE_POLICY = 'minute';
export const DAY_POLICY = 'day';
export const FAILED_AUTH_POLICY = 'failed-auth';

/** A key's policies: its minute bucket, then its day bucket, with the quotas of `limits`. */
export function keyPolicies(limits: Limits): readonly QuotaPolicy[] {
  return Object.freeze([
    Object.freeze({ name: MINUTE_POLICY, quota: limits.perMinute, windowSeconds: MINUTE_MS / 1000 }),
    Object.freeze({ name: DAY_POLICY, quota: limits.perDay, windowSeconds: DAY_MS / 1000 }),
  ]);
}

/** The per-address failed-authentication policy: `capacity` per `windowMs`, the window in whole seconds. */
export function failedAuthPolicies(capacity: number, windowMs: number): readonly QuotaPolicy[] {
  // A window is told in whole seconds; one configured in odd milliseconds is rounded up.
  const windowSeconds = Math.max(1, ceilSeconds(windowMs));
  return Object.freeze([Object.freeze({ name: FAILED_AUTH_POLICY, quota: capacity, windowSeconds })]);
}

/** The policies of the limits last asked for, kept until other limits are asked for. */
export class KeyPoliciesMemo {
  #perMinute = 0;
  #perDay = 0;
  #policies: readonly QuotaPolicy[] = [];

  /** The policies of `limits`: the same array as last time when the limits are the same. */
  of(limits: Limits): readonly QuotaPolicy[] {
    if (this.#perMinute !== limits.perMinute || this.#perDay !== limits.perDay) {
      this.#policies = keyPolicies(limits);
      this.#perMinute = limits.perMinute;
      this.#perDay = limits.perDay;
    }
    return this.#policies;
  }
}
