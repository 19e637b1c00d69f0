// The seam between the request path and wherever limiter state lives: this process's memory (one
// instance), or Redis (limits shared by every instance). Order in a request: checkAddress before
// authentication, chargeFailedAuth after a 401, admitKey after a successful one, refundKey when a
// request turns out to count against no key (Node cut it off with 408 while its body arrived).
import type { Awaitable } from '../core/awaitable.js';
import type { Decision } from './decision.js';
import type { Limits } from './plans.js';

/** The rate limits: two token buckets and a ban per key, and a failed-authentication bucket per address. */
export interface Limiter {
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
