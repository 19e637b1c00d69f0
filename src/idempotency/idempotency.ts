// Safe retries of a POST under an Idempotency-Key, in one place. A request with a key is in flight from
// the moment it arrives (its headers read, before its body) until it is answered: it claims the key in
// the store's idempotency table, where every instance sharing the store sees the claim. Once its body
// is valid, a repeat of a finished request with an equal body (the same JSON value) gets the remembered
// answer again, marked replayed, whoever holds the claim; another body is 409; a repeat that found the
// key claimed and no answer remembered is 409 (the first is still in flight). A first attempt that
// fails is not remembered, so a retry can succeed. Of two requests with one key that arrive at one
// process in turn, the first is carried out, however the table orders claims sent at once. The answer
// is remembered by the store in the same atomic change as what it created, for 24 hours, with the
// status its request was answered with, which whoever answers gives when the request arrives; a replay
// tells that status again. What a status means, and the header protocol around it, is HTTP's
// (src/http/idempotency-key.ts); nothing here knows HTTP.
import { randomBytes } from 'node:crypto';
import { type Awaitable, isPending } from '../core/awaitable.js';
import type { Clock } from '../core/clock.js';
import { ApiError } from '../core/errors.js';
import type { IdempotencyRecord, IdempotencyTable } from '../store/store.js';
import { bodyFingerprint } from './canonical-json.js';

/** How long an answer is remembered: 24 hours. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/**
 * How long a claim outlives an instance that died holding it. A live claim never lapses: its holder
 * renews it every `CLAIM_RENEW_MS` while the request is in flight (a whole request must arrive within
 * the request timeout, 30 s by default, and may then wait on the store), so the lease need only cover a
 * few missed renewals. A dead one blocks retries of its key for this long at most.
 */
export const CLAIM_LEASE_MS = 15_000;
/** How often a held claim is renewed: a third of the lease, so that two renewals may fail or run late. */
export const CLAIM_RENEW_MS = 5_000;
/** No request is in flight this long; a claim held longer (an arrival never left) stops being renewed. */
const CLAIM_RENEWED_AT_MOST_MS = 10 * 60 * 1000;

/** Claimants are this process's prefix and a counter: unique across instances, cheap per request. */
const CLAIMANT_PREFIX = randomBytes(9).toString('base64url');
let claimantCounter = 0;

/** A request with an Idempotency-Key, noted as in flight; `leave` once it has been answered. */
export interface Arrival {
  readonly scope: string;
  readonly key: string;
  readonly claimant: string;
  /** The status this request is answered with when it is carried out: remembered with its answer. */
  readonly status: number;
  /** Whether this request holds the key's claim. */
  claimed: boolean;
  /** Set by `run` when the request gets a remembered answer: the status that answer was remembered with. */
  replayedStatus: number | undefined;
  leave(): Promise<void>;
}

/** What an idempotent run yields: the answer's body, and whether it was remembered from an earlier request. */
export type Outcome<T> = { replayed: false; item: T } | { replayed: true; body: string };

/** One string for a scope and a key: a key is visible ASCII, without a line break to run into another pair's. */
function claimId(scope: string, key: string): string {
  return `${scope}\n${key}`;
}

/** Idempotency-Keys over a store's idempotency table. */
export class Idempotency {
  readonly #table: IdempotencyTable;
  readonly #clock: Clock;
  /** The claims held, each with when it was taken (monotonic ms), renewed until their arrival leaves. */
  readonly #held = new Map<Arrival, number>();
  /** The one timer that renews them, from the first held to the last released (unref'd: it keeps no process alive). */
  #renewal: NodeJS.Timeout | undefined;
  /**
   * Per scope and key, this process's latest claim or release while the table has not yet decided it.
   * A table across a network (PostgreSQL's) takes them on several connections, and the later of two
   * sent at once can be decided first; so each is sent only once the one before it has been decided:
   * of two requests with the same key that arrive at this process one after the other (two pipelined
   * on one connection), the first is the one carried out, and a retry sent when an answer arrives
   * finds the key released.
   */
  readonly #deciding = new Map<string, Promise<unknown>>();
  /**
   * Per scope and key, the arrival of this process that holds the claim, until it leaves. Another
   * arrival with the key here is refused the claim at once, as the table would refuse it, without a
   * round trip: so a repeat pipelined behind a request is decided while that request is still in flight.
   */
  readonly #holders = new Map<string, Arrival>();

  readonly #renewEveryMs: number;

  /** `renewEveryMs`: how often held claims are renewed (`CLAIM_RENEW_MS`; shorter in tests). */
  constructor(table: IdempotencyTable, clock: Clock, { renewEveryMs = CLAIM_RENEW_MS } = {}) {
    this.#table = table;
    this.#clock = clock;
    this.#renewEveryMs = renewEveryMs;
  }

