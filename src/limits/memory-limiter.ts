// The limiter of one instance: per-key buckets and bans (key-limiter.ts) and the per-address
// failed-authentication limit (address-limiter.ts) in this process's memory, with one clock. Every call
// is synchronous and O(1); all time comes from the injected Clock. Given a state file, day buckets and
// bans are saved there on close and restored (then the file removed) on open, so a graceful restart
// keeps them and a crash starts every bucket full.
import type { Clock } from '../core/clock.js';
import { AddressLimiter } from './address-limiter.js';
import type { Decision } from './decision.js';
import { KeyLimiter } from './key-limiter.js';
import type { SavedLimiterState } from './limiter-state.js';
import type { Limiter } from './limiter.js';
import type { LimiterOptions, ResolvedLimiterOptions } from './options.js';
import { resolveLimiterOptions } from './options.js';
import type { Limits } from './plans.js';
import { restoreLimiterState, saveLimiterState } from './state-file.js';

/** The rate limits in this process's memory. */
export class MemoryLimiter implements Limiter {
  /** The options in force, defaults applied. */
  readonly options: Readonly<ResolvedLimiterOptions>;
  /** Every call is answered from memory, at once: a request's steps are asked one by one. */
  readonly remote = false;
  readonly #keys: KeyLimiter;
  readonly #addresses: AddressLimiter;
  readonly #stateFile: string | undefined;

  /** Throws a TypeError naming a bad option. With `stateFile`, `close` saves day buckets and bans there. */
  constructor(clock: Clock, options?: LimiterOptions, stateFile?: string) {
    this.options = Object.freeze(resolveLimiterOptions(options));
    this.#keys = new KeyLimiter(clock, this.options);
    this.#addresses = new AddressLimiter(clock, this.options);
    this.#stateFile = stateFile;
  }

  /** A limiter whose saved state, if `stateFile` holds one, is restored (and the file removed). */
  static async open(
    clock: Clock,
    options: LimiterOptions | undefined,
    stateFile: string,
    warn: (line: string) => void = () => {},
  ): Promise<MemoryLimiter> {
    const limiter = new MemoryLimiter(clock, options, stateFile);
    await restoreLimiterState(limiter, stateFile, warn);
    return limiter;
  }

  admit(address: string, keyId: string, limits: Limits): Decision {
    return this.#addresses.check(address) ?? this.#keys.admit(keyId, limits);
  }

  refuseAuthentication(address: string): Decision {
    return this.#addresses.check(address) ?? this.#addresses.charge(address);
  }

  admitKey(keyId: string, limits: Limits): Decision {
    return this.#keys.admit(keyId, limits);
  }

  refundKey(keyId: string, limits: Limits): void {
    this.#keys.refund(keyId, limits);
  }

  checkAddress(address: string): Decision | undefined {
    return this.#addresses.check(address);
  }

  chargeFailedAuth(address: string): Decision {
    return this.#addresses.charge(address);
  }

  forgetKey(keyId: string): void {
    this.#keys.forget(keyId);
  }

  async ping(): Promise<void> {}

  /** Saves day buckets and bans when the limiter has a state file. */
  async close(): Promise<void> {
    if (this.#stateFile !== undefined) await saveLimiterState(this, this.#stateFile);
  }

  /** Day buckets and bans, for saving (JSON-serialisable, wall-clock based). */
  exportState(): SavedLimiterState {
    return this.#keys.exportState();
  }

  /** Restores saved state; drops entries older than a day; converts wall time to the monotonic clock. Never throws. */
  importState(state: unknown): void {
    this.#keys.importState(state);
  }

  /** Entries in memory: keys with state, and addresses in the failed-auth table (for metrics and tests). */
  get sizes(): { keys: number; addresses: number } {
    return { keys: this.#keys.size, addresses: this.#addresses.size };
  }
}
