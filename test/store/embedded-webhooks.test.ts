// The WebhookStore contract on the embedded store: in memory, and on a journal in a temporary data
// directory (where a reopen replays the journal). The journal's own promises (the same state after a
// replay and after a compaction) are in embedded-webhooks-journal.test.ts.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { systemClock } from '../../src/core/clock.js';
import { openEmbeddedStore } from '../../src/store/embedded/open-embedded-store.js';
import type { Store } from '../../src/store/store.js';
import type { Subscription } from '../../src/store/webhook-store.js';
import { webhookStoreSuite } from '../helpers/webhook-store-suite.js';
import {
  allEvents,
  attemptResult,
  claimAll,
  createPet,
  LONG_LEASE_MS,
  recentMs,
  subscribe,
} from '../helpers/webhook-suite/fixtures.js';

const open = (dataDir: string | undefined): Promise<Store> =>
  openEmbeddedStore({
    dataDir,
    clock: systemClock,
    durability: 'never',
    fsyncIntervalMs: 1000,
    compactMinRecords: 1000,
    warn: () => {},
  });

webhookStoreSuite('embedded store in memory', async () => {
  const store = await open(undefined);
  return { store, close: () => store.close() };
});

webhookStoreSuite('embedded store on a journal', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'animal-store-webhooks-'));
  let store = await open(dataDir);
  return {
    get store() {
      return store;
    },
    async reopen() {
      await store.close();
      store = await open(dataDir);
      return store;
    },
    async close() {
      await store.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
});

/** Each attempt's `nextAttemptAt`, newest first. */
async function nextTimes(store: Store, subscriptionId: string): Promise<Array<string | null>> {
  const { items } = await store.webhooks.pageAttempts(subscriptionId, undefined, 10);
  return items.map((item) => (JSON.parse(item.json) as { nextAttemptAt: string | null }).nextAttemptAt);
}

test('a disable while an attempt is under way shows the same attempts live as after a replay, and gives the time back only for that attempt', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'animal-store-webhooks-'));
  let store = await open(dataDir);
  try {
    const subscription = await subscribe(store, 'key_a', ['pet.created']);
    const atMs = recentMs();
    await createPet(store, atMs);
    const [first] = await store.webhooks.claimDue(atMs, 10, LONG_LEASE_MS, 10, new Map());
    assert.ok(first !== undefined);
    await store.webhooks.finishAttempt(attemptResult(first, atMs, { status: 503, nextAttemptAtMs: atMs + 5000 }));
    // Claimed again, and disabled while that attempt is under way; it is never recorded (a crash).
    await store.webhooks.claimDue(atMs + 5000, 10, LONG_LEASE_MS, 10, new Map());
    const paused = { status: 'disabled' as const, disabledReason: 'paused by its owner' };
    await store.webhooks.updateSubscription(subscription.id, (current) => ({
      ...(current as Subscription),
      ...paused,
    }));
    assert.deepEqual(await nextTimes(store, subscription.id), [null]);
    await store.close();
    store = await open(dataDir);
    assert.deepEqual(await nextTimes(store, subscription.id), [null], 'the same after a replay');
    // Enabled again and redelivered: an attempt replaced under way does not bring back the old time.
    const enabled = { status: 'enabled' as const, disabledReason: null };
    await store.webhooks.updateSubscription(subscription.id, (current) => ({
      ...(current as Subscription),
      ...enabled,
    }));
    const event = (await allEvents(store))[0];
    assert.ok(event !== undefined);
    await store.webhooks.redeliver(event.id, [subscription.id]);
    const [redelivered] = await claimAll(store);
    assert.ok(redelivered !== undefined);
    await store.webhooks.redeliver(event.id, [subscription.id]);
    await store.webhooks.finishAttempt(
      attemptResult(redelivered, atMs + 10_000, { status: 503, nextAttemptAtMs: atMs + 15_000 }),
    );
    assert.deepEqual(await nextTimes(store, subscription.id), [null, null]);
  } finally {
    await store.close();
    await rm(dataDir, { recursive: true, force: true });
  }
});
