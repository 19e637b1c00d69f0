// How fast the delivery worker may go beside this instance's API: while the API is busy in a saturated
// process, few attempts send at once and few start for each request answered; otherwise every slot is
// free. delivery-worker.ts asks it before each claim; what it reads of the load is ApiLoad.
import type { Clock } from '../core/clock.js';

/**
 * The load of this instance's API, which deliveries give way to: while the process is saturated (its
 * event loop busy SATURATED_LOOP of the time since the last look, or STAYS_SATURATED_LOOP if the API
 * was busy at the last look), BUSY_REQUESTS or more API requests have been in flight at once
 * meanwhile and BUSY_ANSWERS_PER_LOOK or more were answered, at most SLOTS_WHILE_BUSY attempts are
 * sending, and attempts start at most STARTS_PER_ANSWER for each API request answered since the look
 * before (MIN_STARTS_PER_LOOK at least). A process with time to spare delivers at full speed, however
 * many requests it serves. A slot cap alone does not bound the deliveries' share of a
 * saturated process: an attempt to a receiver that answers at once frees its slot within a turn or
 * two, so 16 slots took as many turns as the API's connections, and an attempt (claiming, signing,
 * sending, reading, recording) costs more than a create. Tied to what the API answers, the deliveries
 * take a bounded share whatever the number of connections; they fall behind, durably, and catch up at
 * full speed once the burst has passed. (On the embedded store the attempts' records ride in the
 * journal's synced writes of the API's changes rather than starting their own: docs/performance.md,
 * "Events and webhooks".)
 */
export interface ApiLoad {
  /** The most requests in flight at once since the last call. */
  busiest(): number;
  /** Requests answered so far (a count that only grows). */
  answered(): number;
  /** The share of time the event loop was busy since the last call, 0 to 1. */
  loopUtilization(): number;
}

/** The event loop's busy share from which the process counts as saturated. */
const SATURATED_LOOP = 0.9;
/**
 * The busy share from which a process whose API counted as busy at the last look still counts as
 * saturated. Once deliveries are held back, the loop's share is nearly all the API's own, and an API
 * saturated by creates under `always` durability reads 0.85 to 0.88: its loop waits for each group's
 * fsync. With one threshold, every other look read that wait as time to spare and let deliveries run at
 * full speed for 100 ms; they took 40 % of the process (3,000 attempts a second beside 13,000 creates,
 * against 22,000 creates without subscriptions).
 */
const STAYS_SATURATED_LOOP = 0.75;
/** Requests in flight, at their peak, from which the API counts as busy. */
const BUSY_REQUESTS = 16;
/**
 * Requests answered since the last look from which the API counts as busy (640 a second): a process
 * saturated while its API answers fewer is saturated by its deliveries (or a compaction, or its start),
 * and holding them back would buy the API little and leave every subscriber waiting. At 500 creates a
 * second with 10 subscriptions, a start-up or a compaction held deliveries to 160 a second for a
 * second or more, against the 5,000 they needed.
 */
const BUSY_ANSWERS_PER_LOOK = 64;
/** Attempts sending at once while the API is busy. */
const SLOTS_WHILE_BUSY = 16;
/**
 * Attempts started per API request answered while the API is busy: one per 100. Under saturating
 * creates an attempt costs about eight of them (300 µs against 36 µs here, its caches cold), so one per
 * 50 took about a seventh of the process: `create` with 10 subscriptions read 0.71 of none (CPU a
 * request 1.41×), against 0.82 to 0.87 (1.16×) with one per 100, in runs of the same hour.
 */
const STARTS_PER_ANSWER = 0.01;
/** Attempts a busy look allows at least, so that deliveries go on behind an API that answers little. */
const MIN_STARTS_PER_LOOK = 16;
/** How often the worker looks at the API's load (it decides far more often). */
const LOOK_EVERY_MS = 100;

/** How many attempts may send at once and start before the next look at the API's load (see ApiLoad). */
export class DeliveryPacer {
  readonly #load: ApiLoad | undefined;
  readonly #maxInFlight: number;
  /** Whether the API counted as busy at the last look, when to look again, and what it had answered then. */
  #apiBusy = false;
  #lookAgainMs = Number.NEGATIVE_INFINITY;
  #answeredAtLook = 0;
  /** Attempts that may still start before the next look while the API is busy. */
  #startsLeft = Number.POSITIVE_INFINITY;

  constructor(load: ApiLoad | undefined, maxInFlight: number) {
    this.#load = load;
    this.#maxInFlight = maxInFlight;
  }

  /** When the next look at the API's load is due. */
  get lookAgainMs(): number {
    return this.#lookAgainMs;
  }

  /** Attempts that may still start before the next look (no limit while the API is not busy). */
  get startsLeft(): number {
    return this.#startsLeft;
  }

  /** Counts one attempt started. */
  started(): void {
    this.#startsLeft--;
  }

  /**
   * Attempts that may be sending now: every slot, or while the API is busy, SLOTS_WHILE_BUSY of them;
   * a look at the API's load also sets how many may start until the next look (see ApiLoad).
   */
  sendingSlots(clock: Clock): number {
    const load = this.#load;
    if (load === undefined) return this.#maxInFlight;
    const nowMs = clock.now();
    if (nowMs >= this.#lookAgainMs) {
      const answered = load.answered();
      // Both are asked at every look: each counts from the last call.
      const saturated = load.loopUtilization() >= (this.#apiBusy ? STAYS_SATURATED_LOOP : SATURATED_LOOP);
      this.#apiBusy =
        saturated && load.busiest() >= BUSY_REQUESTS && answered - this.#answeredAtLook >= BUSY_ANSWERS_PER_LOOK;
      this.#startsLeft = this.#apiBusy
        ? Math.max(MIN_STARTS_PER_LOOK, Math.floor((answered - this.#answeredAtLook) * STARTS_PER_ANSWER))
        : Number.POSITIVE_INFINITY;
      this.#answeredAtLook = answered;
      this.#lookAgainMs = nowMs + LOOK_EVERY_MS;
    }
    return this.#apiBusy ? Math.min(SLOTS_WHILE_BUSY, this.#maxInFlight) : this.#maxInFlight;
  }
}
