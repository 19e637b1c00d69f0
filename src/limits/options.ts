// The limiter's tunables (README "Rate limits": "both numbers configurable", "30 refilled continuously over
// 60 s (configurable)", "the per-address table is bounded in memory"), their defaults, and their
// validation: a bad option is a programmer error and throws a TypeError naming it.

/** Options of the RateLimiter; every one has the default of README "Rate limits". */
export interface LimiterOptions {
  /** Refusals tolerated within `refusalWindowMs`; the next one starts a ban. Default 30. */
  refusalsBeforeBan?: number;
  /** The window refusals are counted in, in ms. Default 60,000. */
  refusalWindowMs?: number;
  /** Length of a ban, in ms. Default 900,000 (15 minutes). */
  banMs?: number;
  /** Failed authentications an address may make in a burst. Default 30. */
  failedAuthCapacity?: number;
  /** The window the failed-auth bucket refills its whole capacity over, in ms. Default 60,000. */
  failedAuthWindowMs?: number;
  /** Bound of the per-address table (least recently used address evicted first). Default 10,000. */
  maxAddresses?: number;
}

/** LimiterOptions with every default applied. */
export type ResolvedLimiterOptions = Required<LimiterOptions>;

/** README "Rate limits": "the 31st refusal of a key within 60 s" starts a ban. */
export const DEFAULT_REFUSALS_BEFORE_BAN = 30;
/** README "Rate limits": refusals are counted within 60 s. */
export const DEFAULT_REFUSAL_WINDOW_MS = 60_000;
/** README "Rate limits": "a ban of 15 minutes". */
export const DEFAULT_BAN_MS = 900_000;
/** README "Rate limits": "a bucket of 30 refilled continuously over 60 s". */
export const DEFAULT_FAILED_AUTH_CAPACITY = 30;
/** README "Rate limits": the failed-auth bucket refills over 60 s. */
export const DEFAULT_FAILED_AUTH_WINDOW_MS = 60_000;
/**
 * Bound of the per-address table. An entry (Map slot, list node, bucket, address string) measured
 * about 280 bytes with IPv6 addresses, so 10,000 entries stay under 3 MB.
 */
export const DEFAULT_MAX_ADDRESSES = 10_000;
/**
 * Upper bound on refusalsBeforeBan: the refusal window keeps the last N+1 refusal times of a key
 * that has been refused (8 bytes each), so N bounds that memory (8 KB per key at most).
 */
export const MAX_REFUSALS_BEFORE_BAN = 1_000;

/** Applies the defaults and validates; throws a TypeError naming the first bad option. */
export function resolveLimiterOptions(options: LimiterOptions = {}): ResolvedLimiterOptions {
  return {
    refusalsBeforeBan: integerOption(
      'refusalsBeforeBan',
      options.refusalsBeforeBan,
      DEFAULT_REFUSALS_BEFORE_BAN,
      0,
      MAX_REFUSALS_BEFORE_BAN,
    ),
    refusalWindowMs: integerOption('refusalWindowMs', options.refusalWindowMs, DEFAULT_REFUSAL_WINDOW_MS, 1),
    banMs: integerOption('banMs', options.banMs, DEFAULT_BAN_MS, 1),
    failedAuthCapacity: integerOption(
      'failedAuthCapacity',
      options.failedAuthCapacity,
      DEFAULT_FAILED_AUTH_CAPACITY,
      1,
    ),
    failedAuthWindowMs: integerOption(
      'failedAuthWindowMs',
      options.failedAuthWindowMs,
      DEFAULT_FAILED_AUTH_WINDOW_MS,
      1,
    ),
    maxAddresses: integerOption('maxAddresses', options.maxAddresses, DEFAULT_MAX_ADDRESSES, 1),
  };
}

function integerOption(
  name: string,
  value: number | undefined,
  fallback: number,
  min: number,
  max = Number.MAX_SAFE_INTEGER,
): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > max) {
    throw new TypeError(`limiter option ${name} must be a whole number from ${min} to ${max}; got ${String(value)}`);
  }
  return value;
}
