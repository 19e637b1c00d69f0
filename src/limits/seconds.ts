// Durations as clients are told of them: whole seconds, rounded up (README "Rate limits"), so a client
// that waits the number it was given never comes back early.

/**
 * Float slack when rounding up to seconds, in ms. Durations come from float token arithmetic, so
 * an exact 60 s can come out as 60000.00000001 ms; one microsecond of slack keeps that at 60 s and
 * is still above the float resolution of a wall-clock time in ms (0.25 µs now, 0.5 µs until 2109).
 */
const ROUNDING_SLACK_MS = 0.001;

/** Whole seconds in `ms`, rounded up (never negative). */
export function ceilSeconds(ms: number): number {
  const seconds = Math.ceil((ms - ROUNDING_SLACK_MS) / 1000);
  return Math.max(seconds, 0);
}

/** RFC 9110 §10.2.3 Retry-After as delay-seconds: rounded up, and at least 1 so a client never retries at once. */
export function retryAfterSeconds(ms: number): number {
  const seconds = ceilSeconds(ms);
  return Math.max(seconds, 1);
}
