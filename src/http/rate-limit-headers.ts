// The rate-limit header fields of README "Rate limits", rendered from the limiter's numbers:
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
// Names are lower-case, as they go on the wire (HTTP field names are case-insensitive: RFC 9110 §5.1).
//
// Every API answer carries these fields, so they are rendered for the cost of the numbers that change:
// the RateLimit-Policy value is formed once per policies array (a limiter hands out one array per set
// of limits), and the limit and reset texts are kept while their numbers stay the same (the reset
// moves once a second, the limit with the key).
import type { Decision, QuotaPolicy } from '../limits/index.js';
import type { ResponseHeaders } from './response-headers.js';

/** RateLimit-Policy values by the policies array they render; the last one is also kept on its own. */
const policyTexts = new WeakMap<readonly QuotaPolicy[], string>();
let lastPolicies: readonly QuotaPolicy[] | undefined;
let lastPolicyText = '';
let lastLimit = -1;
let lastLimitText = '';
let lastResetAtSeconds = -1;
let lastResetText = '';

/** Sets the rate-limit fields `decision` tells of on `headers`; none when the limiter could not be asked. */
export function setRateLimitHeaders(headers: ResponseHeaders, decision: Decision): void {
  const bucket = decision.bucket;
  if (bucket === undefined) return;
  const remaining = integerText(bucket.remaining);
  if (bucket.limit !== lastLimit) {
    lastLimitText = integerText(bucket.limit);
    lastLimit = bucket.limit;
  }
  if (bucket.resetAtSeconds !== lastResetAtSeconds) {
    lastResetText = integerText(bucket.resetAtSeconds);
    lastResetAtSeconds = bucket.resetAtSeconds;
  }
  headers.set('x-ratelimit-limit', lastLimitText);
  headers.set('x-ratelimit-remaining', remaining);
  headers.set('x-ratelimit-reset', lastResetText);
  headers.set('ratelimit-policy', policyText(decision.policies));
  headers.set('ratelimit', `"${bucket.policy}";r=${remaining};t=${bucket.resetInSeconds}`);
  if (decision.retryAfterSeconds !== undefined) headers.set('retry-after', String(decision.retryAfterSeconds));
}

/** The RateLimit-Policy value of `policies`: `"name";q=<quota>;w=<window s>`, comma-separated. */
export function policyText(policies: readonly QuotaPolicy[]): string {
  if (policies === lastPolicies) return lastPolicyText;
  let text = policyTexts.get(policies);
  if (text === undefined) {
    text = policies.map((policy) => `"${policy.name}";q=${policy.quota};w=${policy.windowSeconds}`).join(', ');
    policyTexts.set(policies, text);
  }
  lastPolicies = policies;
  lastPolicyText = text;
  return text;
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
