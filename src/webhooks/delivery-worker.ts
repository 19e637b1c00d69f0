// The delivery worker: runs in every instance of the service, takes the deliveries that are due from the
// store (on a shared store each is taken by one instance at a time, for a lease), sends each signed as
// Standard Webhooks v1 says, and records the attempt with what follows it: done, retried on the schedule,
// or the subscription disabled. Delivery is at least once: an instance that dies mid-attempt leaves its
// deliveries to be taken again when their leases end, and a receiver de-duplicates on `webhook-id`.
// It wakes when the store says deliveries may be due (a change on any instance) and when the earliest
// pending one falls due; nothing polls faster than that.
import type { Clock } from '../core/clock.js';
import type { AttemptResult, DueDelivery, WebhookStore } from '../store/webhook-store.js';
import type { DeliveryRequest, DeliveryResult } from './delivery-transport.js';
import { newAttemptId } from './ids.js';
import { parseRetryAfterMs } from './retry-after.js';
import { honoursRetryAfter, nextAttemptDelayMs } from './retry-schedule.js';
import type { WebhookSettings } from './settings.js';
import { signatureHeaders } from './signature.js';

/** What the worker sends with: one attempt, never throwing for a failure of the network or the receiver. */
export interface DeliverySender {
  send(request: DeliveryRequest): Promise<DeliveryResult>;
}

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

/** The `User-Agent` of every delivery. */
const USER_AGENT = 'animal-store-webhooks/1';
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
/** A whole attempt counts as failed unless its status is 2xx (Standard Webhooks: success is any 2xx). */
const isSuccess = (status: number | null): boolean => status !== null && status >= 200 && status < 300;

/** Delivers pending events until stopped. */
export class DeliveryWorker {
  readonly #parts: DeliveryWorkerParts;
  readonly #random: () => number;
  readonly #maxInFlight: number;
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
  /** Whether the API counted as busy at the last look, when to look again, and what it had answered then. */
  #apiBusy = false;
  #lookAgainMs = Number.NEGATIVE_INFINITY;
  #answeredAtLook = 0;
  /** Attempts that may still start before the next look while the API is busy. */
  #startsLeft = Number.POSITIVE_INFINITY;
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
        const slots = this.#sendingSlots();
        const free =
          this.#outcomes.length >= this.#maxInFlight * RECORDING_PER_SLOT
            ? 0
            : Math.min(slots - this.#inFlight.size, this.#startsLeft);
        if (free <= 0) {
          // Out of starts for now: look again when the next look is due (an ending attempt pokes sooner).
          if (this.#startsLeft <= 0) this.#sleep(this.#lookAgainMs - clock.now());
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
          this.#startsLeft--;
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
   * Attempts that may be sending now: every slot, or while the API is busy, SLOTS_WHILE_BUSY of them;
   * a look at the API's load also sets how many may start until the next look (see ApiLoad).
   */
  #sendingSlots(): number {
    const load = this.#parts.apiLoad;
    if (load === undefined) return this.#maxInFlight;
    const nowMs = this.#parts.clock.now();
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
    const attempt = this.#attempt(delivery)
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

  /** Sends one attempt and decides what follows; undefined when the delivery was dropped unsent. */
  async #attempt(delivery: DueDelivery): Promise<AttemptResult | undefined> {
    const { store, sender, clock } = this.#parts;
    if (!this.#parts.isKeyActive(delivery.ownerKeyId)) {
      await store.dropDelivery(delivery.deliveryId);
      return undefined;
    }
    const attemptedAtMs = clock.now();
    const body = delivery.event.json;
    const headers = {
      'content-type': 'application/json',
      'user-agent': USER_AGENT,
      ...signatureHeaders(delivery.secrets, delivery.event.id, Math.floor(attemptedAtMs / 1000), body),
    };
    const outcome = await sender.send({ url: delivery.url, headers, body });
    return this.#decide(delivery, attemptedAtMs, outcome);
  }

  /** What an attempt's outcome means: done, retried when, or the subscription disabled, and the record of it. */
  #decide(delivery: DueDelivery, attemptedAtMs: number, outcome: DeliveryResult): AttemptResult {
    const { settings, clock } = this.#parts;
    const delivered = outcome.error === null && isSuccess(outcome.status);
    const endedMs = attemptedAtMs + outcome.durationMs;
    let nextAttemptAtMs: number | null = null;
    let disableReason: string | undefined;
    let failingSinceMs: number | null = null;
    if (!delivered) {
      failingSinceMs = delivery.failingSinceMs ?? attemptedAtMs;
      if (outcome.status === 410) {
        disableReason = 'the endpoint answered 410 Gone';
      } else if (endedMs - failingSinceMs >= settings.disableAfterMs) {
        disableReason = `no delivery has succeeded since ${new Date(failingSinceMs).toISOString()}`;
      } else {
        const retryAfterMs =
          outcome.status !== null && honoursRetryAfter(outcome.status)
            ? parseRetryAfterMs(outcome.retryAfter, clock.now())
            : undefined;
        const waitMs = nextAttemptDelayMs({
          attemptNumber: delivery.attemptsMade + 1,
          waitsMs: settings.retryWaitsMs,
          random: this.#random,
          ...(retryAfterMs !== undefined && { retryAfterMs }),
        });
        if (waitMs !== undefined) nextAttemptAtMs = endedMs + waitMs;
      }
    }
    return {
      deliveryId: delivery.deliveryId,
      subscriptionId: delivery.subscriptionId,
      // The facts only: the store renders the listed JSON from them (attempt-json.ts) when it is asked.
      attempt: {
        id: newAttemptId(),
        attemptedAtMs: Math.trunc(attemptedAtMs),
        status: outcome.status,
        error: outcome.error,
        durationMs: Math.max(0, Math.round(outcome.durationMs)),
        response: outcome.responseText,
      },
      event: delivery.event,
      nextAttemptAtMs,
      delivered,
      failingSinceMs,
      ...(disableReason !== undefined && { disableReason }),
    };
  }

  async #purge(): Promise<void> {
    const { store, clock, settings } = this.#parts;
    await store.purge(clock.now() - settings.eventRetentionMs).catch(() => {});
  }
}
