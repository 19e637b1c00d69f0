// A token bucket refilled continuously and lazily (README "Rate limits"): `tokens` is a float, brought up to
// date on access from a monotonic time in ms, so no timer runs per bucket and a wall-clock step can
// neither create nor destroy tokens. The bucket holds no capacity of its own: callers pass the
// capacity and window in force, so a plan change takes effect on the next access (tokens are
// clamped to the new capacity, never raised).

/** A bucket's state: how many tokens it held at monotonic time `atMs`. */
export interface TokenBucket {
  tokens: number;
  atMs: number;
}

/**
 * Slack for float rounding, in tokens. Refill adds `elapsed * capacity / window`, which is not
 * always exact in binary; without slack, 0.9999999999 tokens would refuse a request that is due
 * and turn a 1 s Retry-After into 2 s. A billionth of a token is far below anything observable.
 */
export const TOKEN_EPSILON = 1e-9;

/** A full bucket as of monotonic time `nowMs`. */
export function fullBucket(capacity: number, nowMs: number): TokenBucket {
  return { tokens: capacity, atMs: nowMs };
}

/** Brings `bucket` up to monotonic time `nowMs`: adds what the window refills, never beyond capacity. */
export function refill(bucket: TokenBucket, capacity: number, windowMs: number, nowMs: number): void {
  // A clock that goes back (it should not) earns nothing, and the time already credited is kept,
  // so the same interval is never credited twice.
  const elapsedMs = nowMs > bucket.atMs ? nowMs - bucket.atMs : 0;
  // Multiply before dividing: with integer ms, 1000 * 60 / 60000 is exactly 1.
  const tokens = bucket.tokens + (elapsedMs * capacity) / windowMs;
  bucket.tokens = Math.min(tokens, capacity);
  if (nowMs > bucket.atMs) bucket.atMs = nowMs;
}

/** Whether the bucket holds at least one whole token. */
export function hasToken(bucket: TokenBucket): boolean {
  return bucket.tokens >= 1 - TOKEN_EPSILON;
}

/** Takes one token; never leaves a negative count. */
export function takeToken(bucket: TokenBucket): void {
  const tokens = bucket.tokens - 1;
  bucket.tokens = Math.max(tokens, 0);
}

/** Gives back a token taken for a request that turned out not to count; never beyond capacity. */
export function returnToken(bucket: TokenBucket, capacity: number): void {
  const tokens = bucket.tokens + 1;
  bucket.tokens = Math.min(tokens, capacity);
}

/** Whole tokens left (floor), never negative: the number a client may still send at once. */
export function wholeTokens(bucket: Pick<TokenBucket, 'tokens'>): number {
  const whole = Math.floor(bucket.tokens + TOKEN_EPSILON);
  return Math.max(whole, 0);
}

/** Milliseconds until the bucket holds one whole token (0 when it already does). */
export function msUntilToken(bucket: TokenBucket, capacity: number, windowMs: number): number {
  if (hasToken(bucket)) return 0;
  return ((1 - bucket.tokens) * windowMs) / capacity;
}

/** Milliseconds until the bucket is full again (0 when it is). */
export function msUntilFull(bucket: TokenBucket, capacity: number, windowMs: number): number {
  const missing = capacity - bucket.tokens;
  if (missing <= TOKEN_EPSILON) return 0;
  return (missing * windowMs) / capacity;
}

/** Whether the bucket is full, so that forgetting it loses nothing (an absent bucket starts full). */
export function isFull(bucket: TokenBucket, capacity: number): boolean {
  return bucket.tokens >= capacity - TOKEN_EPSILON;
}
