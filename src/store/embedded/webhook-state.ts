// The webhook half of the embedded store's memory: retained events, subscriptions with their pending
// deliveries, attempts and delivered events, and the one way they change, `apply`, which commit and
// replay share (state.ts). Recording an event fans it out in the same step: one pending delivery for
// every enabled subscription of its type, due at the event's time. What decides (who may, when to
// retry) lives above the store; this only carries out the records.
import { type EventDraft, type EventType, TEST_EVENT_TYPE } from '../../events/event.js';
import { EventLog } from './event-log.js';
import { loggedAttempt, PENDING_PER_RECORD, subscriptionRecords } from './subscription-records.js';
import { type SubscriptionEntry, SubscriptionTable } from './subscription-table.js';
import type { AttemptChange, WebhookChange } from './webhook-records.js';

/** Up to this many subscriptions, `liveRecords` counts them all every time. */
const FEW_SUBSCRIPTIONS = 64;
const COUNT_EVERY_CHANGES = 1024;

/** What a snapshot reads of the webhook half: the live state, or a frozen copy of it. */
export interface WebhookSnapshotSource {
  readonly events: EventLog;
  seqs(): WebhookChange | undefined;
  snapshot(): Iterable<WebhookChange>;
}

/** Events, subscriptions, deliveries and attempts, in memory. */
export class WebhookState implements WebhookSnapshotSource {
  readonly events = new EventLog();
  readonly subscriptions = new SubscriptionTable();
  #nextAttemptSeq = 1;
  /** Tells deliveries of the same event apart (in memory only: a restart lets go of every claim). */
  #nextGeneration = 1;
  readonly #listeners = new Set<() => void>();
  #notifying = false;
  /** Changes applied, and the last count of live records with when it was made. */
  #changes = 0;
  #liveRecords = 0;
  #countedAtChange = Number.NEGATIVE_INFINITY;

  /** Hands out the next attempt's place in the order of attempts. */
  takeAttemptSeq(): number {
    return this.#nextAttemptSeq++;
  }

  /** Records the events of a change, its first at `firstSeq`, each fanned out to its subscribers. */
  recordEvents(firstSeq: number, atMs: number, drafts: readonly EventDraft[]): void {
    for (let index = 0; index < drafts.length; index++) {
      const draft = drafts[index] as EventDraft;
      this.recordEvent(firstSeq + index, draft.type, atMs, draft.dataJson);
    }
  }

