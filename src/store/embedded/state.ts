// What the embedded store holds in memory: pets, orders, remembered Idempotency-Key answers, and the
// webhook half (events, subscriptions, deliveries, attempts). A change is written to the log first and
// applied only once the log accepted it; replay at start-up applies the same records through the same
// `apply`, so the memory always equals a replay of the file, events and deliveries included.
import type { Clock } from '../../core/clock.js';
import { orderEvents } from '../../events/event.js';
import { MemoryIdempotencyTable } from './idempotency-table.js';
import { OrderCollection, PetCollection } from './indexed-collection.js';
import { type Change, encodeChange } from './records.js';
import { frozenSource, snapshotChanges } from './snapshot.js';
import { WebhookState } from './webhook-state.js';

/** Where changes are made durable before they are applied; resolves once the change is safe. */
export interface ChangeLog {
  append(payload: string): Promise<void>;
  /** As `append`, but waits to share a write that another append starts (Journal.appendDeferred); `append` when absent. */
  appendDeferred?(payload: string): Promise<void>;
}

/** A change log that keeps nothing: the in-memory mode of the library. */
export const NO_LOG: ChangeLog = { append: () => Promise.resolve() };

/** The collections of the embedded store and the one way they change. */
export class EmbeddedState {
  readonly pets = new PetCollection();
  readonly orders = new OrderCollection();
  readonly idempotency = new MemoryIdempotencyTable();
  readonly webhooks = new WebhookState();
  readonly #log: ChangeLog;
  readonly #clock: Clock;

  constructor(log: ChangeLog, clock: Clock) {
    this.#log = log;
    this.#clock = clock;
  }

  /**
   * Writes `change` to the log, then applies it; rejects (applying nothing) if the log refused it.
   * The append is queued before this returns, so changes reach the log in the order they were committed.
   */
  async commit(change: Change): Promise<void> {
    await this.#log.append(encodeChange(change));
    this.apply(change);
  }

  /**
   * As `commit`, for a change nobody waits on: its record joins the next write another change starts
   * (or is written shortly if none does), and is applied once written, as any other.
   */
  async commitDeferred(change: Change): Promise<void> {
    const log = this.#log;
    const payload = encodeChange(change);
    await (log.appendDeferred === undefined ? log.append(payload) : log.appendDeferred(payload));
    this.apply(change);
  }

  /** Applies a change to the collections; used by `commit` and by replay. */
  apply(change: Change): void {
    // The clock is read only for a remembered answer: replay applies a million plain pets at start-up.
    switch (change.op) {
      case 'pet':
        this.pets.put(change.pet);
        // petCreatedEvents, without its array: replay applies a million of these at start-up.
        if (change.eventSeq !== undefined && change.atMs !== undefined)
          this.webhooks.recordEvent(change.eventSeq, 'pet.created', change.atMs, change.pet.json);
        if (change.idem !== undefined)
          this.idempotency.remember({ ...change.idem, body: change.pet.json }, this.#clock.now());
        return;
      case 'order': {
        const placed = this.orders.get(change.order.id) === undefined;
        this.orders.put(change.order);
        if (change.pet !== undefined) this.pets.put(change.pet);
        if (change.eventSeq !== undefined && change.atMs !== undefined) {
          const drafts = orderEvents(placed, change.order.json, change.pet?.json ?? '');
          this.webhooks.recordEvents(
            change.eventSeq,
            change.atMs,
            change.pet === undefined ? drafts.slice(0, 1) : drafts,
          );
        }
        if (change.idem !== undefined)
          this.idempotency.remember({ ...change.idem, body: change.order.json }, this.#clock.now());
        return;
      }
      case 'idem':
        this.idempotency.remember(change.entry, this.#clock.now());
        return;
      default:
        this.webhooks.apply(change);
        if ('remember' in change && change.remember !== undefined)
          this.idempotency.remember(change.remember, this.#clock.now());
    }
  }

  /** The records a compacted log holds (snapshot.ts). */
  snapshot(): string[] {
    return [...this.frozenSnapshot()];
  }

  /**
   * The records a compacted log holds, of the state as it is now: copied at once (snapshot.ts,
   * frozenSource), each record made only as it is read, so a compaction spreads that work over many
   * turns of the event loop while changes go on.
   */
  frozenSnapshot(): Iterable<string> {
    const nowMs = this.#clock.now();
    const changes = snapshotChanges(frozenSource(this, nowMs), nowMs);
    return (function* records() {
      for (const change of changes) yield encodeChange(change);
    })();
  }

  /** About how many records a compacted log would hold (a pet and its creation share one). */
  get liveRecords(): number {
    const { events } = this.webhooks;
    return (
      this.pets.count() +
      this.orders.count() +
      this.idempotency.size +
      events.size -
      events.countOf('pet.created') +
      this.webhooks.liveRecords
    );
  }
}
