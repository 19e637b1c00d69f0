// The webhook part of the PostgreSQL store: subscriptions, events, pending deliveries and attempts in
// tables every instance shares (schema.ts, migration 2). The events themselves are recorded by the
// store's changes (postgres-store.ts), with their deliveries, in the statement of the change. Here:
// each webhook change is one statement or one transaction that locks the subscription it decides on;
// pending deliveries are the queue of delivery-queue.ts, which this extends; and /events lists in an
// order that no commit can still add to in the past (see pageEvents).
import type { PoolClient } from 'pg';
import type { Clock } from '../../core/clock.js';
import { ApiError } from '../../core/errors.js';
import { eventId, eventIdLetters, eventSeqOf } from '../../events/event-id.js';
import { type StoredEvent, TEST_EVENT_TYPE, eventJson } from '../../events/event.js';
import type { Page } from '../store.js';
import type {
  Attempt,
  AttemptPosition,
  EventPage,
  EventPageRequest,
  NewSubscription,
  RememberedWrite,
  Subscription,
  WebhookStore,
} from '../webhook-store.js';
import type { Database } from './database.js';
import type { DeliveryChannel } from './delivery-channel.js';
import { PostgresDeliveryQueue } from './delivery-queue.js';
import { pageOf } from './page-of.js';
import {
  type EventRow,
  type SubscriptionRow,
  eventOf,
  rememberWriteParams,
  subscriptionOf,
  subscriptionParams,
} from './webhook-rows.js';
import { named, pageEventsStatement, statement } from './webhook-statements.js';

/** What a PostgresWebhookStore is made of. */
export interface PostgresWebhookStoreParts {
  database: Database;
  channel: DeliveryChannel;
  /** The store's shared secret: event ids carry letters derived from it. */
  cursorSecret: Buffer;
  /** The time of redeliveries and recoveries, which are due at once. */
  clock: Clock;
}

/** The largest bigint: "before every attempt" when no position is given. */
const NEWEST = '9223372036854775807';

/** Whether a client's text can be a key of a row: text cannot hold U+0000, and no id the service made has it. */
const storable = (text: string): boolean => !text.includes('\u0000');

/** An event position issued by pageEvents (`xid:seq`), or a bare position (a store migrated from the embedded one). */
function parsePosition(position: string | undefined): [xid: string | null, seq: string] {
  if (position === undefined) return ['0', '0'];
  const match = /^(?:([0-9]{1,20}):)?([0-9]{1,19})$/.exec(position);
  if (match === null) {
    throw new ApiError(
      'invalid_cursor',
      'Query parameter "cursor" was not issued by this store; start again from the first page without a cursor',
    );
  }
  return [match[1] ?? null, match[2] as string];
}

/** The WebhookStore of a PostgreSQL database shared by every instance: its delivery queue, and the rest. */
export class PostgresWebhookStore extends PostgresDeliveryQueue implements WebhookStore {
  readonly #database: Database;
  readonly #letters: string;
  readonly #clock: Clock;
  readonly #channel: DeliveryChannel;

  constructor(parts: PostgresWebhookStoreParts) {
    const letters = eventIdLetters(parts.cursorSecret);
    super(parts.database, parts.channel, letters, parts.clock);
    this.#database = parts.database;
    this.#letters = letters;
    this.#clock = parts.clock;
    this.#channel = parts.channel;
  }

