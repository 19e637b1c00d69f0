// The 429 answers of README "Rate limits", worded from the limiter's numbers: a key over its plan, a
// key banned for going on regardless, and an address that failed authentication too often. Their
// header fields are rendered by rate-limit-headers.ts.
import { ApiError } from '../core/errors.js';
import type { Decision } from '../limits/index.js';

/** The 429 of a key over its plan's limits, or banned. */
export function keyRefusal(decision: Decision): ApiError {
  const refusal = decision.refusal ?? 'rate_limited';
  const seconds = decision.retryAfterSeconds ?? 1;
  const message =
    refusal === 'temporarily_banned'
      ? `This API key is temporarily banned after repeated requests over its limit; retry in ${seconds} s`
      : `Too many requests; retry in ${seconds} s (see Retry-After) and back off exponentially`;
  return new ApiError(refusal, message);
}

/**
 * The 429 of an address that spent its failed-authentication budget. It is given before the request's
 * key is looked at (so that keys cannot be guessed at speed), so it says nothing of that key, which
 * may well be valid: only that the address failed too often, and how long every request from it waits.
 */
export function failedAuthRefusal(decision: Decision): ApiError {
  const seconds = decision.retryAfterSeconds ?? 1;
  return new ApiError(
    'rate_limited',
    `Too many failed authentications from this address; wait ${seconds} s (see Retry-After): until then every request from it is refused before its key is looked at`,
  );
}
