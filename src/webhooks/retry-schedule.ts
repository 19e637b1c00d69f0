// When a failed webhook delivery is tried again, and when a subscription that keeps failing is
// disabled, as pure arithmetic: no clock, timer or randomness of its own (the caller passes `random`
// and the times), so the whole schedule is testable without waiting.
//
// The schedule follows the Standard Webhooks specification 1.0.0 ("Deliverability and
// reliability"): retries spread over many hours with exponential backoff and random jitter, so that
// receivers that failed together are not hit together again; a Retry-After from a receiver that is
// throttling is taken into account ("Delivery success and failure"), within limits.

/**
 * The waits before each retry, in milliseconds: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h. The
 * first attempt is made at once; with these seven retries the last attempt comes 27 h 35 min 5 s after it.
 */
export const DEFAULT_RETRY_WAITS_MS: readonly number[] = Object.freeze([
  5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000,
]);

/** Each wait is drawn within ±20 % of its scheduled value. */
export const RETRY_JITTER_FRACTION = 0.2;

/** A subscription with no success since a failure this old (5 days) is disabled. */
export const DEFAULT_DISABLE_AFTER_MS = 5 * 24 * 60 * 60 * 1000;

/** Where a delivery stands after a failed attempt. */
export interface NextAttemptInput {
  /** The 1-based number of the attempt that has just failed (1: the first, made at once). */
  attemptNumber: number;
  /** The waits before each retry, in milliseconds; `DEFAULT_RETRY_WAITS_MS` when absent. */
  waitsMs?: readonly number[];
  /** A uniform draw in [0, 1), as Math.random. */
  random: () => number;
  /**
   * What the receiver's Retry-After asked for, in milliseconds (see `parseRetryAfterMs`); only from
   * an answer for which `honoursRetryAfter(status)` holds, otherwise leave it out.
   */
  retryAfterMs?: number | undefined;
}

/** `scheduledMs` moved by up to ±20 %, uniformly by `random()` ∈ [0, 1), in whole milliseconds. */
export function jitteredWaitMs(scheduledMs: number, random: () => number): number {
  return Math.round(scheduledMs * (1 + RETRY_JITTER_FRACTION * (2 * random() - 1)));
}

/**
 * The milliseconds to wait before the next attempt, or undefined when the attempt that has just
 * failed was the last one. The wait is the scheduled one for this retry with ±20 % jitter; with a
 * Retry-After it becomes `min(max(retryAfter, wait), 2 × wait)`: a throttling receiver is given the
 * time it asked for, but never more than twice the schedule, so that one answer cannot stall a
 * subscription for days. An attempt number that is not a whole number ≥ 1 is a TypeError.
 */
export function nextAttemptDelayMs(input: NextAttemptInput): number | undefined {
  const { attemptNumber, waitsMs = DEFAULT_RETRY_WAITS_MS, random, retryAfterMs } = input;
  if (!Number.isSafeInteger(attemptNumber) || attemptNumber < 1) {
    throw new TypeError(`attemptNumber must be a whole number ≥ 1, not ${String(attemptNumber)}`);
  }
  const scheduledMs = waitsMs[attemptNumber - 1];
  if (scheduledMs === undefined) return undefined;
  const waitMs = jitteredWaitMs(scheduledMs, random);
  if (retryAfterMs === undefined) return waitMs;
  return Math.min(Math.max(retryAfterMs, waitMs), 2 * waitMs);
}

/**
 * Whether an answer's Retry-After counts: on 429 Too Many Requests and 503 Service Unavailable,
 * the two statuses for which RFC 9110 §10.2.3 and RFC 6585 §4 give it the meaning "try later".
 */
export function honoursRetryAfter(status: number): boolean {
  return status === 429 || status === 503;
}

/** What is known of a subscription's recent attempts when deciding whether to disable it. */
export interface DisableCheckInput {
  /**
   * Unix milliseconds of the earliest failed attempt made after its latest successful one (or ever,
   * if none succeeded); null or undefined when no attempt has failed since the latest success.
   */
  firstFailureSinceLastSuccessMs: number | null | undefined;
  /** The current time, Unix milliseconds. */
  nowMs: number;
  /** How long failures may last without a success; `DEFAULT_DISABLE_AFTER_MS` when absent. */
  disableAfterMs?: number;
}

/**
 * Whether a subscription must be disabled: it has had no successful attempt since a failure that is
 * at least `disableAfterMs` old. A success ends the run of failures (the caller then passes null),
 * so an endpoint that fails now and then is never disabled, only one that has been failing throughout.
 */
export function mustDisableSubscription(input: DisableCheckInput): boolean {
  const { firstFailureSinceLastSuccessMs, nowMs, disableAfterMs = DEFAULT_DISABLE_AFTER_MS } = input;
  if (firstFailureSinceLastSuccessMs === null || firstFailureSinceLastSuccessMs === undefined) return false;
  return nowMs - firstFailureSinceLastSuccessMs >= disableAfterMs;
}
