// Per-key admission of README "Rate limits": two token buckets per key (the plan's per-minute limit
// refilled over 60 s, its per-day limit over 86,400 s); a request takes one token from each, or is
// refused with `rate_limited` taking nothing. The (N+1)th refusal within the refusal window starts a
// ban; during it every request is `temporarily_banned`, takes nothing and does not extend it.
//
// Time: buckets, refusals and bans run on the monotonic clock, so a wall-clock step neither creates
// nor destroys tokens nor moves a ban; wall time only forms the reset time told to clients and the
// saved state (a ban is saved with its wall-clock end, so it ends then also across a restart).
// Memory: one small record per key that has made a request, none per request; each call is O(1).

import type { Clock } from '../core/clock.js';
import type { Decision, QuotaPolicy } from './decision.js';
import { type BucketLevel, keyDecision } from './key-decision.js';
import type { SavedBan, SavedDayBucket, SavedLimiterState } from './limiter-state.js';
import { LIMITER_STATE_VERSION, parseLimiterState } from './limiter-state.js';
import type { ResolvedLimiterOptions } from './options.js';
import type { Limits } from './plans.js';
import { assertLimits, DAY_MS, MINUTE_MS } from './plans.js';
import { keyPolicies } from './policies.js';
import { RefusalWindow } from './refusal-window.js';
import type { TokenBucket } from './token-bucket.js';
import {
  fullBucket,
  hasToken,
  isFull,
  msUntilFull,
  msUntilToken,
  refill,
  returnToken,
  takeToken,
} from './token-bucket.js';

/** The options the key limiter uses. */
export type KeyLimiterOptions = Pick<ResolvedLimiterOptions, 'refusalsBeforeBan' | 'refusalWindowMs' | 'banMs'>;

/** No ban: any monotonic time is past it. */
const NOT_BANNED = Number.NEGATIVE_INFINITY;

interface KeyState {
  /** Created full on the key's first request (a restored key may have a day bucket only). */
  minute: TokenBucket | undefined;
  day: TokenBucket | undefined;
  /** The per-day capacity the day bucket was last measured against (for saving it). */
  dayCapacity: number;
  /** Created on the key's first refusal. */
  refusals: RefusalWindow | undefined;
  /** Monotonic end of the current ban, or NOT_BANNED. */
  banEndMs: number;
  /** The key's policies, looked up when its limits change rather than per request. */
  policies: readonly QuotaPolicy[];
  policyPerMinute: number;
  policyPerDay: number;
}

/** The rate limits of API keys: token buckets, refusal counting and bans. */
export class KeyLimiter {
  readonly #clock: Clock;
  readonly #options: KeyLimiterOptions;
  readonly #keys = new Map<string, KeyState>();

  constructor(clock: Clock, options: KeyLimiterOptions) {
    this.#clock = clock;
    this.#options = options;
  }

  /** Number of keys with state in memory. */
  get size(): number {
    return this.#keys.size;
  }

