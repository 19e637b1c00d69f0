// The WebhookStore of the embedded store (docs/events.md): reads answer from memory at once; every change
// is one journal record, committed through the same state as pets and orders, so it is durable before it
// is applied and replay rebuilds it. Changes to one subscription are serialised by a lock on its id
// (on its owner for an addition, so that the count per owner is checked with the insert), as a row lock
// does on PostgreSQL. Claims and leases live in this process only: one process owns the data directory.
import type { Clock } from '../../core/clock.js';
import { eventSeqOf } from '../../events/event-id.js';
import { type StoredEvent, TEST_EVENT_TYPE } from '../../events/event.js';
import type { AttemptFacts } from '../attempt-json.js';
import type { Page } from '../store.js';
import type {
  Attempt,
  AttemptPosition,
  AttemptResult,
  DeliveryStats,
  DueDelivery,
  EventPage,
  EventPageRequest,
  NewSubscription,
  RememberedWrite,
  Subscription,
  WebhookStore,
} from '../webhook-store.js';
import { renderedAttempt } from './attempt-log.js';
import { claimDue, deliveryStats, nextDueMs, parseDeliveryId, storedEvent } from './delivery-claims.js';
import type { LoggedEvent } from './event-log.js';
import { KeyedLock } from './keyed-lock.js';
import type { EmbeddedState } from './state.js';
import type { SubscriptionEntry } from './subscription-table.js';

const NO_ATTEMPTS: Page<Attempt> = { items: [], more: false, total: 0 };
/** A position as `pageEvents` hands it out: the decimal seq of the last event of a page. */
const POSITION = /^(0|[1-9][0-9]{0,15})$/;

/** Times are written as whole milliseconds (the journal's records take integers). */
const wholeMs = (ms: number): number => Math.trunc(ms);

/** `facts` with whole milliseconds, as the journal writes them (the worker's are already). */
function wholeFacts(facts: AttemptFacts): AttemptFacts {
  const { attemptedAtMs, durationMs } = facts;
  if (Number.isSafeInteger(attemptedAtMs) && Number.isSafeInteger(durationMs)) return facts;
  return { ...facts, attemptedAtMs: wholeMs(attemptedAtMs), durationMs: Math.max(0, Math.round(durationMs)) };
}

/** Subscriptions, events, deliveries and attempts of an embedded store. */
export class EmbeddedWebhooks implements WebhookStore {
  readonly #state: EmbeddedState;
  readonly #letters: string;
  readonly #clock: Clock;
  readonly #subscriptionLocks = new KeyedLock<string>();
  readonly #ownerLocks = new KeyedLock<string>();

  /** `letters` are the store's own (eventIdLetters of its cursor secret). */
  constructor(state: EmbeddedState, letters: string, clock: Clock) {
    this.#state = state;
    this.#letters = letters;
    this.#clock = clock;
  }

