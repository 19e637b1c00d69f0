// When to send a refused request again, as pure arithmetic: exponential backoff with full jitter,
// never sooner than the server's Retry-After, and never past the call's total deadline. No clock,
// no timer and no randomness of its own: the client passes them in, so tests need no real waiting.

/** How a client retries 429 and 503 answers (and network errors where repeating is safe). */
export interface RetryPolicy {
  /** Most requests per call, the first one included; 1 turns retries off. */
  maxAttempts: number;
  /** The first backoff's upper bound; each retry doubles it. */
  baseDelayMs: number;
  /** The largest backoff drawn (a longer Retry-After is still honoured). */
  maxDelayMs: number;
  /** The whole call, every attempt and wait included, gives up after this long. */
  deadlineMs: number;
}

/**
 * Five attempts over at most a minute: enough to ride out a minute bucket's refill (free plan:
 * one token a second, so Retry-After is usually 1) or a storage hiccup (the service asks for 5 s),
 * short enough that an interactive caller hears back.
 */
export const DEFAULT_RETRY_POLICY: Readonly<RetryPolicy> = Object.freeze({
  maxAttempts: 5,
  baseDelayMs: 200,
  maxDelayMs: 20_000,
  deadlineMs: 60_000,
});

/** The default policy with `overrides`; a value that is not a usable number is a TypeError naming the option. */
export function resolveRetryPolicy(overrides: Partial<RetryPolicy> | false | undefined): RetryPolicy {
  if (overrides === false) return { ...DEFAULT_RETRY_POLICY, maxAttempts: 1 };
  const policy = { ...DEFAULT_RETRY_POLICY, ...overrides };
  if (!Number.isInteger(policy.maxAttempts) || policy.maxAttempts < 1) {
    throw new TypeError(`retry.maxAttempts must be a whole number of at least 1, not ${String(policy.maxAttempts)}`);
  }
  for (const name of ['baseDelayMs', 'maxDelayMs'] as const) {
    const value = policy[name];
    if (!Number.isFinite(value) || value < 0)
      throw new TypeError(`retry.${name} must be a number of milliseconds ≥ 0, not ${String(value)}`);
  }
  if (!Number.isFinite(policy.deadlineMs) || policy.deadlineMs <= 0) {
    throw new TypeError(`retry.deadlineMs must be a number of milliseconds > 0, not ${String(policy.deadlineMs)}`);
  }
  return policy;
}

/**
 * The backoff before retry number `retry` (0 for the first): a uniform draw in
 * [0, min(maxDelayMs, baseDelayMs · 2^retry)). Full jitter spreads clients refused together over the
 * whole window, which clears a crowd fastest (AWS Architecture Blog, "Exponential Backoff and Jitter").
 */
export function backoffDelayMs(
  retry: number,
  policy: Pick<RetryPolicy, 'baseDelayMs' | 'maxDelayMs'>,
  random: () => number,
): number {
  // 2^retry overflows to Infinity past ~1024 retries; min() keeps it bounded all the same.
  const ceilingMs = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** retry);
  return Math.floor(random() * ceilingMs);
}

const DELAY_SECONDS = /^[0-9]+$/;

/**
 * Milliseconds to wait according to a Retry-After value (RFC 9110 §10.2.3: delay-seconds or an
 * HTTP-date), or undefined when there is none or it cannot be read. A date in the past means now.
 */
export function parseRetryAfterMs(value: string | undefined, nowMs: number): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (DELAY_SECONDS.test(text)) return Number(text) * 1000;
  // Only the date forms: Date.parse alone would also take "1.5" or "2030" as dates.
  if (!/[A-Za-z]/.test(text)) return undefined;
  const atMs = Date.parse(text);
  return Number.isNaN(atMs) ? undefined : Math.max(0, atMs - nowMs);
}

/** Where a call stands after a failed attempt. */
export interface RetryState {
  /** Requests sent so far for this call (1 after the first). */
  attempts: number;
  /** Time since the call began. */
  elapsedMs: number;
  /** What the answer's Retry-After asked for, if anything. */
  retryAfterMs: number | undefined;
}

/**
 * How long to wait before the next attempt, or undefined to give up: when the attempts are used up,
 * or when waiting would reach the deadline (a request sent then would have no time left to finish).
 * The wait is the jittered backoff, but never shorter than Retry-After: an earlier request is
 * refused again and, on a rate limit, counts towards a ban (README "Rate limits").
 */
export function nextRetryDelayMs(state: RetryState, policy: RetryPolicy, random: () => number): number | undefined {
  if (state.attempts >= policy.maxAttempts) return undefined;
  const delayMs = Math.max(state.retryAfterMs ?? 0, backoffDelayMs(state.attempts - 1, policy, random));
  if (state.elapsedMs + delayMs >= policy.deadlineMs) return undefined;
  return delayMs;
}