  addSubscription(
    subscription: NewSubscription,
    maxPerOwner: number,
    remember?: RememberedWrite,
  ): Promise<Subscription | undefined> {
    // The count and the insert are one step per owner: concurrent additions wait for the owner's lock.
    return this.#database.transaction(async (client) => {
      await client.query(statement('lockOwner', [subscription.ownerKeyId]));
      const { rows } = await client.query<{ seq: string }>(
        statement('addSubscription', [
          subscription.id,
          ...subscriptionParams(subscription),
          maxPerOwner,
          ...rememberWriteParams(remember),
        ]),
      );
      return rows[0] === undefined ? undefined : { ...subscription, seq: Number(rows[0].seq) };
    });
  }

  async getSubscription(id: string): Promise<Subscription | undefined> {
    if (!storable(id)) return undefined;
    const rows = await this.#database.query<SubscriptionRow>(statement('getSubscription', [id]));
    return rows[0] === undefined ? undefined : subscriptionOf(rows[0]);
  }

  async pageSubscriptions(ownerKeyId: string, afterSeq: number, limit: number): Promise<Page<Subscription>> {
    const rows = await this.#database.query<SubscriptionRow & { total: string }>(
      statement('pageSubscriptions', [ownerKeyId, afterSeq, limit + 1]),
    );
    return pageOf(rows, limit, (row) => (row.seq === null ? undefined : subscriptionOf(row)));
  }

  async updateSubscription(
    id: string,
    decide: (current: Subscription | undefined) => Subscription,
    // A remembered answer is given, or made from the subscription as changed.
    remember?: RememberedWrite | ((updated: Subscription) => RememberedWrite),
  ): Promise<Subscription> {
    let disabled = false;
    const updated = await this.#database.transaction(async (client) => {
      const current = await this.#locked(client, 'lockSubscriptionForChange', id);
      const next = decide(current);
      if (current === undefined) throw new TypeError('the rule for a webhook change accepted one that does not exist');
      const updated: Subscription = { ...next, seq: current.seq, id: current.id };
      const disabling = updated.status === 'disabled';
      // Enabled again, what is still pending was made by a change that read it enabled while the disable
      // committed: its event was recorded while it was disabled, so it is dropped too.
      const enabling = current.status === 'disabled' && updated.status === 'enabled';
      const written = typeof remember === 'function' ? remember(updated) : remember;
      const { rows } = await client.query<{ waiting: string[] | null }>(
        statement('updateSubscription', [
          id,
          ...subscriptionParams(updated),
          disabling || enabling,
          ...rememberWriteParams(written),
          this.#clock.now(),
        ]),
      );
      const waiting = rows[0]?.waiting;
      if (disabling && waiting) await client.query(statement('endSchedules', [id, waiting]));
      disabled = disabling && current.status === 'enabled';
      return updated;
    });
    // The workers of every instance hear of it, and start no attempt of it again.
    if (disabled) this.#channel.announce();
    return updated;
  }

  async deleteSubscription(id: string, decide: (current: Subscription | undefined) => void): Promise<void> {
    const deleted = await this.#database.transaction(async (client) => {
      const current = await this.#locked(client, 'lockSubscription', id);
      decide(current);
      if (current !== undefined) await client.query(statement('deleteSubscription', [id]));
      return current !== undefined;
    });
    if (deleted) this.#channel.announce();
  }

  async getEvent(id: string, sinceMs: number): Promise<StoredEvent | undefined> {
    const seq = eventSeqOf(this.#letters, id);
    if (seq === undefined) return undefined;
    const rows = await this.#database.query<EventRow>(statement('getEvent', [seq, sinceMs]));
    return rows[0] === undefined ? undefined : eventOf(rows[0]);
  }

  /**
   * Positions come from a sequence, but transactions commit in another order than they took them, so
   * paging by position alone would skip an event whose transaction commits after a later one was read.
   * Events are listed by (xid, seq), the id of the transaction that wrote them first, and only those
   * written by transactions older than the oldest still running (the snapshot's xmin): every
   * transaction that could still add an event before them has ended. An event is thus listed a moment
   * after its commit when other transactions are open, and never skipped.
   */
  async pageEvents(request: EventPageRequest): Promise<EventPage> {
    const [xid, seq] = parsePosition(request.after);
    const byType = request.type !== undefined;
    const values: unknown[] = [xid, seq, request.sinceMs, request.limit + 1];
    if (byType) values.push(request.type);
    const rows = await this.#database.query<EventRow & { total: string; xid: string | null }>(
      named(byType ? 'events_by_type' : 'events', pageEventsStatement(byType), values),
    );
    const page = pageOf(rows, request.limit, (row) => (row.seq === null ? undefined : eventOf(row)));
    const last = rows[page.items.length - 1];
    return { ...page, last: last?.seq == null ? request.after : `${last.xid}:${last.seq}` };
  }

  async sendTest(
    id: string,
    timestampMs: number,
    decide: (current: Subscription | undefined) => void,
    remember?: (event: StoredEvent) => RememberedWrite,
  ): Promise<StoredEvent> {
    const sent = await this.#database.transaction(async (client) => {
      // Locked as it is: a disable waits for the test to be queued, then drops it with the rest.
      const current = await this.#locked(client, 'lockSubscriptionAsIs', id);
      decide(current);
      if (current === undefined)
        throw new TypeError('the rule for a test event accepted a webhook that does not exist');
      const { rows } = await client.query<{ seq: string }>(statement('takeEventSeq', []));
      const seq = Number(rows[0]?.seq);
      const data = JSON.stringify({ webhookId: current.id });
      const event: StoredEvent = {
        seq,
        id: eventId(this.#letters, seq),
        type: TEST_EVENT_TYPE,
        timestampMs,
        json: eventJson(eventId(this.#letters, seq), TEST_EVENT_TYPE, timestampMs, data),
      };
      await client.query(
        statement('sendTest', [seq, timestampMs, event.json, current.id, ...rememberWriteParams(remember?.(event))]),
      );
      return event;
    });
    this.#channel.announce();
    return sent;
  }

  async redeliver(eventId: string, subscriptionIds: readonly string[], remember?: RememberedWrite): Promise<void> {
    const seq = eventSeqOf(this.#letters, eventId) ?? null;
    await this.#database.query(
      statement('redeliver', [
        seq,
        subscriptionIds.filter(storable),
        this.#clock.now(),
        ...rememberWriteParams(remember),
      ]),
    );
    if (seq !== null && subscriptionIds.length > 0) this.#channel.announce();
  }

  async recover(
    id: string,
    sinceMs: number,
    decide: (current: Subscription | undefined) => void,
    remember?: (count: number) => RememberedWrite,
  ): Promise<number> {
    const count = await this.#database.transaction(async (client) => {
      const current = await this.#locked(client, 'lockSubscriptionAsIs', id);
      decide(current);
      let count = 0;
      if (current !== undefined) {
        const { rows } = await client.query<{ count: string }>(
          statement('recover', [id, sinceMs, current.events, this.#clock.now()]),
        );
        count = Number(rows[0]?.count ?? 0);
      }
      if (remember !== undefined) await client.query(statement('remember', rememberWriteParams(remember(count))));
      return count;
    });
    if (count > 0) this.#channel.announce();
    return count;
  }

  async pageAttempts(id: string, before: AttemptPosition | undefined, limit: number): Promise<Page<Attempt>> {
    if (!storable(id)) return { items: [], more: false, total: 0 };
    const after = before === undefined ? [NEWEST, NEWEST] : [before.atMs ?? null, before.seq];
    const rows = await this.#database.query<{
      total: string;
      seq: string | null;
      at_ms: string;
      id: string;
      json: string;
    }>(statement('pageAttempts', [id, ...after, limit + 1]));
    return pageOf(rows, limit, (row) =>
      row.seq === null
        ? undefined
        : { seq: Number(row.seq), atMs: Number(row.at_ms), id: row.id, subscriptionId: id, json: row.json },
    );
  }

  /** Tells every instance that deliveries may be due: a change of the store fanned events out. */
  announce(): void {
    this.#channel.announce();
  }

  /** Subscription `id` locked by `lock` in this transaction, or undefined when there is none. */
  async #locked(
    client: PoolClient,
    lock: 'lockSubscription' | 'lockSubscriptionForChange' | 'lockSubscriptionAsIs',
    id: string,
  ): Promise<Subscription | undefined> {
    if (!storable(id)) return undefined;
    const { rows } = await client.query<SubscriptionRow>(statement(lock, [id]));
    return rows[0] === undefined ? undefined : subscriptionOf(rows[0]);
  }
}
