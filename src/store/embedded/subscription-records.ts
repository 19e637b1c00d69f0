// The records of the embedded store's subscriptions, both ways: what a snapshot writes of each
// subscription (the subscription, its pending deliveries, delivered events and attempts), and the
// attempt kept in memory for an attempt's record. webhook-state.ts applies and snapshots with them.
import { attemptedAtOf } from '../attempt-json.js';
import type { Subscription } from '../webhook-store.js';
import type { LoggedAttempt } from './attempt-log.js';
import type { PendingDelivery } from './delivery-queue.js';
import type { LoggedEvent } from './event-log.js';
import {
  type AttemptChange,
  isRenderedAttempt,
  type KeptAttemptChange,
  type WebhookChange,
} from './webhook-records.js';

/** Pending deliveries a snapshot writes per record. */
export const PENDING_PER_RECORD = 1000;

/** A subscription with what a snapshot writes of it. */
export interface SubscriptionSnapshot {
  readonly subscription: Subscription;
  readonly queue: { values(): Iterable<PendingDelivery> };
  readonly attempts: { values(): readonly LoggedAttempt[] };
  readonly delivered: { ranges(): Array<[number, number]> };
}

/** The records of `entries`, in their order: each subscription, its pending deliveries, delivered events and attempts. */
export function* subscriptionRecords(entries: Iterable<SubscriptionSnapshot>): Generator<WebhookChange> {
  for (const { subscription, queue, attempts, delivered } of entries) {
    const subscriptionId = subscription.id;
    yield { op: 'sub', subscription };
    let rows: Array<[number, number, number]> = [];
    for (const pending of queue.values()) {
      rows.push([pending.eventSeq, pending.attemptsMade, pending.nextAttemptAtMs]);
      if (rows.length === PENDING_PER_RECORD) {
        yield { op: 'pending', subscriptionId, rows };
        rows = [];
      }
    }
    if (rows.length > 0) yield { op: 'pending', subscriptionId, rows };
    const ranges = delivered.ranges();
    if (ranges.length > 0) yield { op: 'delivered', subscriptionId, ranges };
    for (const attempt of attempts.values()) {
      const { seq, eventSeq } = attempt;
      // One read from a record of an earlier release keeps that form (and names its subscription by id).
      yield 'json' in attempt
        ? {
            op: 'kept-attempt',
            seq,
            subscription: subscriptionId,
            eventSeq,
            attempt: { id: attempt.id, json: attempt.json },
            delivered: false,
            nextAttemptAtMs: null,
          }
        : {
            op: 'kept-attempt',
            seq,
            subscription: subscription.seq,
            eventSeq,
            attempt,
            delivered: attempt.delivered,
            nextAttemptAtMs: attempt.nextAttemptAtMs,
            ...(attempt.droppedNextAttemptAtMs !== undefined && {
              droppedNextAttemptAtMs: attempt.droppedNextAttemptAtMs,
            }),
          };
    }
  }
}

/**
 * An attempt as kept in memory: its facts with the type of its event (undefined when the event is no
 * longer retained), or its JSON as recorded.
 */
export function loggedAttempt(
  change: AttemptChange | KeptAttemptChange,
  event: LoggedEvent | undefined,
): LoggedAttempt | undefined {
  const { seq, eventSeq, attempt } = change;
  if (isRenderedAttempt(attempt)) {
    const attemptedAtMs = attemptedAtOf(attempt.json) ?? event?.atMs ?? 0;
    return { seq, eventSeq, id: attempt.id, attemptedAtMs, json: attempt.json };
  }
  if (event === undefined) return undefined;
  return {
    seq,
    eventSeq,
    type: event.type,
    delivered: change.delivered,
    nextAttemptAtMs: change.nextAttemptAtMs,
    ...('droppedNextAttemptAtMs' in change &&
      change.droppedNextAttemptAtMs !== undefined && { droppedNextAttemptAtMs: change.droppedNextAttemptAtMs }),
    id: attempt.id,
    attemptedAtMs: attempt.attemptedAtMs,
    status: attempt.status,
    error: attempt.error,
    durationMs: attempt.durationMs,
    response: attempt.response,
  };
}