  /** Applies a webhook change; used by commit and by replay. */
  apply(change: WebhookChange): void {
    this.#changes++;
    switch (change.op) {
      case 'sub': {
        const entry = this.subscriptions.put(change.subscription);
        if (change.subscription.status === 'disabled' && entry.queue.size > 0) {
          const { queue } = entry;
          // One under way too, as a replay (which knows no leases) sees it: the record of its attempt,
          // if it comes while the subscription is still disabled, gives the time back.
          entry.attempts.endSchedules((eventSeq) => queue.find(eventSeq) !== -1);
          queue.clear();
        }
        this.#notify();
        return;
      }
      case 'unsub':
        this.subscriptions.remove(change.id);
        this.#notify();
        return;
      case 'test': {
        const data = JSON.stringify({ webhookId: change.subscriptionId });
        if (!this.events.record(change.seq, TEST_EVENT_TYPE, change.atMs, data)) return;
        const entry = this.#enabled(change.subscriptionId);
        if (entry !== undefined) this.#deliver(entry, change.seq, change.atMs);
        return;
      }
      case 'redeliver':
        if (this.events.get(change.eventSeq) === undefined) return;
        for (const id of change.subscriptionIds) {
          const entry = this.#enabled(id);
          if (entry !== undefined) this.#deliver(entry, change.eventSeq, change.atMs);
        }
        return;
      case 'recover': {
        const entry = this.#enabled(change.subscriptionId);
        if (entry === undefined) return;
        // A delivery still pending is replaced by the new one, due now with the whole schedule, as a
        // redelivery replaces it (journals written before recovery replaced them listed none).
        for (const seq of change.eventSeqs)
          if (this.events.get(seq) !== undefined) this.#deliver(entry, seq, change.atMs);
        return;
      }
      case 'attempt':
        this.#applyAttempt(change);
        return;
      case 'drop': {
        const queue = this.subscriptions.get(change.subscriptionId)?.queue;
        const slot = queue?.find(change.eventSeq) ?? -1;
        if (slot !== -1) queue?.remove(slot);
        return;
      }
      case 'purge': {
        const first = this.events.purge(change.beforeMs);
        for (const entry of this.subscriptions.all()) {
          entry.queue.dropBefore(first);
          entry.attempts.dropBefore(first);
          entry.delivered.dropBefore(first);
        }
        return;
      }
      case 'seqs':
        this.events.startAt(change.firstEvent);
        this.events.noteSeq(change.nextEvent - 1);
        this.subscriptions.noteSeq(change.nextSubscription - 1);
        this.#nextAttemptSeq = Math.max(this.#nextAttemptSeq, change.nextAttempt);
        return;
      case 'event':
        // A compaction's event: recorded before any subscription is, so it fans out to none.
        this.events.record(change.seq, change.type, change.atMs, change.dataJson);
        return;
      case 'pending': {
        const entry = this.subscriptions.get(change.subscriptionId);
        for (const [seq, attemptsMade, nextAttemptAtMs] of change.rows) {
          if (entry !== undefined && this.events.get(seq) !== undefined)
            entry.queue.add(seq, nextAttemptAtMs, attemptsMade, this.#generation());
        }
        return;
      }
      case 'delivered': {
        const delivered = this.subscriptions.get(change.subscriptionId)?.delivered;
        for (const [first, last] of change.ranges) for (let seq = first; seq <= last; seq++) delivered?.add(seq);
        return;
      }
      case 'kept-attempt': {
        this.#nextAttemptSeq = Math.max(this.#nextAttemptSeq, change.seq + 1);
        const attempt = loggedAttempt(change, this.events.get(change.eventSeq));
        if (attempt !== undefined) this.#entryOf(change.subscription)?.attempts.add(attempt);
        return;
      }
    }
  }

  /** Calls `listener` soon after deliveries may have become due or a subscription changed; returns how to stop. */
  watch(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** The records a compacted log holds for subscriptions (events are written with the pets: state.ts). */
  snapshot(): Generator<WebhookChange> {
    return subscriptionRecords(this.subscriptions.values());
  }

  /**
   * What a snapshot reads, as it is now, however this state changes later: the event log, the counters
   * and each subscription's deliveries, attempts and delivered set, copied (memory copies of columns and
   * of arrays of immutable items); the records themselves are made as the copy is read.
   */
  frozen(): WebhookSnapshotSource {
    const events = this.events.copy();
    const seqs = this.seqs();
    const entries = this.subscriptions.values().map(({ subscription, queue, attempts, delivered }) => {
      const kept = attempts.values().slice();
      return { subscription, queue: queue.copy(), attempts: { values: () => kept }, delivered: delivered.copy() };
    });
    return { events, seqs: () => seqs, snapshot: () => subscriptionRecords(entries) };
  }

  /**
   * How many records `snapshot` writes, and the counters record: what the compaction trigger weighs
   * after every append. Counted again only every COUNT_EVERY_CHANGES changes once there are many
   * subscriptions, as the count walks them all; the trigger needs no more than an estimate.
   */
  get liveRecords(): number {
    const { size } = this.subscriptions;
    if (size > FEW_SUBSCRIPTIONS && this.#changes - this.#countedAtChange < COUNT_EVERY_CHANGES)
      return this.#liveRecords;
    let records = this.seqs() === undefined ? 0 : 1;
    for (const { queue, attempts, delivered } of this.subscriptions.all())
      records += 1 + Math.ceil(queue.size / PENDING_PER_RECORD) + attempts.size + (delivered.isEmpty ? 0 : 1);
    this.#liveRecords = records;
    this.#countedAtChange = this.#changes;
    return records;
  }

  /**
   * The counters a compacted log starts with, so that nothing forgotten is handed out again; undefined
   * while nothing was ever counted (a store of the first release compacts as it always did).
   */
  seqs(): WebhookChange | undefined {
    if (this.events.nextSeq === 1 && this.subscriptions.nextSeq === 1 && this.#nextAttemptSeq === 1) return undefined;
    return {
      op: 'seqs',
      firstEvent: this.events.firstSeq,
      nextEvent: this.events.nextSeq,
      nextSubscription: this.subscriptions.nextSeq,
      nextAttempt: this.#nextAttemptSeq,
    };
  }

  /** Records one event of a change and fans it out to its subscribers. */
  recordEvent(seq: number, type: EventType, atMs: number, dataJson: string): void {
    if (!this.events.record(seq, type, atMs, dataJson)) return;
    const subscribers = this.subscriptions.subscribersOf(type);
    if (subscribers.length === 0) return;
    this.#changes++;
    for (const entry of subscribers) entry.queue.add(seq, atMs, 0, this.#generation());
    this.#notify();
  }

  #applyAttempt(change: AttemptChange): void {
    const entry = this.#entryOf(change.subscription);
    this.#nextAttemptSeq = Math.max(this.#nextAttemptSeq, change.seq + 1);
    // A subscription deleted meanwhile took its attempts with it.
    if (entry === undefined) return;
    const { eventSeq } = change;
    // Kept only while its event is retained.
    const event = this.events.get(eventSeq);
    const attempt = event === undefined ? undefined : loggedAttempt(change, event);
    // Made on a delivery that a disable dropped while it was under way: the attempt before it announced
    // it. (Once enabled again, a time a disable took back belongs to no delivery pending now.)
    if (!change.current && entry.subscription.status === 'disabled') entry.attempts.resumeSchedule(eventSeq);
    if (attempt !== undefined) entry.attempts.add(attempt);
    if (change.delivered) entry.delivered.add(eventSeq);
    const slot = change.current ? entry.queue.find(eventSeq) : -1;
    if (slot !== -1) {
      if (change.nextAttemptAtMs === null) entry.queue.remove(slot);
      else entry.queue.reschedule(slot, change.nextAttemptAtMs);
    }
    const current = entry.subscription;
    const disable = change.disableReason !== undefined && current.status === 'enabled';
    if (disable || current.failingSinceMs !== change.failingSinceMs) {
      this.apply({
        op: 'sub',
        subscription: {
          ...current,
          failingSinceMs: change.failingSinceMs,
          ...(disable && { status: 'disabled', disabledReason: change.disableReason ?? null }),
        },
      });
    } else if (slot !== -1) {
      this.#notify();
    }
  }

  /** A subscription by its position (records of this release) or its id (of earlier ones). */
  #entryOf(subscription: number | string): SubscriptionEntry | undefined {
    return typeof subscription === 'number'
      ? this.subscriptions.atSeq(subscription)
      : this.subscriptions.get(subscription);
  }

  #enabled(id: string): SubscriptionEntry | undefined {
    const entry = this.subscriptions.get(id);
    return entry?.subscription.status === 'enabled' ? entry : undefined;
  }

  #deliver(entry: SubscriptionEntry, seq: number, dueMs: number): void {
    entry.queue.add(seq, dueMs, 0, this.#generation());
    this.#notify();
  }

  #generation(): number {
    const generation = this.#nextGeneration;
    // Generations are 32-bit in the delivery columns; 0 marks a dead slot.
    this.#nextGeneration = generation >= 0xffffffff ? 1 : generation + 1;
    return generation;
  }

  /** Tells the watchers once, after the current turn's changes, never from inside an apply. */
  #notify(): void {
    if (this.#notifying || this.#listeners.size === 0) return;
    this.#notifying = true;
    queueMicrotask(() => {
      this.#notifying = false;
      for (const listener of this.#listeners) listener();
    });
  }
}
