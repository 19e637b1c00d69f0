// What the WebhookStore contract tests share: opening a store for one test, subscriptions, attempts
// and the few store calls every test makes.
import { randomBytes } from 'node:crypto';
import type { EventType, StoredEvent } from '../../../src/events/event.js';
import type { Store } from '../../../src/store/store.js';
import type {
  AttemptResult,
  DueDelivery,
  NewSubscription,
  RememberedWrite,
  Subscription,
} from '../../../src/store/webhook-store.js';
import type { OpenedStore, OpenStore } from '../webhook-store-suite.js';

/** A minute: ahead of any clock the store reads, so what it dates "now" is due. */
export const MINUTE_MS = 60_000;
export const DAY_MS = 24 * 60 * 60 * 1000;
/** A lease no test outlives. */
export const LONG_LEASE_MS = 10 * MINUTE_MS;

/** A wall-clock time in the recent past, whole seconds, so that events recorded at it are retained. */
export function recentMs(): number {
  return Math.floor((Date.now() - 60 * MINUTE_MS) / 1000) * 1000;
}

/** Runs `body` on a fresh store and closes it whatever happens. */
export async function withStore(open: OpenStore, body: (opened: OpenedStore) => Promise<void>): Promise<void> {
  const opened = await open();
  try {
    await body(opened);
  } finally {
    await opened.close();
  }
}

/** A subscription of `owner` to `events`, enabled, with one secret; `overrides` change any field. */
export function newSubscription(
  owner: string,
  events: readonly EventType[],
  overrides: Partial<NewSubscription> = {},
): NewSubscription {
  return {
    id: `wh_${randomBytes(9).toString('base64url')}`,
    ownerKeyId: owner,
    url: 'https://receiver.example/hooks',
    events,
    description: null,
    status: 'enabled',
    disabledReason: null,
    createdAt: new Date(recentMs()).toISOString(),
    secrets: [{ secret: `whsec_${randomBytes(32).toString('base64')}`, expiresAtMs: null }],
    failingSinceMs: null,
    ...overrides,
  };
}

/** Adds a subscription that must fit (at most 20 an owner). */
export async function subscribe(
  store: Store,
  owner: string,
  events: readonly EventType[],
  overrides: Partial<NewSubscription> = {},
): Promise<Subscription> {
  const added = await store.webhooks.addSubscription(newSubscription(owner, events, overrides), 20);
  if (added === undefined) throw new Error('the subscription did not fit');
  return added;
}

/** Creates a pet at `atMs`; its JSON. */
export async function createPet(store: Store, atMs: number, name = 'Rex'): Promise<string> {
  return (await store.createPet({ name, categoryId: 1, status: 'available' }, atMs)).json;
}

/** Every event listed (all types, no retention cut), in order. */
export async function allEvents(store: Store): Promise<StoredEvent[]> {
  const events: StoredEvent[] = [];
  let after: string | undefined;
  for (;;) {
    const page = await store.webhooks.pageEvents({ type: undefined, after, limit: 100, sinceMs: 0 });
    events.push(...page.items);
    if (!page.more) return events;
    after = page.last;
  }
}

/** Claims everything due at `nowMs` (default a minute ahead of the wall clock), with a long lease. */
export function claimAll(store: Store, nowMs = Date.now() + MINUTE_MS): Promise<DueDelivery[]> {
  return store.webhooks.claimDue(nowMs, 1000, LONG_LEASE_MS, 1000, new Map());
}

/**
 * The JSON an attempt made by `attemptResult` is listed with, written out here by hand (not by the
 * store's renderer): every store must list exactly these bytes.
 */
export function expectedAttemptJson(result: AttemptResult): string {
  const { attempt, event } = result;
  return JSON.stringify({
    id: attempt.id,
    eventId: event.id,
    type: event.type,
    attemptedAt: new Date(attempt.attemptedAtMs).toISOString(),
    status: attempt.status,
    error: result.delivered
      ? null
      : attempt.status === null
        ? 'connection refused'
        : `the receiver answered ${attempt.status}`,
    durationMs: attempt.durationMs,
    nextAttemptAt: result.nextAttemptAtMs === null ? null : new Date(result.nextAttemptAtMs).toISOString(),
    response: attempt.response,
  });
}

/** What the worker reports after an attempt at `attemptedAtMs`: delivered with a 2xx, else retried at `nextAttemptAtMs` (null: given up). */
export function attemptResult(
  delivery: DueDelivery,
  attemptedAtMs: number,
  outcome: {
    status: number | null;
    nextAttemptAtMs?: number | null;
    failingSinceMs?: number | null;
    disableReason?: string;
  },
): AttemptResult {
  const delivered = outcome.status !== null && outcome.status >= 200 && outcome.status < 300;
  const nextAttemptAtMs = delivered ? null : (outcome.nextAttemptAtMs ?? null);
  const id = `att_${randomBytes(9).toString('base64url')}`;
  return {
    deliveryId: delivery.deliveryId,
    subscriptionId: delivery.subscriptionId,
    attempt: {
      id,
      attemptedAtMs,
      status: outcome.status,
      error: outcome.status === null ? 'connection refused' : null,
      durationMs: 12,
      response: outcome.status === null ? null : 'ok',
    },
    event: { id: delivery.event.id, type: delivery.event.type },
    nextAttemptAtMs,
    delivered,
    failingSinceMs: delivered ? null : (outcome.failingSinceMs ?? attemptedAtMs),
    ...(outcome.disableReason !== undefined && { disableReason: outcome.disableReason }),
  };
}

/** An Idempotency-Key answer to keep with a change, valid for an hour. */
export function remembered(key: string, status: number, body: string): RememberedWrite {
  return {
    scope: 'key_a POST /v1/webhooks',
    key,
    fingerprint: `fp-${key}`,
    status,
    expiresAtMs: Date.now() + 60 * MINUTE_MS,
    body,
  };
}

/** Resolves once `watch` reports a change, or rejects after `timeoutMs`; `stop` ends the watch. */
export function nextChange(store: Store, timeoutMs = 10_000): { changed: Promise<void>; stop: () => void } {
  let stopWatching: () => void = () => {};
  let timer: NodeJS.Timeout | undefined;
  const changed = new Promise<void>((resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`watch reported nothing within ${timeoutMs} ms`)), timeoutMs);
    stopWatching = store.webhooks.watch(() => {
      clearTimeout(timer);
      resolve();
    });
  });
  return {
    changed,
    stop: () => {
      clearTimeout(timer);
      stopWatching();
    },
  };
}

/** A store's delivery figures without the count of retained events (which each test's pets change). */
export async function deliveryFigures(
  store: Store,
): Promise<{ pending: number; oldestPendingMs: number | null; disabledSubscriptions: number }> {
  const { pending, oldestPendingMs, disabledSubscriptions } = await store.webhooks.stats();
  return { pending, oldestPendingMs, disabledSubscriptions };
}
