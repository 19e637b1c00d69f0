// The limiter shared by every instance through Redis: the same rules as the in-memory limiter (token
// buckets per key, refusals and bans, the failed-authentication bucket per address), each decision one
// atomic script call (scripts.ts), timed by Redis's clock, so that two instances behind a load balancer
// give a key its plan once, not once each, and honour one ban. The decisions are formed here from what
// the script reports, by the same code as the in-memory limiter's, with Redis's time as "now", so they
// agree whichever instance answers.
//
// When Redis cannot be reached, `unavailable` decides: `closed` refuses requests with 503 (no request is
// served without its limits), `open` serves them without limits (nothing told of them), with one
// warning per outage. Commands fail fast while Redis is away (no offline queue, a command timeout), so
// no request waits on it; the client reconnects by itself.
import type { Redis, Result } from 'ioredis';
import { ApiError } from '../../core/errors.js';
import { addressDecision } from '../address-limiter.js';
import { type Decision, type QuotaPolicy, UNLIMITED } from '../decision.js';
import { type KeyAdmission, keyDecision } from '../key-decision.js';
import type { Limiter } from '../limiter.js';
import type { ResolvedLimiterOptions } from '../options.js';
import { assertLimits, DAY_MS, type Limits, MINUTE_MS } from '../plans.js';
import { failedAuthPolicies, keyPolicies } from '../policies.js';
import { hasToken, msUntilFull } from '../token-bucket.js';
import { ADDRESS, ADMIT_KEY, REFUND_KEY } from './scripts.js';

/** What to do with requests while Redis cannot be reached. */
export type LimiterUnavailable = 'closed' | 'open';

/** Whole seconds a client is asked to wait while the limiter is away (closed). */
const RETRY_AFTER_SECONDS = 1;

type ScriptReply = string[];

declare module 'ioredis' {
  interface RedisCommander<Context> {
    animalStoreAdmitKey(hash: string, refusals: string, ...args: Array<string | number>): Result<ScriptReply, Context>;
    animalStoreRefundKey(hash: string, ...args: Array<string | number>): Result<number, Context>;
    animalStoreAddress(hash: string, ...args: Array<string | number>): Result<ScriptReply, Context>;
  }
}

/** What a RedisLimiter needs. */
export interface RedisLimiterParts {
  redis: Redis;
  /** Put before every key, so that deployments can share one Redis: `animal-store:` by default. */
  prefix: string;
  options: ResolvedLimiterOptions;
  unavailable: LimiterUnavailable;
  /** For tests: the time (ms) the scripts use instead of Redis's clock. */
  time?: () => number;
  /** Told when Redis stops answering (with the failed command's error) and when it answers again (once each per outage). */
  onAvailability: (available: boolean, error?: Error) => void;
}

/** The rate limits in Redis, shared by every instance with the same Redis and prefix. */
export class RedisLimiter implements Limiter {
  readonly #redis: Redis;
  readonly #prefix: string;
  readonly #options: ResolvedLimiterOptions;
  readonly #unavailable: LimiterUnavailable;
  readonly #time: () => number;
  readonly #onAvailability: (available: boolean, error?: Error) => void;
  readonly #addressPolicies: readonly QuotaPolicy[];
  #available = true;

  constructor(parts: RedisLimiterParts) {
    this.#redis = parts.redis;
    this.#prefix = parts.prefix;
    this.#options = parts.options;
    this.#unavailable = parts.unavailable;
    this.#time = parts.time ?? (() => 0);
    this.#onAvailability = parts.onAvailability;
    this.#addressPolicies = failedAuthPolicies(parts.options.failedAuthCapacity, parts.options.failedAuthWindowMs);
    // defineCommand sends EVALSHA, and EVAL when Redis does not know the script yet (after a restart).
    this.#redis.defineCommand('animalStoreAdmitKey', { numberOfKeys: 2, lua: ADMIT_KEY });
    this.#redis.defineCommand('animalStoreRefundKey', { numberOfKeys: 1, lua: REFUND_KEY });
    this.#redis.defineCommand('animalStoreAddress', { numberOfKeys: 1, lua: ADDRESS });
  }

  /** The Redis keys of an API key: its buckets and ban, and its refusal times (one hash slot, for Redis Cluster). */
  keysOf(keyId: string): [hash: string, refusals: string] {
    return [`${this.#prefix}{key:${keyId}}`, `${this.#prefix}{key:${keyId}}:refusals`];
  }