  #claim(scope: string, key: string, claimant: string): Awaitable<boolean> {
    const nowMs = this.#clock.now();
    return this.#table.claim(scope, key, claimant, nowMs, nowMs + CLAIM_LEASE_MS);
  }

  /**
   * Notes a request with `key` in `scope` (an API key and a route) as in flight, before its body is
   * read; `status` is what it will be answered with if it is carried out.
   */
  async arrive(scope: string, key: string, status: number): Promise<Arrival> {
    const claimant = `${CLAIMANT_PREFIX}-${(++claimantCounter).toString(36)}`;
    const table = this.#table;
    const id = claimId(scope, key);
    const arrival: Arrival = {
      scope,
      key,
      claimant,
      status,
      claimed: await this.#claimInTurn(scope, key, claimant),
      replayedStatus: undefined,
      leave: async () => {
        this.#stopRenewing(arrival);
        if (!arrival.claimed) return;
        // Answered: no longer held here. A claim made after this waits until the release is decided
        // (it is sent in turn), so a retry sent the moment this answer arrives finds the key free.
        if (this.#holders.get(id) === arrival) this.#holders.delete(id);
        await this.#inTurn(id, () => table.release(scope, key, claimant));
      },
    };
    if (arrival.claimed) this.#hold(arrival);
    return arrival;
  }

  /** Claims the key once the claim of the arrival before this one (in this process) has been decided. */
  #claimInTurn(scope: string, key: string, claimant: string): Awaitable<boolean> {
    const id = claimId(scope, key);
    return this.#inTurn(id, () => this.#claimUnlessHeldHere(id, scope, key, claimant));
  }

  /** `step` (a claim or a release of the key `id`), once the step sent before it has been decided. */
  #inTurn<T>(id: string, step: () => Awaitable<T>): Awaitable<T> {
    const earlier = this.#deciding.get(id);
    const stepping = earlier === undefined ? step() : earlier.then(step);
    // A table in memory decides at once: nothing to wait for, and nothing kept.
    if (!isPending(stepping)) return stepping;
    const decided = stepping.then(
      () => undefined,
      () => undefined,
    );
    this.#deciding.set(id, decided);
    void decided.then(() => {
      if (this.#deciding.get(id) === decided) this.#deciding.delete(id);
    });
    return stepping;
  }

  /** The table's claim, or false at once while a request of this process holds the key. */
  #claimUnlessHeldHere(id: string, scope: string, key: string, claimant: string): Awaitable<boolean> {
    return this.#holders.has(id) ? false : this.#claim(scope, key, claimant);
  }

  /** Notes that `arrival` won its key's claim: held here until it leaves, and renewed meanwhile. */
  #hold(arrival: Arrival): void {
    this.#holders.set(claimId(arrival.scope, arrival.key), arrival);
    this.#renewWhileHeld(arrival);
  }

  /**
   * Notes the claim of `arrival` as held: one timer renews every claim held, every `renewEveryMs`,
   * until its arrival leaves (one timer for all, so that a request pays a set's add and delete, not a
   * timer of its own). A renewal that fails (the store unreachable for a moment) is not an error: the
   * next one tries again, and the lease outlasts two of them.
   */
  #renewWhileHeld(arrival: Arrival): void {
    // A table whose claims do not lapse (one process's) has nothing to renew.
    if (this.#table.renew === undefined) return;
    this.#held.set(arrival, this.#clock.monotonic());
    if (this.#renewal === undefined) this.#renewal = setInterval(() => this.#renewHeld(), this.#renewEveryMs).unref();
  }

  /** Ends the renewal of `arrival`'s claim; the timer stops with the last one, so none outlives its work. */
  #stopRenewing(arrival: Arrival): void {
    if (!this.#held.delete(arrival) || this.#held.size > 0) return;
    clearInterval(this.#renewal);
    this.#renewal = undefined;
  }

  #renewHeld(): void {
    const table = this.#table;
    const nowMonotonicMs = this.#clock.monotonic();
    const untilMs = this.#clock.now() + CLAIM_LEASE_MS;
    for (const [arrival, heldSinceMs] of this.#held) {
      if (nowMonotonicMs - heldSinceMs > CLAIM_RENEWED_AT_MOST_MS) {
        this.#stopRenewing(arrival);
        // Nor is it held here any longer: once its lease runs out, the key is free to every instance.
        const id = claimId(arrival.scope, arrival.key);
        if (this.#holders.get(id) === arrival) this.#holders.delete(id);
        continue;
      }
      const { scope, key, claimant } = arrival;
      void Promise.resolve()
        .then(() => table.renew?.(scope, key, claimant, untilMs))
        .catch(() => {});
    }
  }

  /**
   * Carries out a request once per key. `body` is its validated body (compared as a JSON value);
   * `carryOut` makes the change, keeping the record it is given (undefined without a key) with it: the
   * answer remembered with the arrival's status. A repeat gets the remembered answer, and its status
   * is noted on its arrival (`replayedStatus`).
   */
  async run<T>(
    arrival: Arrival | undefined,
    body: unknown,
    carryOut: (remember: IdempotencyRecord | undefined) => Promise<T>,
  ): Promise<Outcome<T>> {
    if (arrival === undefined) return { replayed: false, item: await carryOut(undefined) };
    const { scope, key, claimant, status } = arrival;
    const fingerprint = bodyFingerprint(body);
    // The request that held the key when this one arrived may have finished while this body arrived.
    if (!arrival.claimed) {
      arrival.claimed = await this.#claimInTurn(scope, key, claimant);
      if (arrival.claimed) this.#hold(arrival);
    }
    // Looked up whether or not the claim was won: repeats of a finished request that arrive together
    // each get its answer, though only one of them can hold the claim at a time.
    const nowMs = this.#clock.now();
    const remembered = await this.#table.find(scope, key, nowMs);
    if (remembered === undefined && !arrival.claimed) {
      throw new ApiError(
        'conflict',
        `A request with Idempotency-Key "${key}" is still in progress; retry once it has been answered`,
      );
    }
    if (remembered !== undefined) {
      if (remembered.fingerprint === fingerprint) {
        arrival.replayedStatus = remembered.status;
        return { replayed: true, body: remembered.body };
      }
      throw new ApiError(
        'conflict',
        `Idempotency-Key "${key}" was already used with a different request body; use a new key for a new request`,
      );
    }
    const item = await carryOut({ scope, key, fingerprint, status, expiresAtMs: nowMs + IDEMPOTENCY_TTL_MS });
    return { replayed: false, item };
  }
}
