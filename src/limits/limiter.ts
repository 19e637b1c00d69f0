// The seam between the request path and wherever limiter state lives: this process's memory (one
// instance), or Redis (limits shared by every instance). Order in a request: checkAddress before
// authentication, chargeFailedAuth after a 401, admitKey after a successful one, refundKey when a
// request turns out to count against no key (Node cut it off with 408 while its body arrived). A
// limiter in another process (`remote`) is asked once a request instead: `admit` (the address's check,
// then the key's admission) or `refuseAuthentication` (the address's check, then the 401's charge),
// each deciding both steps in one round trip, in the same order and with the same outcome.
import type { Awaitable } from '../core/awaitable.js';
import type { Decision } from './decision.js';
import type { Limits } from './plans.js';

/** The rate limits: two token buckets and a ban per key, and a failed-authentication bucket per address. */
export interface Limiter {
  /** True when each call is a round trip to another process: a request is then decided by one call, `admit` or `refuseAuthentication`. */
  readonly remote: boolean;
  /**
   * A request with a usable key: refused (`rate_limited`, the address's failed-authentication bucket:
   * see `isAddressRefusal`) while the address's bucket is empty, taking nothing; otherwise `admitKey`.
   */
  admit(address: string, keyId: string, limits: Limits): Awaitable<Decision>;
  /**
   * A request without a usable key: refused (`rate_limited`) while the address's failed-authentication
   * bucket is empty, taking nothing; otherwise `chargeFailedAuth` (allowed: the 401 is the answer).
   */
  refuseAuthentication(address: string): Awaitable<Decision>;
  /** Before authentication: a refusal (429 rate_limited) while the address's failed-auth bucket is empty; undefined to go on. Takes nothing. */
  checkAddress(address: string): Awaitable<Decision | undefined>;
  /** After a 401: takes one token from the address's failed-auth bucket; what the 401 answer tells of it. */
  chargeFailedAuth(address: string): Awaitable<Decision>;
  /** Takes one token from each of the key's buckets (minute, day), or refuses taking nothing; counts refusals and bans. */
  admitKey(keyId: string, limits: Limits): Awaitable<Decision>;
  /** Gives back what `admitKey` took, for a request that counts against no key after all. */
  refundKey(keyId: string, limits: Limits): Awaitable<void>;
  /** Forgets a key's buckets, refusals and ban (it was revoked). */
  forgetKey(keyId: string): Awaitable<void>;
  /** Resolves when the limiter can take work now; rejects saying why not (readiness). */
  ping(): Promise<void>;
  /** Lets go of the limiter's resources, saving what it keeps across restarts. */
  close(): Promise<void>;
}
