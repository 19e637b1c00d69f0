// Forms the rate-limit header fields of README "Rate limits" from a view of one bucket:
// - X-RateLimit-Limit / -Remaining / -Reset, the de facto fields (GitHub's): capacity, whole tokens
//   left, and the Unix time in seconds, rounded up, at which the bucket is full again.
// - RateLimit-Policy and RateLimit of draft-ietf-httpapi-ratelimit-headers: `"name";q=<quota>;w=<window s>`
//   per policy, and `"name";r=<remaining>;t=<seconds>` for the bucket the X- fields describe.
//   `t` is the number of seconds until that bucket is full again, rounded up, so it always agrees
//   with X-RateLimit-Reset. Drafts up to -09 define `t` as the seconds "until the quota associated
//   with the quota policy resets"; a continuously refilled bucket never resets at once, and "full
//   again" is the point after which the whole quota `q` is available, which is what a reset means.
//   Draft -10 relaxes `t` to "until additional quota is made available"; our value remains an upper
//   bound of that (a client waiting `t` seconds never over-sends), and a 429 also carries the exact
//   earliest retry in Retry-After.
// - Retry-After (RFC 9110 §10.2.3, delay-seconds form) on refusals: whole seconds, at least 1.

import type { Header } from './decision.js';
import type { Limits } from './plans.js';

/** What the headers describe: one bucket (or a ban) as the client should see it. */
export interface HeaderView {
  /** The policy name in RateLimit: "minute", "day" or "failed-auth". */
  policyName: string;
  /** The bucket's capacity (X-RateLimit-Limit). */
  limit: number;
  /** Whole tokens left (X-RateLimit-Remaining, RateLimit r). */
  remaining: number;
  /** Milliseconds until the bucket is full again, or the ban ends (X-RateLimit-Reset, RateLimit t). */
  resetInMs: number;
}

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

/** The RateLimit-Policy value of a key: its minute and day policies, quotas from its limits. */
export function keyPolicy(limits: Limits): string {
  return `"minute";q=${limits.perMinute};w=60, "day";q=${limits.perDay};w=86400`;
}

/** The RateLimit-Policy value of the per-address failed-authentication bucket. */
export function failedAuthPolicy(capacity: number, windowMs: number): string {
  // The draft's w is whole seconds; a window configured in odd milliseconds is rounded up.
  const windowSeconds = Math.max(1, ceilSeconds(windowMs));
  return `"failed-auth";q=${capacity};w=${windowSeconds}`;
}

/**
 * The header list of one answer; `retryAfter` (whole seconds) is given only on refusals. Names are
 * lower-case, as they go on the wire (HTTP field names are case-insensitive: RFC 9110 §5.1).
 */
export function rateLimitHeaders(view: HeaderView, policy: string, wallNowMs: number, retryAfter?: number): Header[] {
  const remaining = integerText(view.remaining);
  const headers: Header[] = [
    ['x-ratelimit-limit', integerText(view.limit)],
    ['x-ratelimit-remaining', remaining],
    ['x-ratelimit-reset', integerText(ceilSeconds(wallNowMs + view.resetInMs))],
    ['ratelimit-policy', policy],
    ['ratelimit', `"${view.policyName}";r=${remaining};t=${ceilSeconds(view.resetInMs)}`],
  ];
  if (retryAfter !== undefined) headers.push(['retry-after', String(retryAfter)]);
  return headers;
}

/** Below this, V8 formats an integer as a small integer, several times faster than a larger one. */
const SMALL_INTEGER_LIMIT = 2 ** 31;

/**
 * `String(n)` of a whole number, formed from two numbers below 2^31 when it is larger: limits and
 * counts of a generous plan (10^12 a day) are formatted on every answer, and a large number formats
 * several times slower than two small ones.
 */
export function integerText(n: number): string {
  if (n < SMALL_INTEGER_LIMIT || !Number.isSafeInteger(n)) return String(n);
  const high = Math.floor(n / 1e9);
  return `${high}${String(n - high * 1e9).padStart(9, '0')}`;
}
