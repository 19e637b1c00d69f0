// The public surface of the rate limiter for the rest of the service: the Limiter seam, its in-memory
// implementation, plans and options. Its parts import each other directly; code outside src/limits/
// imports it through this file (test/architecture/layers.test.ts), except the Redis limiter in
// limits/redis/, loaded only when a Redis URL is configured.

export type { BucketState, Decision, QuotaPolicy, Refusal } from './decision.js';
export { isAddressRefusal } from './address-limiter.js';
export type { SavedLimiterState } from './limiter-state.js';
export type { LimiterOptions } from './options.js';
export { MAX_REFUSALS_BEFORE_BAN, resolveLimiterOptions } from './options.js';
export type { Limits, PlanName } from './plans.js';
export { DAY_MS, isLimit, limitsOf, PLAN_LIMITS } from './plans.js';
export type { Limiter } from './limiter.js';
export { MemoryLimiter } from './memory-limiter.js';
