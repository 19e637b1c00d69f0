// The limiter shared by every instance through Redis: the same rules as the in-memory limiter (token
// buckets per key, refusals and bans, the failed-authentication bucket per address), decided by a
// script run atomically in Redis (scripts.ts), timed by Redis's clock, so that two instances behind a
// load balancer give a key its plan once, not once each, and honour one ban. The decisions are formed
// here from what the script reports, by the same code as the in-memory limiter's, with Redis's time as
// "now", so they agree whichever instance answers.
//
// Batched: every operation asked for in one turn of the event loop (the admissions of the requests read
// in it) goes to Redis in one script call, written once and answered once, in the order asked; Redis
// decides them one after the other, each exactly as a call of its own would be. So the round trips, the
// system calls and the script runs are per turn, not per request: as rate-limiter-flexible and ioredis's
// auto-pipelining do, but with one script run for the batch rather than one per command. A request
// waits for no more than the turn it arrived in; a batch is sent at once when it holds MAX_BATCH.
//
// When Redis cannot be reached, `unavailable` decides: `closed` refuses requests with 503 (no request is
// served without its limits), `open` serves them without limits (nothing told of them), with one
// warning per outage. Commands fail fast while Redis is away (no offline queue, a command timeout), so
// no request waits on it; the client reconnects by itself.
import type { Redis, Result } from 'ioredis';
import { ApiError } from '../../core/errors.js';
import { addressDecision } from '../address-limiter.js';
import { type Decision, type QuotaPolicy, UNLIMITED } from '../decision.js';
import { type BucketLevel, type KeyAdmission, keyDecision } from '../key-decision.js';
import type { Limiter } from '../limiter.js';
import type { ResolvedLimiterOptions } from '../options.js';
import { assertLimits, DAY_MS, type Limits, MINUTE_MS } from '../plans.js';
import { failedAuthPolicies, keyPolicies } from '../policies.js';
import { hasToken, msUntilFull } from '../token-bucket.js';
import { BATCH, OP, type Op, REPLY_FIELDS } from './scripts.js';

/** What to do with requests while Redis cannot be reached. */
export type LimiterUnavailable = 'closed' | 'open';

/** Whole seconds a client is asked to wait while the limiter is away (closed). */
const RETRY_AFTER_SECONDS = 1;

/** API keys whose Redis key names are kept at most; past that the table starts afresh. */
const MAX_KEPT_KEYS = 10_000;

/** Operations one script call carries at most: a bound on the script's run and on its reply. */
export const MAX_BATCH = 512;

declare module 'ioredis' {
  interface RedisCommander<Context> {
    animalStoreLimits(numberOfKeys: number, ...keysThenArgs: Array<string | number>): Result<string, Context>;
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

/** The operations of one turn, on their way to Redis together, in the script's form (scripts.ts). */
class Batch {
  /** The keys the operations name, each once. */
  readonly keys: string[] = [];
  /** Each key's place in `keys`, counted from 1 as the script's KEYS are. */
  readonly #keyIndex = new Map<string, number>();
  /** The operations so far, in the script's form: letters, key indexes and limits, one after the other. */
  readonly ops: Array<string | number> = [];
  count = 0;
  sent = false;
  /** The script's reply, split into its fields: the time, then REPLY_FIELDS per operation. */
  readonly reply: Promise<string[]>;
  settle!: (reply: Promise<string[]>) => void;

  constructor() {
    this.reply = new Promise<string[]>((resolve) => {
      this.settle = resolve;
    });
  }

  /** The index by which the operations name `key`. */
  indexOf(key: string): number {
    let index = this.#keyIndex.get(key);
    if (index === undefined) {
      index = this.keys.push(key);
      this.#keyIndex.set(key, index);
    }
    return index;
  }
}

/** Where an operation's answer is: its batch, and the index of its first reply field. */
interface Place {
  batch: Batch;
  at: number;
}

/** The rate limits in Redis, shared by every instance with the same Redis and prefix. */
export class RedisLimiter implements Limiter {
  /** Each call is a round trip to Redis: a request is decided by one call (admit or refuseAuthentication). */
  readonly remote = true;
  readonly #redis: Redis;
  readonly #prefix: string;
  readonly #options: ResolvedLimiterOptions;
  readonly #unavailable: LimiterUnavailable;
  readonly #time: () => number;
  readonly #onAvailability: (available: boolean, error?: Error) => void;
  readonly #addressPolicies: readonly QuotaPolicy[];
  /** The batch operations are being added to this turn; undefined until the first one. */
  #batch: Batch | undefined;
  #available = true;
  readonly #keys = new Map<string, readonly [string, string]>();
  readonly #policies = new WeakMap<Limits, { perMinute: number; perDay: number; policies: readonly QuotaPolicy[] }>();

