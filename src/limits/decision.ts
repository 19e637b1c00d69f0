// What the limiter answers, in numbers only (README "Rate limits"): allowed or refused and why, the
// bucket the client is told of, the wait before a retry, and the quota policies in force. How these
// become header fields (X-RateLimit-*, RateLimit-Policy, RateLimit, Retry-After) and 429 messages is
// HTTP's business (src/http/rate-limit-headers.ts), as rate-limiter-flexible's RateLimiterRes leaves
// its headers to the web framework: a limiter backend never needs to know HTTP field syntax.

/** Why a request was refused (README "Errors": both are 429). */
export type Refusal = 'rate_limited' | 'temporarily_banned';

/** One quota policy: `quota` requests per `windowSeconds`, known to clients by `name`. */
export interface QuotaPolicy {
  /** "minute", "day" or "failed-auth". */
  readonly name: string;
  readonly quota: number;
  readonly windowSeconds: number;
}

/** The bucket an answer describes: the key's bucket with fewer tokens left, or the address's bucket. */
export interface BucketState {
  /** The name of the policy it belongs to (one of `Decision.policies`). */
  readonly policy: string;
  /** Its capacity, in requests. */
  readonly limit: number;
  /** Whole tokens left after this request; 0 during a ban. */
  readonly remaining: number;
  /** Unix time in seconds, rounded up, at which it is full again (during a ban: the ban's end). */
  readonly resetAtSeconds: number;
  /** Seconds from now until then, rounded up on their own (not `resetAtSeconds` minus the time now). */
  readonly resetInSeconds: number;
}

/** The outcome of one admission, charge or check. */
export interface Decision {
  allowed: boolean;
  /** Set when refused. */
  refusal?: Refusal;
  /** True on the refusal that started a ban (it is still a plain rate_limited refusal). */
  banStarted?: boolean;
  /** Set when refused: when a request would next succeed, in whole seconds, at least 1. */
  retryAfterSeconds?: number;
  /** The bucket to tell the client of; absent when the limiter could not be asked (then nothing is told). */
  bucket?: BucketState;
  /**
   * Every policy of the key or address. A limiter hands out the same array for the same limits, so
   * that what is formed from it can be kept by identity.
   */
  policies: readonly QuotaPolicy[];
}

/** The answer of a limiter that could not be asked and lets requests through without limits. */
export const UNLIMITED: Readonly<Decision> = Object.freeze({ allowed: true, policies: Object.freeze([]) });
