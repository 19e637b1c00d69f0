// The seam between the webhook service and where subscriptions, events, pending deliveries and attempts
// live (docs/events.md). As with the rest of the Store, the rules live above it (webhooks/): who owns a
// subscription, which moves are allowed, when to retry, when to disable; a store keeps the data and
// makes each change atomic and durable, and decides nothing but what its `decide` callbacks say.
//
// Events are recorded by the Store's own change methods (createPet, placeOrder, moveOrder), in the same
// atomic write as the change: this part only reads them. Recording an event also records, in that same
// write, one pending delivery for every enabled subscription whose `events` include its type.
import type { Awaitable } from '../core/awaitable.js';
import type { EventType, StoredEvent } from '../events/event.js';
import type { AttemptedEvent, AttemptFacts } from './attempt-json.js';
import type { IdempotencyRecord } from './idempotency-table.js';
import type { Page } from './page.js';

export type SubscriptionStatus = 'enabled' | 'disabled';

/** A secret that signs deliveries: the newest never expires; one replaced by a rotation signs beside it until `expiresAtMs`. */
export interface SubscriptionSecret {
  /** `whsec_` + base64 of 32 random bytes. */
  readonly secret: string;
  readonly expiresAtMs: number | null;
}

/** A subscription as stored. */
export interface Subscription {
  /** Position in the order of creation (paging); internal. */
  readonly seq: number;
  /** `wh_` + a unique string. */
  readonly id: string;
  /** The API key (its record id) that made it and alone sees it. */
  readonly ownerKeyId: string;
  readonly url: string;
  readonly events: readonly EventType[];
  readonly description: string | null;
  readonly status: SubscriptionStatus;
  readonly disabledReason: string | null;
  /** RFC 3339 UTC. */
  readonly createdAt: string;
  /** Newest first; expired ones may linger until the next change and are ignored. */
  readonly secrets: readonly SubscriptionSecret[];
  /** The time of the first failed attempt since its last successful one; null while it is not failing. */
  readonly failingSinceMs: number | null;
}

/** A subscription before the store gave it its place. */
export type NewSubscription = Omit<Subscription, 'seq'>;

/**
 * Where an attempt stands in the listing of attempts, newest first: by the time it was made, then, for
 * attempts made in the same millisecond, by the order they were recorded (`seq`). Attempts are recorded
 * once their answer is in, so the order of recording alone would put an attempt to a slow receiver
 * after later ones to a fast receiver, or, with many instances, after another instance's later ones.
 * `atMs` undefined: a position of an earlier release, which gave the place in the order of recording
 * only; the store reads the time of that attempt.
 */
export interface AttemptPosition {
  readonly atMs: number | undefined;
  readonly seq: number;
}

/** An attempt to deliver an event to a subscription, as `GET /webhooks/{id}/attempts` shows it. */
export interface Attempt {
  /** Position in the order attempts were recorded; internal. */
  readonly seq: number;
  /** When it was made (`attemptedAt`), in whole ms: the listing's order, with `seq` (AttemptPosition). */
  readonly atMs: number;
  readonly id: string;
  readonly subscriptionId: string;
  /** `{"id","eventId","type","attemptedAt","status","error","durationMs","nextAttemptAt","response"}`. */
  readonly json: string;
}

/** A remembered Idempotency-Key answer kept with a webhook change: the answer's body is given, not derived. */
export interface RememberedWrite extends IdempotencyRecord {
  body: string;
}

/** Which events to list: of one type or all, recorded at or after `sinceMs` (retention), after a position. */
export interface EventPageRequest {
  type: EventType | undefined;
  /** A position that this store issued (`EventPage.last`); undefined for the first page. */
  after: string | undefined;
  limit: number;
  /** Events recorded before this wall-clock time (ms) are past retention: never listed. */
  sinceMs: number;
}

/** A page of events in the order of recording. */
export interface EventPage {
  items: StoredEvent[];
  more: boolean;
  total: number;
  /** The position after which the next page starts (opaque text; signed into the cursor by the service). */
  last: string | undefined;
}

/** A delivery the worker may attempt now: it holds it until `finishAttempt` or its lease ends. */
export interface DueDelivery {
  /** The delivery's id, unique in the store; a redelivery is a new delivery of the same event. */
  readonly deliveryId: string;
  readonly event: StoredEvent;
  readonly subscriptionId: string;
  readonly ownerKeyId: string;
  readonly url: string;
  /** The secrets in force now. */
  readonly secrets: readonly string[];
  /** Attempts made before this one (0 for the first). */
  readonly attemptsMade: number;
  readonly failingSinceMs: number | null;
}

/** What an attempt came to, as the worker decided from its outcome and the retry schedule. */
export interface AttemptResult {
  readonly deliveryId: string;
  readonly subscriptionId: string;
  /** The attempt to record (its `seq` is the store's to assign; its JSON is rendered by attempt-json.ts). */
  readonly attempt: AttemptFacts;
  /** The event attempted. */
  readonly event: AttemptedEvent;
  /** When to try again; null when the delivery ends now (delivered, given up or its subscription disabled). */
  readonly nextAttemptAtMs: number | null;
  /** Whether the receiver took it (2xx). */
  readonly delivered: boolean;
  /** The subscription's failing-since time after this attempt. */
  readonly failingSinceMs: number | null;
  /** Set to disable the subscription now, with this reason (a 410, or failing for too long). */
  readonly disableReason?: string;
}

