// The contract of what comes after a delivery: redelivery and recovery, the Idempotency-Key answers
// kept with a test, a redelivery or a recovery, watching for due deliveries, the statistics, and
// pending deliveries and attempts across a reopen.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Subscription } from '../../../src/store/webhook-store.js';
import type { OpenStore } from '../webhook-store-suite.js';
import {
  allEvents,
  attemptResult,
  claimAll,
  createPet,
  LONG_LEASE_MS,
  nextChange,
  recentMs,
  remembered,
  subscribe,
  withStore,
  deliveryFigures,
} from './fixtures.js';

type Decide = (current: Subscription | undefined) => Subscription;
const HOUR_MS = 60 * 60 * 1000;

export function deliveryFollowUpTests(open: OpenStore, moves: { disable: Decide; enable: Decide }): void {
  test('redeliver makes a new delivery of an event, with its whole schedule, to each subscription named', () =>
    withStore(open, async ({ store }) => {
      const one = await subscribe(store, 'key_a', ['pet.created']);
      const two = await subscribe(store, 'key_a', ['order.created']);
      await createPet(store, recentMs());
      const [first] = await claimAll(store);
      assert.ok(first !== undefined);
      await store.webhooks.finishAttempt(attemptResult(first, recentMs(), { status: 200 }));
      const answer = remembered('redeliver-1', 202, '{}');
      await store.webhooks.redeliver(first.event.id, [one.id, two.id], answer);
      const claimed = await claimAll(store);
      assert.deepEqual(claimed.map((delivery) => delivery.subscriptionId).sort(), [one.id, two.id].sort());
      for (const delivery of claimed) {
        assert.deepEqual(delivery.event, first.event);
        assert.equal(delivery.attemptsMade, 0);
        assert.notEqual(delivery.deliveryId, first.deliveryId);
      }
      assert.equal((await store.idempotency.find(answer.scope, answer.key, Date.now()))?.status, 202);
      await store.webhooks.redeliver(first.event.id, [one.id]);
      const again = await claimAll(store);
      assert.deepEqual(
        again.map((delivery) => delivery.subscriptionId),
        [one.id],
        'the pending delivery is replaced, not doubled',
      );
    }));

  test('recover delivers again, due now, every event of its types since then that was not delivered, pending or not', () =>
    withStore(open, async ({ store }) => {
      const subscription = await subscribe(store, 'key_a', ['pet.created']);
      const atMs = recentMs();
      const attemptOnce = async (status: number): Promise<void> => {
        const [delivery, ...others] = await claimAll(store);
        assert.ok(delivery !== undefined);
        assert.deepEqual(others, []);
        await store.webhooks.finishAttempt(attemptResult(delivery, atMs, { status, nextAttemptAtMs: null }));
      };
      await createPet(store, atMs - 2 * HOUR_MS, 'too old');
      await attemptOnce(500);
      await createPet(store, atMs, 'delivered');
      await attemptOnce(200);
      await createPet(store, atMs, 'given up');
      await attemptOnce(500);
      await store.webhooks.updateSubscription(subscription.id, moves.disable);
      await createPet(store, atMs, 'while disabled');
      await store.webhooks.updateSubscription(subscription.id, moves.enable);
      await createPet(store, atMs, 'pending');
      const [held] = await claimAll(store);
      assert.ok(held !== undefined);
      await store.placeOrder(1, new Date(atMs).toISOString(), () => ({ orderStatus: 'placed', petStatus: 'pending' }));
      await store.webhooks.sendTest(subscription.id, atMs, () => {});
      await attemptOnce(500);
      const sinceMs = atMs - HOUR_MS;
      await assert.rejects(
        store.webhooks.recover(subscription.id, sinceMs, () => {
          throw new Error('refused');
        }),
        /refused/,
      );
      assert.deepEqual(await claimAll(store), [], 'a refused recovery adds nothing');
      let seen: Subscription | undefined;
      const count = await store.webhooks.recover(
        subscription.id,
        sinceMs,
        (current) => {
          seen = current;
        },
        (found) => remembered('recover-1', 202, `{"count":${found}}`),
      );
      assert.equal(seen?.id, subscription.id);
      assert.equal(count, 3);
      const names = (deliveries: Awaited<ReturnType<typeof claimAll>>): string[] =>
        deliveries.map((delivery) => JSON.parse(delivery.event.json).data.name).sort();
      const claimed = await claimAll(store);
      assert.deepEqual(names(claimed), ['given up', 'pending', 'while disabled']);
      assert.ok(claimed.every((delivery) => delivery.attemptsMade === 0));
      assert.equal(
        (await store.idempotency.find('key_a POST /v1/webhooks', 'recover-1', Date.now()))?.body,
        '{"count":3}',
      );
      assert.equal(
        await store.webhooks.recover(subscription.id, sinceMs, () => {}),
        3,
        'pending, so not delivered yet',
      );
      assert.deepEqual(names(await claimAll(store)), ['given up', 'pending', 'while disabled'], 'replaced, not added');
    }));

  test('the Idempotency-Key answer of a test is kept with it, made from the event', () =>
    withStore(open, async ({ store }) => {
      const subscription = await subscribe(store, 'key_a', ['pet.created']);
      const event = await store.webhooks.sendTest(
        subscription.id,
        recentMs(),
        () => {},
        (recorded) => remembered('test-1', 202, recorded.json),
      );
      const answer = await store.idempotency.find('key_a POST /v1/webhooks', 'test-1', Date.now());
      assert.equal(answer?.body, event.json);
      assert.equal(answer?.status, 202);
    }));

  test('watch reports new due deliveries and a disabled subscription, until it is stopped', () =>
    withStore(open, async ({ store }) => {
      const subscription = await subscribe(store, 'key_a', ['pet.created']);
      const created = nextChange(store);
      try {
        await createPet(store, recentMs());
        await created.changed;
      } finally {
        created.stop();
      }
      const disabled = nextChange(store);
      try {
        await store.webhooks.updateSubscription(subscription.id, moves.disable);
        await disabled.changed;
      } finally {
        disabled.stop();
      }
    }));

  test('stats count pending deliveries, the time of the oldest pending event and disabled subscriptions', () =>
    withStore(open, async ({ store }) => {
      assert.deepEqual(await deliveryFigures(store), { pending: 0, oldestPendingMs: null, disabledSubscriptions: 0 });
      await subscribe(store, 'key_a', ['pet.created']);
      await subscribe(store, 'key_b', ['pet.created']);
      await subscribe(store, 'key_b', ['pet.created'], { status: 'disabled', disabledReason: 'off' });
      const atMs = recentMs();
      await createPet(store, atMs - 1000);
      await createPet(store, atMs);
      assert.deepEqual(await deliveryFigures(store), {
        pending: 4,
        oldestPendingMs: atMs - 1000,
        disabledSubscriptions: 1,
      });
      assert.equal((await store.webhooks.stats()).events, 2, 'the retained events are counted too');
    }));

  test('after a reopen, pending deliveries, their schedule, attempts and what was delivered are as they were', async (t) => {
    const opened = await open();
    try {
      if (opened.reopen === undefined) {
        t.skip('this store keeps nothing across opens');
        return;
      }
      const subscription = await subscribe(opened.store, 'key_a', ['pet.created']);
      const atMs = recentMs();
      for (const name of ['retried', 'delivered', 'dropped']) await createPet(opened.store, atMs, name);
      const claimed = await opened.store.webhooks.claimDue(atMs, 10, LONG_LEASE_MS, 10, new Map());
      const byName = new Map(claimed.map((delivery) => [JSON.parse(delivery.event.json).data.name, delivery]));
      const retried = byName.get('retried');
      assert.ok(retried !== undefined);
      await opened.store.webhooks.finishAttempt(
        attemptResult(retried, atMs, { status: 500, nextAttemptAtMs: atMs + 5000 }),
      );
      await opened.store.webhooks.finishAttempt(
        attemptResult(byName.get('delivered') ?? retried, atMs, { status: 200 }),
      );
      await opened.store.webhooks.dropDelivery(byName.get('dropped')?.deliveryId as string);
      const attempts = await opened.store.webhooks.pageAttempts(subscription.id, undefined, 10);
      const events = await allEvents(opened.store);
      const store = await opened.reopen();
      assert.deepEqual(await allEvents(store), events);
      assert.deepEqual(await deliveryFigures(store), { pending: 1, oldestPendingMs: atMs, disabledSubscriptions: 0 });
      assert.equal(await store.webhooks.nextDueMs(), atMs + 5000);
      const [again, ...none] = await store.webhooks.claimDue(atMs + 5000, 10, LONG_LEASE_MS, 10, new Map());
      assert.deepEqual(none, []);
      assert.deepEqual(again?.event, retried.event);
      assert.equal(again?.attemptsMade, 1);
      assert.deepEqual(await store.webhooks.pageAttempts(subscription.id, undefined, 10), attempts);
      assert.equal(
        await store.webhooks.recover(subscription.id, atMs, () => {}),
        2,
        'the pending one and the dropped one',
      );
    } finally {
      await opened.close();
    }
  });
}
