// The webhook half of a copy into an empty PostgreSQL database (`animal-store migrate`, copy-in.ts):
// events, subscriptions with their secrets, pending deliveries and attempts, each with the position it
// had, so that event ids (derived from the position and the cursor secret), paging cursors and the
// order of events and attempts stay as they were, and deliveries go on where they stopped.
import type pg from 'pg';
import { eventId, eventIdLetters } from '../../events/event-id.js';
import { type DeliveredEventType, eventJson, TEST_EVENT_TYPE } from '../../events/event.js';
import { attemptedAtOf } from '../attempt-json.js';
import type { Subscription } from '../webhook-store.js';
import { COUNTED_EVENT_TYPES, eventCountColumn } from './schema.js';
import { subscriptionParams } from './webhook-rows.js';

/** A retained event as the source store holds it: its position, type, time and the JSON of its data. */
export interface CopiedEvent {
  readonly seq: number;
  readonly type: DeliveredEventType;
  readonly atMs: number;
  readonly dataJson: string;
}

/** A pending delivery of event `eventSeq` to subscription `subscriptionId`. */
export interface CopiedDelivery {
  readonly subscriptionId: string;
  readonly eventSeq: number;
  readonly attemptsMade: number;
  readonly nextAttemptAtMs: number;
}

/** An attempt kept, with its place in the order of attempts and whether it delivered its event. */
export interface CopiedAttempt {
  readonly seq: number;
  readonly id: string;
  readonly subscriptionId: string;
  readonly eventSeq: number;
  readonly json: string;
  readonly delivered: boolean;
}

/** The events, subscriptions, deliveries and attempts of the store being moved. */
export interface WebhookContents {
  /** Retained events, in the order of their positions. */
  events: readonly CopiedEvent[];
  subscriptions: readonly Subscription[];
  pending: readonly CopiedDelivery[];
  attempts: readonly CopiedAttempt[];
  /** The positions the store would hand out next: never reused, even across a move. */
  nextEventSeq: number;
  nextSubscriptionSeq: number;
  nextAttemptSeq: number;
}

/** How many rows of each kind of the webhook half were copied. */
export interface CopiedWebhooks {
  events: number;
  subscriptions: number;
  deliveries: number;
  attempts: number;
}

/** Rows sent per INSERT: large enough to be quick, small enough to keep each statement modest. */
const BATCH_ROWS = 5000;

/** The subscription a test event (`data` `{"webhookId"}`) is for, or null for any other event. */
const testFor = (event: CopiedEvent): string | null =>
  event.type === TEST_EVENT_TYPE ? (JSON.parse(event.dataJson) as { webhookId: string }).webhookId : null;

/** The position to hand out next: `next`, or past the highest of `items` if that is further. */
function nextAfter(next: number, items: readonly { seq: number }[]): number {
  let highest = next - 1;
  for (const item of items) if (item.seq > highest) highest = item.seq;
  return Math.max(highest + 1, 1);
}

/**
 * Inserts the webhook half inside the caller's transaction: every event in this one transaction, so
 * all share one xid and /events lists them in the order of their positions, all listable once it
 * commits. Sets the sequences past the highest position handed out and the event counts.
 */
export async function copyWebhooks(
  client: pg.PoolClient,
  contents: WebhookContents,
  cursorSecret: Buffer,
): Promise<CopiedWebhooks> {
  const { events, subscriptions, pending, attempts } = contents;
  const letters = eventIdLetters(cursorSecret);
  await insertBatches(client, events, (batch) => ({
    text: `INSERT INTO events (seq, type, at_ms, json, test_for)
           SELECT * FROM unnest($1::bigint[], $2::text[], $3::bigint[], $4::text[], $5::text[])`,
    values: [
      batch.map((event) => event.seq),
      batch.map((event) => event.type),
      batch.map((event) => event.atMs),
      batch.map((event) => eventJson(eventId(letters, event.seq), event.type, event.atMs, event.dataJson)),
      batch.map(testFor),
    ],
  }));
  for (const subscription of subscriptions) {
    await client.query(
      `INSERT INTO webhooks (seq, id, owner_key_id, status, disabled_reason, events, failing_since_ms, json)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [subscription.seq, subscription.id, ...subscriptionParams(subscription)],
    );
  }
  // Pending deliveries wait for their next attempt, held by no worker (a lease ends with its process).
  await insertBatches(client, pending, (batch) => ({
    text: `INSERT INTO deliveries (event_seq, webhook_id, attempts_made, next_attempt_at_ms)
           SELECT * FROM unnest($1::bigint[], $2::text[], $3::int[], $4::bigint[])`,
    values: [
      batch.map((delivery) => delivery.eventSeq),
      batch.map((delivery) => delivery.subscriptionId),
      batch.map((delivery) => delivery.attemptsMade),
      batch.map((delivery) => delivery.nextAttemptAtMs),
    ],
  }));
  await insertBatches(client, attempts, (batch) => ({
    text: `INSERT INTO attempts (seq, id, webhook_id, event_seq, at_ms, delivered, json)
           SELECT a.seq, a.id, a.webhook_id, a.event_seq, coalesce(a.at_ms, e.at_ms, 0), a.delivered, a.json
             FROM unnest($1::bigint[], $2::text[], $3::text[], $4::bigint[], $5::bigint[], $6::boolean[], $7::text[])
                  AS a (seq, id, webhook_id, event_seq, at_ms, delivered, json)
             LEFT JOIN events AS e ON e.seq = a.event_seq`,
    values: [
      batch.map((attempt) => attempt.seq),
      batch.map((attempt) => attempt.id),
      batch.map((attempt) => attempt.subscriptionId),
      batch.map((attempt) => attempt.eventSeq),
      // An attempt without a time (records of early releases) takes its event's.
      batch.map((attempt) => attemptedAtOf(attempt.json)),
      batch.map((attempt) => attempt.delivered),
      batch.map((attempt) => attempt.json),
    ],
  }));

  // Past every position handed out, and past every one copied: a position reused would give a new
  // event the id of an old one, or a new attempt a place among the old.
  await client.query(
    `SELECT setval('event_seqs', $1, false), setval(pg_get_serial_sequence('webhooks', 'seq'), $2, false),
            setval(pg_get_serial_sequence('attempts', 'seq'), $3, false)`,
    [
      nextAfter(contents.nextEventSeq, events),
      nextAfter(contents.nextSubscriptionSeq, subscriptions),
      nextAfter(contents.nextAttemptSeq, attempts),
    ],
  );
  // The whole count in one slot: the totals are sums over the slots.
  const counted = new Map<DeliveredEventType, number>(COUNTED_EVENT_TYPES.map((type) => [type, 0]));
  for (const event of events) counted.set(event.type, (counted.get(event.type) ?? 0) + 1);
  await client.query(
    `UPDATE counts SET ${COUNTED_EVENT_TYPES.map((type) => `${eventCountColumn(type)} = ${counted.get(type) ?? 0}`).join(', ')}
      WHERE slot = 0`,
  );
  return {
    events: events.length,
    subscriptions: subscriptions.length,
    deliveries: pending.length,
    attempts: attempts.length,
  };
}

/** Sends `items` in batches of BATCH_ROWS, each as one statement. */
export async function insertBatches<T>(
  client: pg.PoolClient,
  items: readonly T[],
  statement: (batch: readonly T[]) => pg.QueryConfig,
): Promise<void> {
  for (let start = 0; start < items.length; start += BATCH_ROWS) {
    await client.query(statement(items.slice(start, start + BATCH_ROWS)));
  }
}