  /** The Redis key of an address's failed-authentication bucket. */
  addressKeyOf(address: string): string {
    return `${this.#prefix}addr:${address}`;
  }

  async admitKey(keyId: string, limits: Limits): Promise<Decision> {
    assertLimits(limits);
    const { refusalsBeforeBan, refusalWindowMs, banMs } = this.#options;
    const [hash, refusals] = this.keysOf(keyId);
    const reply = await this.#run(() =>
      this.#redis.animalStoreAdmitKey(
        hash,
        refusals,
        this.#time(),
        limits.perMinute,
        limits.perDay,
        refusalsBeforeBan,
        refusalWindowMs,
        banMs,
      ),
    );
    if (reply === undefined) return UNLIMITED;
    const [outcome, minuteText, dayText, waitText, nowText, banStarted] = reply;
    const minute = { tokens: Number(minuteText), atMs: 0 };
    const day = { tokens: Number(dayText), atMs: 0 };
    const levels = {
      minute: { tokens: minute.tokens, msUntilFull: msUntilFull(minute, limits.perMinute, MINUTE_MS) },
      day: { tokens: day.tokens, msUntilFull: msUntilFull(day, limits.perDay, DAY_MS) },
    };
    const waitMs = Number(waitText);
    const admission: KeyAdmission =
      outcome === 'admitted'
        ? { outcome, ...levels }
        : outcome === 'banned'
          ? { outcome, ...levels, banLeftMs: waitMs }
          : { outcome: 'refused', ...levels, waitMs, ...(banStarted === '1' && { banStarted: true }) };
    return keyDecision(admission, limits, keyPolicies(limits), Number(nowText));
  }

  async refundKey(keyId: string, limits: Limits): Promise<void> {
    const [hash] = this.keysOf(keyId);
    await this.#run(() => this.#redis.animalStoreRefundKey(hash, this.#time(), limits.perMinute, limits.perDay));
  }

  async checkAddress(address: string): Promise<Decision | undefined> {
    const reply = await this.#address(address, false);
    if (reply === undefined || reply.tokens < 0) return undefined;
    const bucket = { tokens: reply.tokens, atMs: 0 };
    if (hasToken(bucket)) return undefined;
    return this.#addressDecision(reply, true);
  }

  async chargeFailedAuth(address: string): Promise<Decision> {
    const reply = await this.#address(address, true);
    if (reply === undefined) return UNLIMITED;
    return this.#addressDecision(reply, false);
  }

  async forgetKey(keyId: string): Promise<void> {
    await this.#run(() => this.#redis.del(...this.keysOf(keyId)));
  }

  async ping(): Promise<void> {
    await this.#redis.ping();
  }

  async close(): Promise<void> {
    await this.#redis.quit().catch(() => this.#redis.disconnect());
  }

  async #address(address: string, charge: boolean): Promise<{ tokens: number; nowMs: number } | undefined> {
    const { failedAuthCapacity, failedAuthWindowMs } = this.#options;
    const reply = await this.#run(() =>
      this.#redis.animalStoreAddress(
        this.addressKeyOf(address),
        this.#time(),
        failedAuthCapacity,
        failedAuthWindowMs,
        charge ? 1 : 0,
      ),
    );
    return reply === undefined ? undefined : { tokens: Number(reply[0]), nowMs: Number(reply[1]) };
  }

  #addressDecision(reply: { tokens: number; nowMs: number }, refused: boolean): Decision {
    const { failedAuthCapacity: capacity, failedAuthWindowMs: windowMs } = this.#options;
    const bucket = { tokens: reply.tokens, atMs: 0 };
    return addressDecision(bucket, capacity, windowMs, this.#addressPolicies, reply.nowMs, refused);
  }

  /**
   * Runs one command. Redis away: `closed` throws the 503, `open` gives undefined (serve without
   * limits). Either way the outage is told once when it starts and once when it ends.
   */
  async #run<T>(command: () => Promise<T>): Promise<T | undefined> {
    let result: T;
    try {
      result = await command();
    } catch (error) {
      if (this.#available) {
        this.#available = false;
        this.#onAvailability(false, error as Error);
      }
      if (this.#unavailable === 'open') return undefined;
      throw new ApiError(
        'unavailable',
        'The rate limiter cannot be reached right now; retry after the number of seconds in the Retry-After header',
        undefined,
        { retryAfterSeconds: RETRY_AFTER_SECONDS },
      );
    }
    if (!this.#available) {
      this.#available = true;
      this.#onAvailability(true);
    }
    return result;
  }
}
