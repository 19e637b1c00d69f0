// The quota policies of README "Rate limits", as numbers: a key's minute and day buckets, and the
// per-address failed-authentication bucket. One array per distinct set of limits is handed out (not a
// new one per request, nor one per key), so that whatever is formed from it can be kept by identity.
import type { QuotaPolicy } from './decision.js';
import { DAY_MS, type Limits, MINUTE_MS } from './plans.js';
import { ceilSeconds } from './seconds.js';

/** The policy names clients see (README "Rate limits"). */
export const MINUTE_POLICY = 'minute';
export const DAY_POLICY = 'day';
export const FAILED_AUTH_POLICY = 'failed-auth';

/** Key policies by their limits, shared by every key with the same limits (one set per plan, mostly). */
const keyPoliciesByLimits = new Map<string, readonly QuotaPolicy[]>();
/** Distinct limits kept at most; past that the table starts afresh (enterprise keys each bring their own). */
const MAX_KEPT_LIMITS = 1024;

/** A key's policies: its minute bucket, then its day bucket, with the quotas of `limits`. */
export function keyPolicies(limits: Limits): readonly QuotaPolicy[] {
  const id = `${limits.perMinute}/${limits.perDay}`;
  let policies = keyPoliciesByLimits.get(id);
  if (policies === undefined) {
    if (keyPoliciesByLimits.size >= MAX_KEPT_LIMITS) keyPoliciesByLimits.clear();
    policies = Object.freeze([
      Object.freeze({ name: MINUTE_POLICY, quota: limits.perMinute, windowSeconds: MINUTE_MS / 1000 }),
      Object.freeze({ name: DAY_POLICY, quota: limits.perDay, windowSeconds: DAY_MS / 1000 }),
    ]);
    keyPoliciesByLimits.set(id, policies);
  }
  return policies;
}

/** The per-address failed-authentication policy: `capacity` per `windowMs`, the window in whole seconds. */
export function failedAuthPolicies(capacity: number, windowMs: number): readonly QuotaPolicy[] {
  // A window is told in whole seconds; one configured in odd milliseconds is rounded up.
  const windowSeconds = Math.max(1, ceilSeconds(windowMs));
  return Object.freeze([Object.freeze({ name: FAILED_AUTH_POLICY, quota: capacity, windowSeconds })]);
}
