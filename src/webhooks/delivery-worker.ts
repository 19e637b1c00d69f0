// The delivery worker: runs in every instance of the service, takes the deliveries that are due from the
// store (on a shared store each is taken by one instance at a time, for a lease), sends each signed as
// Standard Webhooks v1 says, and records the attempt with what follows it: done, retried on the schedule,
// or the subscription disabled. Delivery is at least once: an instance that dies mid-attempt leaves its
// deliveries to be taken again when their leases end, and a receiver de-duplicates on `webhook-id`.
// It wakes when the store says deliveries may be due (a change on any instance) and when the earliest
// pending one falls due; nothing polls faster than that. One attempt: delivery-attempt.ts; how fast
// attempts start beside the API's load: delivery-pacer.ts.
import type { Clock } from '../core/clock.js';
import type { AttemptResult, DueDelivery, WebhookStore } from '../store/webhook-store.js';
import { attemptDelivery, type DeliverySender } from './delivery-attempt.js';
import { type ApiLoad, DeliveryPacer } from './delivery-pacer.js';
import type { WebhookSettings } from './settings.js';

/** What the worker tells of its work, for metrics and the log. */
export interface DeliveryObserver {
  attempted(outcome: 'delivered' | 'retrying' | 'failed' | 'disabled'): void;
  disabled(subscriptionId: string, reason: string): void;
}

/** What the worker is made of. */
export interface DeliveryWorkerParts {
  store: WebhookStore;
  sender: DeliverySender;
  clock: Clock;
  settings: WebhookSettings;
  /** Whether the API key with this record id is still in force: a revoked key's subscriptions receive nothing more. */
  isKeyActive(keyId: string): boolean;
  /** Uniform in [0, 1): the retry schedule's jitter. */
  random?: () => number;
  observer?: DeliveryObserver;
  /** The most attempts in flight at once, over every subscription. */
  maxInFlight?: number;
  /** The API's load, which deliveries give way to (see ApiLoad); none by default. */
  apiLoad?: ApiLoad;
}

/** Attempts in flight at once by default: enough for many receivers, few enough for one process's sockets. */
const DEFAULT_MAX_IN_FLIGHT = 128;
/**
 * Attempts in flight to a subscription whose receiver is failing (its last attempt failed), at most:
 * a receiver that hangs holds few slots (twenty such subscriptions of one key hold 40 of the 128), and
 * one that is down is not sent a burst it cannot take; its first success gives it its full share again.
 */
const FAILING_IN_FLIGHT_PER_SUBSCRIPTION = 2;
/** Outcomes that may wait to be written, per sending slot, before the worker stops taking deliveries. */
const RECORDING_PER_SLOT = 4;
/** A lease outlives the attempt's own timeout by this much, so a slow but live attempt keeps its delivery. */
const LEASE_MARGIN_MS = 30_000;
/** How long the worker waits before it looks again at deliveries due but held back (see #sleepUntilDue). */
const HELD_BACK_MS = 250;
/** The longest the worker sleeps without looking: a safety net for a notice lost with a database connection. */
const MAX_SLEEP_MS = 30_000;
/** Attempts started in one turn of the event loop; the rest of a claim waits for the next turns (leased meanwhile). */
const STARTS_PER_TURN = 16;
/** How often events past retention are forgotten. */
const PURGE_EVERY_MS = 60 * 60 * 1000;
/** Resolves in a later turn of the event loop, after the sockets have been read. */
const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Delivers pending events until stopped. */
export class DeliveryWorker {
  readonly #parts: DeliveryWorkerParts;
  readonly #random: () => number;
  readonly #maxInFlight: number;
  /** How many attempts may send and start beside the API's load. */
  readonly #pacer: DeliveryPacer;
  /**
   * Subscription id → attempts in flight to it from this worker, plus the whole per-subscription
   * allowance while an outcome that disables it is being recorded (no attempt starts after a 410).
   */
  readonly #held = new Map<string, number>();
  /** Attempts sending now. */
  readonly #inFlight = new Set<Promise<void>>();
  /**
   * Outcomes waiting to be written, and the write under way. A delivery stays leased until its outcome
   * is applied, so the sending slot is let go as soon as the answer is in; the outcomes that arrive
   * while one batch is written are written together next (one journal write or one statement).
   */
  #outcomes: AttemptResult[] = [];
  #writing = 0;
  #recording: Promise<void> | undefined;
  #running = false;
  #again = false;
  #stopped = true;
  #timer: NodeJS.Timeout | undefined;
  #purgeTimer: NodeJS.Timeout | undefined;
  #unwatch: (() => void) | undefined;