  constructor(parts: RedisLimiterParts) {
    this.#redis = parts.redis;
    this.#prefix = parts.prefix;
    this.#options = parts.options;
    this.#unavailable = parts.unavailable;
    this.#time = parts.time ?? (() => 0);
    this.#onAvailability = parts.onAvailability;
    this.#addressPolicies = failedAuthPolicies(parts.options.failedAuthCapacity, parts.options.failedAuthWindowMs);
    // defineCommand sends EVALSHA, and EVAL when Redis does not know the script yet (after a restart).
    // The number of keys is the first argument: each batch names its own.
    this.#redis.defineCommand('animalStoreLimits', { lua: BATCH });
  }

  /** The Redis keys of an API key: its buckets and ban, and its refusal times. */
  keysOf(keyId: string): readonly [hash: string, refusals: string] {
    let keys = this.#keys.get(keyId);
    if (keys === undefined) {
      // Kept for the keys that make requests (one pair each), so a request builds no key text.
      if (this.#keys.size >= MAX_KEPT_KEYS) this.#keys.clear();
      keys = [`${this.#prefix}{key:${keyId}}`, `${this.#prefix}{key:${keyId}}:refusals`];
      this.#keys.set(keyId, keys);
    }
    return keys;
  }

  /** The Redis key of an address's failed-authentication bucket. */
  addressKeyOf(address: string): string {
    return `${this.#prefix}addr:${address}`;
  }

  // The two calls every request makes are written out: no rest parameters, one promise each.
  admit(address: string, keyId: string, limits: Limits): Promise<Decision> {
    assertLimits(limits);
    const [hash, refusals] = this.keysOf(keyId);
    const batch = this.#batchOfTurn();
    batch.ops.push(
      OP.admit,
      batch.indexOf(this.addressKeyOf(address)),
      batch.indexOf(hash),
      batch.indexOf(refusals),
      limits.perMinute,
      limits.perDay,
    );
    const at = this.#added(batch);
    return batch.reply.then(
      (reply) => {
        this.#answered();
        return reply[at] === 'address' ? this.#addressDecision(reply, at, true) : this.#keyDecision(reply, at, limits);
      },
      (error: unknown) => this.#failed(error, UNLIMITED),
    );
  }

  refuseAuthentication(address: string): Promise<Decision> {
    const batch = this.#batchOfTurn();
    batch.ops.push(OP.refuseAuthentication, batch.indexOf(this.addressKeyOf(address)));
    const at = this.#added(batch);
    return batch.reply.then(
      (reply) => {
        this.#answered();
        return this.#addressDecision(reply, at, reply[at] === 'refused');
      },
      (error: unknown) => this.#failed(error, UNLIMITED),
    );
  }

  async admitKey(keyId: string, limits: Limits): Promise<Decision> {
    assertLimits(limits);
    const place = this.#add(OP.admitKey, limits, ...this.keysOf(keyId));
    const reply = await this.#replyOf(place);
    if (reply === undefined) return UNLIMITED;
    return this.#keyDecision(reply, place.at, limits);
  }

  async refundKey(keyId: string, limits: Limits): Promise<void> {
    await this.#replyOf(this.#add(OP.refundKey, limits, this.keysOf(keyId)[0]));
  }

  async checkAddress(address: string): Promise<Decision | undefined> {
    const place = this.#add(OP.checkAddress, undefined, this.addressKeyOf(address));
    const reply = await this.#replyOf(place);
    if (reply === undefined) return undefined;
    const tokens = Number(reply[place.at + 1]);
    if (tokens < 0 || hasToken({ tokens, atMs: 0 })) return undefined;
    return this.#addressDecision(reply, place.at, true);
  }

  async chargeFailedAuth(address: string): Promise<Decision> {
    const place = this.#add(OP.chargeFailedAuth, undefined, this.addressKeyOf(address));
    const reply = await this.#replyOf(place);
    if (reply === undefined) return UNLIMITED;
    return this.#addressDecision(reply, place.at, false);
  }

  async forgetKey(keyId: string): Promise<void> {
    await this.#replyOf(this.#add(OP.forgetKey, undefined, ...this.keysOf(keyId)));
  }

  async ping(): Promise<void> {
    await this.#redis.ping();
  }

  async close(): Promise<void> {
    // What was asked for this turn is still decided (or fails, if Redis is gone) before the connection ends.
    if (this.#batch !== undefined) this.#send(this.#batch);
    await this.#redis.quit().catch(() => this.#redis.disconnect());
  }

  /**
   * Adds an operation to this turn's batch (sent at the end of the turn, or now when full): its letter,
   * its keys, and the limits for the operations that carry them; where its answer will be.
   */
  #add(op: Op, limits: Limits | undefined, ...keys: string[]): Place {
    const batch = this.#batchOfTurn();
    batch.ops.push(op);
    for (const key of keys) batch.ops.push(batch.indexOf(key));
    if (limits !== undefined) batch.ops.push(limits.perMinute, limits.perDay);
    return { batch, at: this.#added(batch) };
  }

  /** The batch of this turn, made (and its sending scheduled) by the turn's first operation. */
  #batchOfTurn(): Batch {
    let batch = this.#batch;
    if (batch === undefined) {
      const made = new Batch();
      batch = made;
      this.#batch = made;
      // setImmediate runs after the poll phase, in which every socket with data was read: the
      // requests of this turn are all in the batch by then.
      setImmediate(() => this.#send(made));
    }
    return batch;
  }

  /** Counts an operation whose values were pushed; the index of its first reply field. Sends a full batch. */
  #added(batch: Batch): number {
    const at = 1 + batch.count * REPLY_FIELDS;
    batch.count++;
    if (batch.count >= MAX_BATCH) this.#send(batch);
    return at;
  }

  /** Sends a batch (once): one script call, whose reply or failure is every operation's. */
  #send(batch: Batch): void {
    if (batch.sent) return;
    batch.sent = true;
    if (this.#batch === batch) this.#batch = undefined;
    const { refusalsBeforeBan, refusalWindowMs, banMs, failedAuthCapacity, failedAuthWindowMs } = this.#options;
    let reply: Promise<string[]>;
    try {
      reply = this.#redis
        .animalStoreLimits(
          batch.keys.length,
          ...batch.keys,
          this.#time(),
          refusalsBeforeBan,
          refusalWindowMs,
          banMs,
          failedAuthCapacity,
          failedAuthWindowMs,
          JSON.stringify(batch.ops),
        )
        .then((text) => text.split(' '));
    } catch (error) {
      reply = Promise.reject(error as Error);
    }
    batch.settle(reply);
  }

  /** The reply holding an operation's answer; undefined while Redis is away under `open` (see #failed). */
  async #replyOf(place: Place): Promise<string[] | undefined> {
    let reply: string[];
    try {
      reply = await place.batch.reply;
    } catch (error) {
      return this.#failed(error, undefined);
    }
    this.#answered();
    return reply;
  }