/** What metrics show of deliveries. */
export interface DeliveryStats {
  /** Events kept now (recorded within the retention period, test events included). */
  events: number;
  pending: number;
  /** The wall-clock time (ms) of the oldest pending delivery's event, or null when none is pending. */
  oldestPendingMs: number | null;
  disabledSubscriptions: number;
}

/** Subscriptions, events, deliveries and attempts: the webhook part of a Store. */
export interface WebhookStore {
  /** Adds `subscription` unless its owner has `maxPerOwner` already (then undefined), with `remember` in the same change. */
  addSubscription(
    subscription: NewSubscription,
    maxPerOwner: number,
    remember?: RememberedWrite,
  ): Promise<Subscription | undefined>;
  getSubscription(id: string): Awaitable<Subscription | undefined>;
  /** The owner's subscriptions in creation order, `afterSeq` exclusive. */
  pageSubscriptions(ownerKeyId: string, afterSeq: number, limit: number): Awaitable<Page<Subscription>>;
  /**
   * Changes subscription `id` to what `decide` answers given it as it is now (locked; undefined when there
   * is none: `decide` throws then). A change to `disabled` drops its pending deliveries in the same change.
   */
  updateSubscription(
    id: string,
    decide: (current: Subscription | undefined) => Subscription,
    remember?: (updated: Subscription) => RememberedWrite,
  ): Promise<Subscription>;
  /** Deletes subscription `id` with its pending deliveries and attempts, once `decide` accepts it as it is now. */
  deleteSubscription(id: string, decide: (current: Subscription | undefined) => void): Promise<void>;

  /** The event with `id`, unless there is none, it is a test event, or it is past retention (recorded before `sinceMs`). */
  getEvent(id: string, sinceMs: number): Awaitable<StoredEvent | undefined>;
  pageEvents(request: EventPageRequest): Awaitable<EventPage>;
  /** Records a `webhook.test` event (`data` `{"webhookId"}`) and one delivery of it to subscription `id`, once `decide` accepts it. */
  sendTest(
    id: string,
    timestampMs: number,
    decide: (current: Subscription | undefined) => void,
    remember?: (event: StoredEvent) => RememberedWrite,
  ): Promise<StoredEvent>;
  /** A new delivery of event `eventId` (its whole schedule) to each of `subscriptionIds`, with `remember`. */
  redeliver(eventId: string, subscriptionIds: readonly string[], remember?: RememberedWrite): Promise<void>;
  /**
   * A new delivery to subscription `id` of every event of its types recorded at or after `sinceMs` that
   * no attempt delivered to it and that is not pending for it now; once `decide` accepts it. How many.
   */
  recover(
    id: string,
    sinceMs: number,
    decide: (current: Subscription | undefined) => void,
    remember?: (count: number) => RememberedWrite,
  ): Promise<number>;
  /** The attempts of subscription `id`, newest first (AttemptPosition), after `before` (undefined: from the newest). */
  pageAttempts(id: string, before: AttemptPosition | undefined, limit: number): Awaitable<Page<Attempt>>;

  /**
   * Takes up to `max` deliveries due at `nowMs` for this worker until `nowMs + leaseMs` (on a shared store
   * no other instance takes them meanwhile), at most `perSubscription` of one subscription counting those
   * this worker holds (`held`: subscription id → deliveries in flight), and at most
   * `perFailingSubscription` (by default as many) of one whose receiver is failing (`failingSinceMs`
   * set). Only enabled subscriptions' deliveries; the subscriptions with the fewest held are served
   * first, then those due longest.
   */
  claimDue(
    nowMs: number,
    max: number,
    leaseMs: number,
    perSubscription: number,
    held: ReadonlyMap<string, number>,
    perFailingSubscription?: number,
  ): Promise<DueDelivery[]>;
  /** Records an attempt and what follows it, atomically. */
  finishAttempt(result: AttemptResult): Promise<void>;
  /**
   * Records attempts as finishAttempt would one after another, in the order given, each atomic, sharing
   * the store's writes (one journal write, or one statement and commit) where it can: how a worker
   * that finishes thousands of attempts a second records them.
   */
  finishAttempts(results: readonly AttemptResult[]): Promise<void>;
  /** Lets go of a delivery without an attempt (its subscription's key was revoked, or it was disabled meanwhile): it is dropped. */
  dropDelivery(deliveryId: string): Promise<void>;
  /** The earliest time a pending delivery falls due (or its lease ends), for the worker's timer; undefined when none is pending. */
  nextDueMs(): Awaitable<number | undefined>;
  /**
   * Calls `onChange` soon after deliveries may have become due on any instance (new events, a redelivery)
   * or a subscription was disabled or deleted; returns a function that stops watching.
   */
  watch(onChange: () => void): () => void;
  /** Forgets events recorded before `eventsBeforeMs` and attempts made before it. */
  purge(eventsBeforeMs: number): Promise<void>;
  stats(): Awaitable<DeliveryStats>;
}