  addSubscription(
    subscription: NewSubscription,
    maxPerOwner: number,
    remember?: RememberedWrite,
  ): Promise<Subscription | undefined> {
    return this.#ownerLocks.run(subscription.ownerKeyId, async () => {
      const { subscriptions } = this.#state.webhooks;
      if (subscriptions.countOf(subscription.ownerKeyId) >= maxPerOwner) return undefined;
      if (subscriptions.get(subscription.id) !== undefined)
        throw new TypeError(`a subscription with id ${subscription.id} exists already`);
      const stored: Subscription = { ...subscription, seq: subscriptions.takeSeq() };
      await this.#state.commit({ op: 'sub', subscription: stored, ...(remember !== undefined && { remember }) });
      return stored;
    });
  }

  getSubscription(id: string): Subscription | undefined {
    return this.#state.webhooks.subscriptions.get(id)?.subscription;
  }

  pageSubscriptions(ownerKeyId: string, afterSeq: number, limit: number): Page<Subscription> {
    return this.#state.webhooks.subscriptions.page(ownerKeyId, afterSeq, limit);
  }

  updateSubscription(
    id: string,
    decide: (current: Subscription | undefined) => Subscription,
    remember?: (updated: Subscription) => RememberedWrite,
  ): Promise<Subscription> {
    return this.#subscriptionLocks.run(id, async () => {
      const current = this.getSubscription(id);
      const decided = decide(current);
      if (current === undefined) throw new TypeError(`the rule accepted a change to the missing subscription ${id}`);
      const stored: Subscription = { ...decided, seq: current.seq, id, ownerKeyId: current.ownerKeyId };
      await this.#state.commit({
        op: 'sub',
        subscription: stored,
        ...(remember !== undefined && { remember: remember(stored) }),
      });
      return stored;
    });
  }

  deleteSubscription(id: string, decide: (current: Subscription | undefined) => void): Promise<void> {
    return this.#subscriptionLocks.run(id, async () => {
      const current = this.getSubscription(id);
      decide(current);
      if (current !== undefined) await this.#state.commit({ op: 'unsub', id });
    });
  }

  getEvent(id: string, sinceMs: number): StoredEvent | undefined {
    const seq = eventSeqOf(this.#letters, id);
    const event = seq === undefined ? undefined : this.#state.webhooks.events.get(seq);
    if (event === undefined || event.type === TEST_EVENT_TYPE || event.atMs < sinceMs) return undefined;
    return this.#stored(event);
  }

  pageEvents(request: EventPageRequest): EventPage {
    const { events } = this.#state.webhooks;
    // Positions are this store's own; one it did not issue (another store's cursor) starts from the beginning.
    const afterSeq = request.after !== undefined && POSITION.test(request.after) ? Number(request.after) : 0;
    const page = events.page(request.type, afterSeq, request.limit, request.sinceMs);
    const items = page.seqs.map((seq) => this.#stored(events.get(seq) as LoggedEvent));
    const lastSeq = page.seqs.at(-1);
    return {
      items,
      more: page.more,
      total: page.total,
      last: lastSeq === undefined ? request.after : String(lastSeq),
    };
  }

  sendTest(
    id: string,
    timestampMs: number,
    decide: (current: Subscription | undefined) => void,
    remember?: (event: StoredEvent) => RememberedWrite,
  ): Promise<StoredEvent> {
    return this.#subscriptionLocks.run(id, async () => {
      const current = this.getSubscription(id);
      decide(current);
      if (current === undefined) throw new TypeError(`the rule accepted a test of the missing subscription ${id}`);
      const atMs = wholeMs(timestampMs);
      const seq = this.#state.webhooks.events.takeSeqs(1);
      const event = this.#stored({ seq, type: TEST_EVENT_TYPE, atMs, dataJson: JSON.stringify({ webhookId: id }) });
      const answer = remember?.(event);
      await this.#state.commit({
        op: 'test',
        atMs,
        seq,
        subscriptionId: id,
        ...(answer !== undefined && { remember: answer }),
      });
      return event;
    });
  }

  async redeliver(eventIdText: string, subscriptionIds: readonly string[], remember?: RememberedWrite): Promise<void> {
    const eventSeq = eventSeqOf(this.#letters, eventIdText);
    if (eventSeq === undefined) throw new TypeError(`${JSON.stringify(eventIdText)} is not an event id of this store`);
    // Under the lock of each subscription (taken in one order, so two redeliveries cannot wait on each
    // other): an attempt being finished on a delivery this one replaces is recorded before or after it,
    // never applied to the new one.
    const ids = [...new Set(subscriptionIds)].sort();
    const locked = (index: number): Promise<void> =>
      index < ids.length
        ? this.#subscriptionLocks.run(ids[index] as string, () => locked(index + 1))
        : this.#state.commit({
            op: 'redeliver',
            atMs: wholeMs(this.#clock.now()),
            eventSeq,
            subscriptionIds: ids,
            ...(remember !== undefined && { remember }),
          });
    return locked(0);
  }

  recover(
    id: string,
    sinceMs: number,
    decide: (current: Subscription | undefined) => void,
    remember?: (count: number) => RememberedWrite,
  ): Promise<number> {
    return this.#subscriptionLocks.run(id, async () => {
      const entry = this.#state.webhooks.subscriptions.get(id);
      decide(entry?.subscription);
      if (entry === undefined) throw new TypeError(`the rule accepted a recovery of the missing subscription ${id}`);
      const eventSeqs = this.#undelivered(entry, sinceMs);
      const answer = remember?.(eventSeqs.length);
      await this.#state.commit({
        op: 'recover',
        atMs: wholeMs(this.#clock.now()),
        subscriptionId: id,
        eventSeqs,
        ...(answer !== undefined && { remember: answer }),
      });
      return eventSeqs.length;
    });
  }

  pageAttempts(id: string, before: AttemptPosition | undefined, limit: number): Page<Attempt> {
    const page = this.#state.webhooks.subscriptions.get(id)?.attempts.page(before, limit);
    if (page === undefined) return NO_ATTEMPTS;
    // Rendered now, not when recorded: most attempts are never listed.
    const items = page.items.map((attempt) => ({
      seq: attempt.seq,
      atMs: attempt.attemptedAtMs,
      id: attempt.id,
      subscriptionId: id,
      json: renderedAttempt(this.#letters, attempt),
    }));
    return { items, more: page.more, total: page.total };
  }

  async claimDue(
    nowMs: number,
    max: number,
    leaseMs: number,
    perSubscription: number,
    held: ReadonlyMap<string, number>,
    perFailingSubscription = perSubscription,
  ): Promise<DueDelivery[]> {
    const request = { nowMs, max, leaseMs, perSubscription, perFailingSubscription, held };
    return claimDue(this.#state.webhooks, this.#letters, request);
  }

  finishAttempt(result: AttemptResult): Promise<void> {
    return this.finishAttempts([result]);
  }

  /**
   * Under the lock of every subscription concerned (taken in one order, as redeliver does), so that
   * whether each attempt was made on the delivery pending now cannot change before it is applied; the
   * records are committed together and share the journal's next write.
   *
   * That write is one another change starts (commitDeferred): nobody waits on an outcome, so it rides
   * with the next create instead of costing a synced write of its own (docs/performance.md, "Events
   * and webhooks"). At least once still holds: an outcome is applied only once its record is written
   * and synced, as any change is, and until then its delivery stays pending, in memory (leased to the
   * worker) and in the log; a crash before the write leaves it pending in the log, so it is attempted
   * again after a restart and the receiver, which de-duplicates on `webhook-id`, sees it twice at worst.
   */
  async finishAttempts(results: readonly AttemptResult[]): Promise<void> {
    const parsed = results.map((result) => ({ result, ...parseDeliveryId(result.deliveryId) }));
    const ids = [...new Set(parsed.map(({ subscriptionId }) => subscriptionId))].sort();
    const record = (): Promise<unknown> => {
      const { subscriptions } = this.#state.webhooks;
      const commits: Promise<void>[] = [];
      for (const { result, generation, eventSeq, subscriptionId } of parsed) {
        const entry = subscriptions.get(subscriptionId);
        // Deleted meanwhile: its attempts went with it.
        if (entry === undefined) continue;
        const current = entry.queue.findGeneration(eventSeq, generation) !== -1;
        commits.push(
          this.#state.commitDeferred({
            op: 'attempt',
            seq: this.#state.webhooks.takeAttemptSeq(),
            subscription: entry.subscription.seq,
            eventSeq,
            attempt: wholeFacts(result.attempt),
            current,
            // A retry of a delivery dropped or replaced meanwhile will not be made.
            nextAttemptAtMs: result.nextAttemptAtMs === null || !current ? null : wholeMs(result.nextAttemptAtMs),
            delivered: result.delivered,
            failingSinceMs: result.failingSinceMs === null ? null : wholeMs(result.failingSinceMs),
            ...(result.disableReason !== undefined && { disableReason: result.disableReason }),
          }),
        );
      }
      return Promise.all(commits);
    };
    const locked = (index: number): Promise<unknown> =>
      index < ids.length ? this.#subscriptionLocks.run(ids[index] as string, () => locked(index + 1)) : record();
    await locked(0);
  }

  async dropDelivery(deliveryId: string): Promise<void> {
    const { generation, eventSeq, subscriptionId } = parseDeliveryId(deliveryId);
    return this.#subscriptionLocks.run(subscriptionId, async () => {
      const entry = this.#state.webhooks.subscriptions.get(subscriptionId);
      if (entry === undefined || entry.queue.findGeneration(eventSeq, generation) === -1) return;
      await this.#state.commit({ op: 'drop', subscriptionId, eventSeq });
    });
  }

  nextDueMs(): number | undefined {
    return nextDueMs(this.#state.webhooks);
  }

  watch(onChange: () => void): () => void {
    return this.#state.webhooks.watch(onChange);
  }

  async purge(eventsBeforeMs: number): Promise<void> {
    const oldest = this.#state.webhooks.events.values().next();
    if (oldest.done === true || oldest.value.atMs >= eventsBeforeMs) return;
    await this.#state.commit({ op: 'purge', beforeMs: wholeMs(eventsBeforeMs) });
  }

  stats(): DeliveryStats {
    return deliveryStats(this.#state.webhooks);
  }

  /** The events of `entry`'s types recorded since `sinceMs`, neither delivered to it nor pending for it now. */
  #undelivered(entry: SubscriptionEntry, sinceMs: number): number[] {
    const seqs: number[] = [];
    for (const type of entry.subscription.events) {
      for (const seq of this.#state.webhooks.events.seqsOf(type, sinceMs))
        if (!entry.delivered.has(seq)) seqs.push(seq);
    }
    return seqs.sort((one, other) => one - other);
  }

  #stored(event: LoggedEvent): StoredEvent {
    return storedEvent(this.#letters, event);
  }
}
