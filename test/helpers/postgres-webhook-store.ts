// Stores and subscriptions for the PostgreSQL tests of events and deliveries.
import type { Clock } from '../../src/core/clock.js';
import type { EventType } from '../../src/events/event.js';
import { openPostgresStore } from '../../src/store/postgres/open-postgres-store.js';
import type { PostgresStore } from '../../src/store/postgres/postgres-store.js';
import type { AttemptResult, DueDelivery, NewSubscription, Subscription } from '../../src/store/webhook-store.js';

/** The wall-clock time the tests start from: 2025-11-26T09:40:00Z. */
export const T0_MS = 1_764_150_000_000;

/** A PostgreSQL store on `url` (an instance of the service, as far as the data is concerned). */
export function openStore(url: string, clock: Clock): Promise<PostgresStore> {
  return openPostgresStore({ databaseUrl: url, poolSize: 6, clock, warn: () => {} });
}

/** A new subscription of `owner` to `events`, enabled. */
export function subscription(
  id: string,
  events: readonly EventType[],
  fields: Partial<NewSubscription> = {},
): NewSubscription {
  return {
    id,
    ownerKeyId: 'key_1',
    url: `https://receiver.example/${id}`,
    events,
    description: null,
    status: 'enabled',
    disabledReason: null,
    createdAt: new Date(T0_MS).toISOString(),
    secrets: [{ secret: `whsec_${Buffer.alloc(32, id).toString('base64')}`, expiresAtMs: null }],
    failingSinceMs: null,
    ...fields,
  };
}

/** Adds `added` to `store`, failing the test when the owner is full. */
export async function subscribe(store: PostgresStore, added: NewSubscription): Promise<Subscription> {
  const stored = await store.webhooks.addSubscription(added, 20);
  if (stored === undefined) throw new Error(`${added.id} was refused`);
  return stored;
}

/** Creates `count` pets, one after the other, at `atMs`. */
export async function createPets(store: PostgresStore, count: number, atMs = T0_MS): Promise<void> {
  for (let index = 0; index < count; index++)
    await store.createPet({ name: `Pet ${index}`, categoryId: 1, status: 'available' }, atMs);
}

/** The result of a failed attempt (503) of `delivery` at `atMs`, to be tried again at `nextMs`. */
export function failedAttempt(delivery: DueDelivery, atMs: number, nextMs: number | null): AttemptResult {
  return {
    deliveryId: delivery.deliveryId,
    subscriptionId: delivery.subscriptionId,
    attempt: {
      id: `att_${delivery.deliveryId}_${atMs}`,
      attemptedAtMs: atMs,
      status: 503,
      error: null,
      durationMs: 5,
      response: null,
    },
    event: delivery.event,
    nextAttemptAtMs: nextMs,
    delivered: false,
    failingSinceMs: delivery.failingSinceMs ?? atMs,
  };
}
