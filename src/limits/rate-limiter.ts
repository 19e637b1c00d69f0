// The limiter the server calls (CONTRACT.md §5): per-key buckets and bans (key-limiter.ts) and the
// per-address failed-authentication limit (address-limiter.ts) behind one object, with one clock.
// Order in a request: checkAddress before authentication, chargeFailedAuth after a 401, admitKey
// after a successful one. Pure: no timers, no I/O; all time comes from the injected Clock.

import type { Clock } from '../clock.js';
import { AddressLimiter } from './address-limiter.js';
import type { Decision } from './decision.js';
import { KeyLimiter } from './key-limiter.js';
import type { SavedLimiterState } from './limiter-state.js';
import type { LimiterOptions, ResolvedLimiterOptions } from './options.js';
import { resolveLimiterOptions } from './options.js';
import type { Limits } from './plans.js';

/** Rate limits of CONTRACT.md §5: per key (plan buckets, ban) and per address (failed authentication). */
export class RateLimiter {
  /** The options in force, defaults applied. */
  readonly options: Readonly<ResolvedLimiterOptions>;
  readonly #keys: KeyLimiter;
  readonly #addresses: AddressLimiter;

  /** Throws a TypeError naming a bad option. */
  constructor(clock: Clock, options?: LimiterOptions) {
    this.options = Object.freeze(resolveLimiterOptions(options));
    this.#keys = new KeyLimiter(clock, this.options);
    this.#addresses = new AddressLimiter(clock, this.options);
  }

  /** Takes one token from each of the key's two buckets (minute, day), or refuses taking nothing; handles the refusal count and the ban. */
  admitKey(keyId: string, limits: Limits): Decision {
    return this.#keys.admit(keyId, limits);
  }

  /** Gives back what `admitKey` took, for a request that counts against no key after all (a 408 cut-off). */
  refundKey(keyId: string, limits: Limits): void {
    this.#keys.refund(keyId, limits);
  }

  /** Before authentication: refuses (429 rate_limited) while the address's failed-auth bucket is empty; takes nothing. */
  checkAddress(address: string): Decision | undefined {
    return this.#addresses.check(address);
  }

  /** After a 401: takes one token from the address's failed-auth bucket; returns the headers for the 401 answer (policy name "failed-auth"). */
  chargeFailedAuth(address: string): Decision {
    return this.#addresses.charge(address);
  }

  /** Day buckets and bans, for saving on graceful stop (JSON-serialisable, wall-clock based). */
  exportState(): SavedLimiterState {
    return this.#keys.exportState();
  }

  /** Restores saved state; drops entries older than a day; converts wall time to the monotonic clock. Never throws. */
  importState(state: unknown): void {
    this.#keys.importState(state);
  }

  /** Forget a key's state (e.g. revoked). */
  forgetKey(keyId: string): void {
    this.#keys.forget(keyId);
  }

  /** Entries in memory: keys with state, and addresses in the failed-auth table (for metrics and tests). */
  get sizes(): { keys: number; addresses: number } {
    return { keys: this.#keys.size, addresses: this.#addresses.size };
  }
}
