// Handing pending deliveries to the worker: which are due (their next attempt reached, no lease in force,
// their subscription enabled), at most so many of one subscription, each leased until the worker is
// done with it; and what the worker's timer and the metrics read of them. Leases live in memory only:
// one process owns the data directory, and one that dies lets go of its claims with it.
import { eventId } from '../../events/event-id.js';
import { eventJson, type StoredEvent } from '../../events/event.js';
import type { DeliveryStats, DueDelivery } from '../webhook-store.js';
import type { LoggedEvent } from './event-log.js';
import type { SubscriptionEntry } from './subscription-table.js';
import type { WebhookState } from './webhook-state.js';

/** What a claim asks for (WebhookStore.claimDue). */
export interface ClaimRequest {
  nowMs: number;
  max: number;
  leaseMs: number;
  perSubscription: number;
  /** The same for a subscription whose receiver is failing. */
  perFailingSubscription: number;
  /** Subscription id → deliveries the worker holds now. */
  held: ReadonlyMap<string, number>;
}

/** An event as the store hands it out: its id from the store's letters, its JSON joined from its data. */
export function storedEvent(letters: string, event: LoggedEvent): StoredEvent {
  const id = eventId(letters, event.seq);
  return {
    seq: event.seq,
    id,
    type: event.type,
    timestampMs: event.atMs,
    json: eventJson(id, event.type, event.atMs, event.dataJson),
  };
}

/** A delivery's id: `GENERATION.EVENT_SEQ.SUBSCRIPTION_ID` (the generation tells a redelivery from the delivery it replaced). */
export function parseDeliveryId(deliveryId: string): { generation: number; eventSeq: number; subscriptionId: string } {
  const first = deliveryId.indexOf('.');
  const second = deliveryId.indexOf('.', first + 1);
  const generation = Number(deliveryId.slice(0, first));
  const eventSeq = Number(deliveryId.slice(first + 1, second));
  if (first < 1 || second < 0 || !Number.isSafeInteger(generation) || !Number.isSafeInteger(eventSeq))
    throw new TypeError(`${JSON.stringify(deliveryId)} is not a delivery id of this store`);
  return { generation, eventSeq, subscriptionId: deliveryId.slice(second + 1) };
}

function enabledWithPending(state: WebhookState): SubscriptionEntry[] {
  return [...state.subscriptions.all()].filter(
    (entry) => entry.subscription.status === 'enabled' && entry.queue.size > 0,
  );
}

/**
 * Leases and returns up to `max` due deliveries, oldest events first within a subscription; the
 * subscriptions with the fewest deliveries held come first, then those due longest, so that the slots
 * that free up go to receivers that are not holding many already (one that hangs keeps only its own).
 */
export function claimDue(state: WebhookState, letters: string, request: ClaimRequest): DueDelivery[] {
  const { nowMs, max, leaseMs, perSubscription, perFailingSubscription, held } = request;
  const due = enabledWithPending(state)
    .map((entry) => ({
      entry,
      dueMs: entry.queue.dueMs() ?? Number.POSITIVE_INFINITY,
      held: held.get(entry.subscription.id) ?? 0,
    }))
    .filter(({ dueMs }) => dueMs <= nowMs)
    .sort((one, other) => one.held - other.held || one.dueMs - other.dueMs);
  const claimed: DueDelivery[] = [];
  for (const { entry, held: holding } of due) {
    if (claimed.length >= max) break;
    const { subscription, queue } = entry;
    const limit = subscription.failingSinceMs === null ? perSubscription : perFailingSubscription;
    const quota = Math.min(limit - holding, max - claimed.length);
    const secrets = subscription.secrets
      .filter(({ expiresAtMs }) => expiresAtMs === null || expiresAtMs > nowMs)
      .map(({ secret }) => secret);
    const forgotten: number[] = [];
    for (const slot of queue.claim(nowMs, quota, nowMs + leaseMs)) {
      const eventSeq = queue.eventSeqAt(slot);
      const event = state.events.get(eventSeq);
      if (event === undefined) {
        forgotten.push(eventSeq);
        continue;
      }
      claimed.push({
        deliveryId: `${queue.generationAt(slot)}.${eventSeq}.${subscription.id}`,
        event: storedEvent(letters, event),
        subscriptionId: subscription.id,
        ownerKeyId: subscription.ownerKeyId,
        url: subscription.url,
        secrets,
        attemptsMade: queue.attemptsAt(slot),
        failingSinceMs: subscription.failingSinceMs,
      });
    }
    // A delivery whose event is past retention has nothing left to send (replay drops it too).
    for (const eventSeq of forgotten) queue.remove(queue.find(eventSeq));
  }
  return claimed;
}

/** The earliest time a pending delivery of an enabled subscription falls due or its lease ends. */
export function nextDueMs(state: WebhookState): number | undefined {
  let earliest: number | undefined;
  for (const { queue } of enabledWithPending(state)) {
    const dueMs = queue.dueMs();
    if (dueMs !== undefined && (earliest === undefined || dueMs < earliest)) earliest = dueMs;
  }
  return earliest;
}

/** Pending deliveries, the time of the oldest pending event, and disabled subscriptions. */
export function deliveryStats(state: WebhookState): DeliveryStats {
  let pending = 0;
  let oldestPendingMs: number | null = null;
  for (const { queue } of state.subscriptions.all()) {
    pending += queue.size;
    const oldest = queue.oldestEventSeq();
    const atMs = oldest === undefined ? Number.NaN : state.events.timeOf(oldest);
    if (!Number.isNaN(atMs) && (oldestPendingMs === null || atMs < oldestPendingMs)) oldestPendingMs = atMs;
  }
  return { events: state.events.size, pending, oldestPendingMs, disabledSubscriptions: state.subscriptions.disabled };
}
