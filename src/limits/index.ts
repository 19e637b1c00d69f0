// The public surface of the rate limiter for the rest of the service: the Limiter seam, its in-memory
// implementation, plans and options. Its parts import each other directly.

export type { BucketState, Decision, QuotaPolicy, Refusal } from './decision.js';
export type { SavedLimiterState } from './limiter-state.js';
export type { LimiterOptions } from './options.js';
export { resolveLimiterOptions } from './options.js';
export type { Limits } from './plans.js';
export { DAY_MS, limitsOf, PLAN_LIMITS } from './plans.js';
export type { Limiter } from './limiter.js';
export { MemoryLimiter } from './memory-limiter.js';