  constructor(parts: DeliveryWorkerParts) {
    this.#parts = parts;
    this.#random = parts.random ?? Math.random;
    this.#maxInFlight = parts.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT;
    this.#pacer = new DeliveryPacer(parts.apiLoad, this.#maxInFlight);
  }

  /** Starts delivering: what is due now, then whatever falls due. */
  start(): void {
    if (!this.#stopped) return;
    this.#stopped = false;
    this.#unwatch = this.#parts.store.watch(() => this.poke());
    this.#purgeTimer = setInterval(() => void this.#purge(), PURGE_EVERY_MS);
    this.#purgeTimer.unref();
    void this.#purge();
    this.poke();
  }

  /** Attempts in flight now: sending, or their outcome being recorded. */
  get inFlight(): number {
    return this.#inFlight.size + this.#outcomes.length + this.#writing;
  }

  /** Looks for due deliveries soon (a change may have made some due). */
  poke(): void {
    if (this.#stopped) return;
    if (this.#running) {
      this.#again = true;
      return;
    }
    this.#running = true;
    void this.#cycle().finally(() => {
      this.#running = false;
      if (this.#again && !this.#stopped) {
        this.#again = false;
        this.poke();
      }
    });
  }

  /**
   * Stops taking deliveries and waits up to `drainMs` for the attempts in flight; what is not finished
   * then stays pending (its lease ends and it is attempted again, here after a restart or elsewhere).
   */
  async stop(drainMs: number): Promise<void> {
    this.#stopped = true;
    this.#unwatch?.();
    clearTimeout(this.#timer);
    clearInterval(this.#purgeTimer);
    if (this.#inFlight.size === 0 && this.#recording === undefined) return;
    let timer: NodeJS.Timeout | undefined;
    const drained = async (): Promise<void> => {
      await Promise.allSettled([...this.#inFlight]);
      while (this.#recording !== undefined) await this.#recording;
    };
    await Promise.race([
      drained(),
      new Promise((done) => {
        timer = setTimeout(done, drainMs);
      }),
    ]);
    clearTimeout(timer);
  }

  /** Claims what is due, up to the free slots, starts each attempt, then sleeps until the next is due. */
  async #cycle(): Promise<void> {
    const { store, clock, settings } = this.#parts;
    try {
      // Whether the last claim took every delivery it could: what is still due then is held back (its
      // subscription at its limit, or claimed by another instance just now).
      let claimedAllDue = false;
      for (;;) {
        this.#again = false;
        // Outcomes waiting to be written hold memory and leases: past a bound, wait for the journal.
        const slots = this.#pacer.sendingSlots(clock);
        const free =
          this.#outcomes.length >= this.#maxInFlight * RECORDING_PER_SLOT
            ? 0
            : Math.min(slots - this.#inFlight.size, this.#pacer.startsLeft);
        if (free <= 0) {
          // Out of starts for now: look again when the next look is due (an ending attempt pokes sooner).
          if (this.#pacer.startsLeft <= 0) this.#sleep(this.#pacer.lookAgainMs - clock.now());
          return;
        }
        const due = await store.claimDue(
          clock.now(),
          free,
          settings.timeoutMs + LEASE_MARGIN_MS,
          settings.maxInFlightPerSubscription,
          this.#held,
          Math.min(FAILING_IN_FLIGHT_PER_SUBSCRIPTION, settings.maxInFlightPerSubscription),
        );
        for (let index = 0; index < due.length; index++) {
          // A turn of the event loop between slices of starts: each signs its body and writes its
          // request, a tenth of a millisecond or more, so 128 at once held the API up for 10 to 40 ms.
          // Stopped meanwhile: the rest stay leased and are attempted again once their leases end.
          if (index > 0 && index % STARTS_PER_TURN === 0) await nextTurn();
          if (this.#stopped) break;
          this.#pacer.started();
          this.#start(due[index] as DueDelivery);
        }
        if (due.length < free || this.#stopped) {
          claimedAllDue = true;
          break;
        }
      }
      // Poked meanwhile (an attempt ended, a change made deliveries): the cycle that follows at once
      // looks for the next due time when it ends, and this one need not ask the store.
      if (this.#again) return;
      await this.#sleepUntilDue(claimedAllDue);
    } catch {
      // The store is away (PostgreSQL down): try again after a while; readiness reports the store itself.
      this.#sleep(MAX_SLEEP_MS / 6);
    }
  }

  /**
   * Sleeps until the next delivery falls due. One already due after a claim that took all it could is
   * held back (a subscription at its limit, whose ending attempt pokes the worker): asking again at
   * once would ask in a loop while that attempt hangs, so the worker looks again after HELD_BACK_MS.
   */
  async #sleepUntilDue(claimedAllDue: boolean): Promise<void> {
    const dueMs = await this.#parts.store.nextDueMs();
    const nowMs = this.#parts.clock.now();
    if (dueMs === undefined) this.#sleep(MAX_SLEEP_MS);
    else if (dueMs <= nowMs && claimedAllDue) this.#sleep(HELD_BACK_MS);
    else this.#sleep(Math.min(Math.max(dueMs - nowMs, 0), MAX_SLEEP_MS));
  }

  #sleep(ms: number): void {
    if (this.#stopped) return;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => this.poke(), ms);
    this.#timer.unref();
  }

  #start(delivery: DueDelivery): void {
    const { subscriptionId } = delivery;
    this.#hold(subscriptionId, 1);
    const attempt = attemptDelivery(this.#parts, this.#random, delivery)
      .then((result) => {
        if (result === undefined) return;
        // An outcome that disables the subscription keeps every slot of it until it is recorded.
        if (result.disableReason !== undefined)
          this.#hold(subscriptionId, this.#parts.settings.maxInFlightPerSubscription);
        this.#record(result);
      })
      .catch(() => {
        // Dropping failed (the store is away): the lease ends and the delivery is attempted again.
      })
      .finally(() => {
        this.#hold(subscriptionId, -1);
        this.#inFlight.delete(attempt);
        this.poke();
      });
    this.#inFlight.add(attempt);
  }

  #hold(subscriptionId: string, change: number): void {
    const held = (this.#held.get(subscriptionId) ?? 0) + change;
    if (held <= 0) this.#held.delete(subscriptionId);
    else this.#held.set(subscriptionId, held);
  }

  #record(result: AttemptResult): void {
    this.#outcomes.push(result);
    this.#recording ??= this.#writeOutcomes().finally(() => {
      this.#recording = undefined;
      this.poke();
    });
  }

  /** Writes the outcomes queued, batch after batch, until none is left. */
  async #writeOutcomes(): Promise<void> {
    const { store, observer, settings } = this.#parts;
    while (this.#outcomes.length > 0) {
      const batch = this.#outcomes;
      this.#outcomes = [];
      this.#writing = batch.length;
      try {
        await store.finishAttempts(batch);
      } catch {
        // Recording failed (the store is away): the leases end and the deliveries are attempted again.
        continue;
      } finally {
        this.#writing = 0;
        for (const result of batch) {
          if (result.disableReason !== undefined)
            this.#hold(result.subscriptionId, -settings.maxInFlightPerSubscription);
        }
        this.poke();
      }
      for (const result of batch) {
        if (result.disableReason !== undefined) observer?.disabled(result.subscriptionId, result.disableReason);
        observer?.attempted(
          result.delivered
            ? 'delivered'
            : result.disableReason !== undefined
              ? 'disabled'
              : result.nextAttemptAtMs === null
                ? 'failed'
                : 'retrying',
        );
      }
    }
  }

  async #purge(): Promise<void> {
    const { store, clock, settings } = this.#parts;
    await store.purge(clock.now() - settings.eventRetentionMs).catch(() => {});
  }
}