  /** Notes that Redis answered: the outage, if there was one, is over (told once). */
  #answered(): void {
    if (this.#available) return;
    this.#available = true;
    this.#onAvailability(true);
  }

  /**
   * An operation whose batch failed (Redis away): `closed` throws the 503 for every operation of the
   * batch, `open` gives `whenOpen` (serve without limits). The outage is told once when it starts.
   */
  #failed<T>(error: unknown, whenOpen: T): T {
    if (this.#available) {
      this.#available = false;
      this.#onAvailability(false, error as Error);
    }
    if (this.#unavailable === 'open') return whenOpen;
    throw new ApiError(
      'unavailable',
      'The rate limiter cannot be reached right now; retry after the number of seconds in the Retry-After header',
      undefined,
      { retryAfterSeconds: RETRY_AFTER_SECONDS },
    );
  }

  /** The decision of a key's admission whose answer starts at `at`: outcome, minute, day, wait ms, ban started. */
  #keyDecision(reply: readonly string[], at: number, limits: Limits): Decision {
    const outcome = reply[at];
    const minuteTokens = Number(reply[at + 1]);
    const dayTokens = Number(reply[at + 2]);
    const minute: BucketLevel = {
      tokens: minuteTokens,
      msUntilFull: msUntilFull({ tokens: minuteTokens, atMs: 0 }, limits.perMinute, MINUTE_MS),
    };
    const day: BucketLevel = {
      tokens: dayTokens,
      msUntilFull: msUntilFull({ tokens: dayTokens, atMs: 0 }, limits.perDay, DAY_MS),
    };
    const waitMs = Number(reply[at + 3]);
    const admission: KeyAdmission =
      outcome === 'admitted'
        ? { outcome, minute, day }
        : outcome === 'banned'
          ? { outcome, minute, day, banLeftMs: waitMs }
          : reply[at + 4] === '1'
            ? { outcome: 'refused', minute, day, waitMs, banStarted: true }
            : { outcome: 'refused', minute, day, waitMs };
    return keyDecision(admission, limits, this.#policiesOf(limits), Number(reply[0]));
  }

  /** The quota policies of `limits` (an API key's), kept per key object so a request builds no lookup text. */
  #policiesOf(limits: Limits): readonly QuotaPolicy[] {
    const kept = this.#policies.get(limits);
    if (kept !== undefined && kept.perMinute === limits.perMinute && kept.perDay === limits.perDay)
      return kept.policies;
    const policies = keyPolicies(limits);
    this.#policies.set(limits, { perMinute: limits.perMinute, perDay: limits.perDay, policies });
    return policies;
  }

  /** The decision about an address whose tokens are the answer's second field: refused, or the bucket a 401 tells of. */
  #addressDecision(reply: readonly string[], at: number, refused: boolean): Decision {
    const { failedAuthCapacity: capacity, failedAuthWindowMs: windowMs } = this.#options;
    const bucket = { tokens: Number(reply[at + 1]), atMs: 0 };
    return addressDecision(bucket, capacity, windowMs, this.#addressPolicies, Number(reply[0]), refused);
  }
}
