// The subscriptions of the embedded store, each with what belongs to it: its pending deliveries, its
// attempts and the events delivered to it. Indexed by id, by position (the records of attempts name
// their subscription by it), by owner (creation order, for paging) and,
// for the enabled ones, by event type, so recording an event finds its subscribers without a scan.
import type { EventType } from '../../events/event.js';
import type { Page } from '../store.js';
import type { Subscription } from '../webhook-store.js';
import { AttemptLog } from './attempt-log.js';
import { DeliveredSet } from './delivered-set.js';
import { DeliveryQueue } from './delivery-queue.js';

/** No subscribers: one shared empty list, as most events of a replay find none. */
const NONE: readonly SubscriptionEntry[] = [];

/** A subscription and what belongs to it. */
export interface SubscriptionEntry {
  subscription: Subscription;
  readonly queue: DeliveryQueue;
  readonly attempts: AttemptLog;
  readonly delivered: DeliveredSet;
}

/** Subscriptions by id, by owner and (enabled ones) by event type. */
export class SubscriptionTable {
  readonly #byId = new Map<string, SubscriptionEntry>();
  readonly #bySeq = new Map<number, SubscriptionEntry>();
  /** Each owner's subscriptions in creation order. */
  readonly #byOwner = new Map<string, SubscriptionEntry[]>();
  /** The enabled subscriptions of each type; rebuilt on every change of a subscription (rare). */
  #byType = new Map<EventType, SubscriptionEntry[]>();
  #disabled = 0;
  #nextSeq = 1;

  /** Hands out the next place in creation order. */
  takeSeq(): number {
    return this.#nextSeq++;
  }

  /** Makes sure places continue after `seq`. */
  noteSeq(seq: number): void {
    if (seq >= this.#nextSeq) this.#nextSeq = seq + 1;
  }

  get nextSeq(): number {
    return this.#nextSeq;
  }

  get size(): number {
    return this.#byId.size;
  }

  /** Disabled subscriptions. */
  get disabled(): number {
    return this.#disabled;
  }

  get(id: string): SubscriptionEntry | undefined {
    return this.#byId.get(id);
  }

  /** The subscription at position `seq` (a subscription keeps its position for life). */
  atSeq(seq: number): SubscriptionEntry | undefined {
    return this.#bySeq.get(seq);
  }

  /** Adds or replaces a subscription (by id); its entry. */
  put(subscription: Subscription): SubscriptionEntry {
    this.noteSeq(subscription.seq);
    let entry = this.#byId.get(subscription.id);
    if (entry === undefined) {
      entry = { subscription, queue: new DeliveryQueue(), attempts: new AttemptLog(), delivered: new DeliveredSet() };
      this.#byId.set(subscription.id, entry);
      this.#bySeq.set(subscription.seq, entry);
      const owned = this.#byOwner.get(subscription.ownerKeyId) ?? [];
      let index = owned.length;
      while (index > 0 && (owned[index - 1] as SubscriptionEntry).subscription.seq > subscription.seq) index--;
      owned.splice(index, 0, entry);
      this.#byOwner.set(subscription.ownerKeyId, owned);
    } else {
      if (entry.subscription.status === 'disabled') this.#disabled--;
      entry.subscription = subscription;
    }
    if (subscription.status === 'disabled') this.#disabled++;
    this.#index();
    return entry;
  }

  /** Removes subscription `id`; its entry, or undefined when there was none. */
  remove(id: string): SubscriptionEntry | undefined {
    const entry = this.#byId.get(id);
    if (entry === undefined) return undefined;
    this.#byId.delete(id);
    const { ownerKeyId, status, seq } = entry.subscription;
    if (this.#bySeq.get(seq) === entry) this.#bySeq.delete(seq);
    const owned = (this.#byOwner.get(ownerKeyId) ?? []).filter((other) => other !== entry);
    if (owned.length === 0) this.#byOwner.delete(ownerKeyId);
    else this.#byOwner.set(ownerKeyId, owned);
    if (status === 'disabled') this.#disabled--;
    this.#index();
    return entry;
  }

  /** How many subscriptions `owner` has. */
  countOf(owner: string): number {
    return this.#byOwner.get(owner)?.length ?? 0;
  }

  /** `owner`'s subscriptions after `afterSeq`, in creation order. */
  page(owner: string, afterSeq: number, limit: number): Page<Subscription> {
    const owned = this.#byOwner.get(owner) ?? [];
    const after = owned.filter((entry) => entry.subscription.seq > afterSeq);
    return {
      items: after.slice(0, limit).map((entry) => entry.subscription),
      more: after.length > limit,
      total: owned.length,
    };
  }

  /** The enabled subscriptions to `type`. */
  subscribersOf(type: EventType): readonly SubscriptionEntry[] {
    return this.#byType.get(type) ?? NONE;
  }

  /** Every subscription, in no particular order (cheaper than `values`). */
  all(): IterableIterator<SubscriptionEntry> {
    return this.#byId.values();
  }

  /** Every subscription, in creation order. */
  values(): SubscriptionEntry[] {
    return [...this.#byId.values()].sort((one, other) => one.subscription.seq - other.subscription.seq);
  }

  #index(): void {
    const byType = new Map<EventType, SubscriptionEntry[]>();
    for (const entry of this.#byId.values()) {
      if (entry.subscription.status !== 'enabled') continue;
      for (const type of entry.subscription.events) {
        const entries = byType.get(type) ?? [];
        entries.push(entry);
        byType.set(type, entries);
      }
    }
    this.#byType = byType;
  }
}