  /** Takes one token from each of the key's two buckets, or refuses taking nothing; handles refusals and the ban. */
  admit(keyId: string, limits: Limits): Decision {
    assertLimits(limits);
    const nowMs = this.#clock.monotonic();
    const wallMs = this.#clock.now();
    const state = this.#stateOf(keyId);
    state.minute ??= fullBucket(limits.perMinute, nowMs);
    state.day ??= fullBucket(limits.perDay, nowMs);
    const { minute, day } = state;
    state.dayCapacity = limits.perDay;
    refill(minute, limits.perMinute, MINUTE_MS, nowMs);
    refill(day, limits.perDay, DAY_MS, nowMs);
    const policies = policiesOf(state, limits);

    if (state.banEndMs > nowMs) {
      return keyDecision(
        {
          outcome: 'banned',
          minute: levelOf(minute, limits.perMinute, MINUTE_MS),
          day: levelOf(day, limits.perDay, DAY_MS),
          banLeftMs: state.banEndMs - nowMs,
        },
        limits,
        policies,
        wallMs,
      );
    }
    if (state.banEndMs !== NOT_BANNED) {
      // The ban is over: counting starts afresh, and the buckets refilled meanwhile as usual.
      state.banEndMs = NOT_BANNED;
      state.refusals?.clear();
    }

    if (hasToken(minute) && hasToken(day)) {
      takeToken(minute);
      takeToken(day);
      return keyDecision(
        {
          outcome: 'admitted',
          minute: levelOf(minute, limits.perMinute, MINUTE_MS),
          day: levelOf(day, limits.perDay, DAY_MS),
        },
        limits,
        policies,
        wallMs,
      );
    }

    // The next request succeeds once both buckets hold a whole token.
    let waitMs = Math.max(msUntilToken(minute, limits.perMinute, MINUTE_MS), msUntilToken(day, limits.perDay, DAY_MS));
    state.refusals ??= new RefusalWindow(this.#options.refusalsBeforeBan);
    const banStarted = state.refusals.record(nowMs, this.#options.refusalWindowMs);
    if (banStarted) {
      // This refusal is still a plain `rate_limited` (the ban's answers start with the next request),
      // and it starts the ban: the next request succeeds once the ban is over and a token is back,
      // whichever is later.
      state.banEndMs = nowMs + this.#options.banMs;
      waitMs = Math.max(waitMs, this.#options.banMs);
    }
    return keyDecision(
      {
        outcome: 'refused',
        minute: levelOf(minute, limits.perMinute, MINUTE_MS),
        day: levelOf(day, limits.perDay, DAY_MS),
        waitMs,
        ...(banStarted && { banStarted }),
      },
      limits,
      policies,
      wallMs,
    );
  }

  /**
   * Gives back the tokens `admit` took for a request that counts against no key after all (Node cut it
   * off with 408 while its body was arriving: README "How the API behaves"). Nothing else changes.
   */
  refund(keyId: string, limits: Limits): void {
    const state = this.#keys.get(keyId);
    if (state?.minute === undefined || state.day === undefined) return;
    const nowMs = this.#clock.monotonic();
    refill(state.minute, limits.perMinute, MINUTE_MS, nowMs);
    refill(state.day, limits.perDay, DAY_MS, nowMs);
    returnToken(state.minute, limits.perMinute);
    returnToken(state.day, limits.perDay);
  }

  /** Forgets a key's buckets, refusals and ban (e.g. when it is revoked). */
  forget(keyId: string): void {
    this.#keys.delete(keyId);
  }

  /** Day buckets that are not full, and running bans, in wall-clock time. */
  exportState(): SavedLimiterState {
    const nowMs = this.#clock.monotonic();
    const wallMs = this.#clock.now();
    const days: SavedDayBucket[] = [];
    const bans: SavedBan[] = [];
    for (const [key, state] of this.#keys) {
      const day = state.day;
      if (day !== undefined && state.dayCapacity > 0) {
        refill(day, state.dayCapacity, DAY_MS, nowMs);
        // A full bucket is what a key without state gets, so it need not be saved.
        if (!isFull(day, state.dayCapacity))
          days.push({ key, tokens: day.tokens, capacity: state.dayCapacity, measuredAtMs: wallMs });
      }
      if (state.banEndMs > nowMs) bans.push({ key, untilMs: Math.ceil(wallMs + (state.banEndMs - nowMs)) });
    }
    return { version: LIMITER_STATE_VERSION, savedAtMs: wallMs, days, bans };
  }

  /**
   * Restores a saved state, ignoring malformed entries. A day bucket is refilled for the wall time
   * that passed since it was measured (none if that is negative: a clock stepped back must not
   * destroy tokens) and dropped when a day or more old, since it would be full; a ban already over
   * is dropped, and a remaining ban is never longer than banMs (a clock stepped back before the
   * save, or an edited file, cannot ban for longer than a ban lasts).
   */
  importState(input: unknown): void {
    const { days, bans } = parseLimiterState(input);
    const nowMs = this.#clock.monotonic();
    const wallMs = this.#clock.now();
    for (const saved of days) {
      const downMs = wallMs - saved.measuredAtMs;
      if (downMs >= DAY_MS) continue;
      const bucket: TokenBucket = { tokens: saved.tokens, atMs: nowMs - Math.max(0, downMs) };
      refill(bucket, saved.capacity, DAY_MS, nowMs);
      if (isFull(bucket, saved.capacity)) continue;
      const state = this.#stateOf(saved.key);
      // Two entries for one key (an edited file): the emptier one wins.
      if (state.day === undefined || bucket.tokens < state.day.tokens) {
        state.day = bucket;
        state.dayCapacity = saved.capacity;
      }
    }
    // A ban ends at its wall-clock end, also when the ban length was shortened meanwhile; an end further
    // off than any ban could last (a day, or the ban length if longer) is an edited file or a clock
    // that was wrong at the save, and is cut to that.
    const longestBanMs = Math.max(this.#options.banMs, DAY_MS);
    for (const saved of bans) {
      const leftMs = Math.min(saved.untilMs - wallMs, longestBanMs);
      if (leftMs <= 0) continue;
      const state = this.#stateOf(saved.key);
      state.banEndMs = Math.max(state.banEndMs, nowMs + leftMs);
    }
  }

  #stateOf(keyId: string): KeyState {
    let state = this.#keys.get(keyId);
    if (state === undefined) {
      state = {
        minute: undefined,
        day: undefined,
        dayCapacity: 0,
        refusals: undefined,
        banEndMs: NOT_BANNED,
        policies: NO_POLICIES,
        policyPerMinute: 0,
        policyPerDay: 0,
      };
      this.#keys.set(keyId, state);
    }
    return state;
  }
}

/** Before a key's first admission. */
const NO_POLICIES: readonly QuotaPolicy[] = Object.freeze([]);

function policiesOf(state: KeyState, limits: Limits): readonly QuotaPolicy[] {
  if (state.policyPerMinute !== limits.perMinute || state.policyPerDay !== limits.perDay) {
    state.policies = keyPolicies(limits);
    state.policyPerMinute = limits.perMinute;
    state.policyPerDay = limits.perDay;
  }
  return state.policies;
}

/** A bucket as the answer needs it, after the refill and any token taken. */
function levelOf(bucket: TokenBucket, capacity: number, refillMs: number): BucketLevel {
  return { tokens: bucket.tokens, msUntilFull: msUntilFull(bucket, capacity, refillMs) };
}
