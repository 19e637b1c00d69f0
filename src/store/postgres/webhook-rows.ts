// How the rows of the PostgreSQL webhook store become the seam's values, and back. What a client wrote
// (a URL, a description) is kept only inside JSON text, never in a text column of its own: a
// description may hold U+0000, which text cannot, and which JSON writes as the escape \u0000.
import type { DeliveredEventType, EventType, StoredEvent } from '../../events/event.js';
import type { NewSubscription, RememberedWrite, Subscription, SubscriptionSecret } from '../webhook-store.js';

export interface SubscriptionRow {
  seq: string;
  id: string;
  owner_key_id: string;
  status: Subscription['status'];
  disabled_reason: string | null;
  events: EventType[];
  failing_since_ms: string | null;
  json: string;
}

/** What a subscription keeps in its JSON column. */
interface SubscriptionJson {
  url: string;
  description: string | null;
  createdAt: string;
  secrets: SubscriptionSecret[];
}

export interface EventRow {
  seq: string;
  type: DeliveredEventType;
  at_ms: string;
  json: string;
}

export function subscriptionOf(row: SubscriptionRow): Subscription {
  const { url, description, createdAt, secrets } = JSON.parse(row.json) as SubscriptionJson;
  return {
    seq: Number(row.seq),
    id: row.id,
    ownerKeyId: row.owner_key_id,
    url,
    events: row.events,
    description,
    status: row.status,
    disabledReason: row.disabled_reason,
    createdAt,
    secrets,
    failingSinceMs: row.failing_since_ms === null ? null : Number(row.failing_since_ms),
  };
}

/** A subscription's columns after its id: owner, status, reason, events, failing since, JSON. */
export function subscriptionParams(subscription: NewSubscription): unknown[] {
  const { url, description, createdAt, secrets } = subscription;
  const json: SubscriptionJson = { url, description, createdAt, secrets: [...secrets] };
  return [
    subscription.ownerKeyId,
    subscription.status,
    subscription.disabledReason,
    subscription.events,
    subscription.failingSinceMs,
    JSON.stringify(json),
  ];
}

/** An event's id is the first member of its JSON: `{"id":"evt_…",`. */
const idOfEventJson = (json: string): string => json.slice(7, json.indexOf('"', 7));

export const eventOf = (row: EventRow): StoredEvent => ({
  seq: Number(row.seq),
  id: idOfEventJson(row.json),
  type: row.type,
  timestampMs: Number(row.at_ms),
  json: row.json,
});

/** A remembered answer's parameters ($k … $k+5), or nulls. */
export const rememberWriteParams = (remember: RememberedWrite | undefined): unknown[] =>
  remember === undefined
    ? [null, null, null, null, null, null]
    : [remember.scope, remember.key, remember.fingerprint, remember.status, remember.body, remember.expiresAtMs];
