// The public surface of the rate limiter: the Limiter seam, its in-memory implementation, plans and options.

export type { Decision, Header, RefusalCode } from './decision.js';
export type { SavedBan, SavedDayBucket, SavedLimiterState } from './limiter-state.js';
export { LIMITER_STATE_VERSION } from './limiter-state.js';
export type { LimiterOptions, ResolvedLimiterOptions } from './options.js';
export {
  DEFAULT_BAN_MS,
  DEFAULT_FAILED_AUTH_CAPACITY,
  DEFAULT_FAILED_AUTH_WINDOW_MS,
  DEFAULT_MAX_ADDRESSES,
  DEFAULT_REFUSAL_WINDOW_MS,
  DEFAULT_REFUSALS_BEFORE_BAN,
  resolveLimiterOptions,
} from './options.js';
export type { Limits, PlanName } from './plans.js';
export { assertLimits, DAY_MS, isLimit, limitsOf, MINUTE_MS, PLAN_LIMITS } from './plans.js';
export type { KeyAdmission, BucketLevel } from './key-decision.js';
export { keyDecision } from './key-decision.js';
export type { Limiter } from './limiter.js';
export { MemoryLimiter } from './memory-limiter.js';
