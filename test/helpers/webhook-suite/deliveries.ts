// The contract of deliveries: fan-out to enabled subscriptions of the type, claims with due times,
// leases and per-subscription limits, what an attempt leads to, and the deliveries that a test, a
// redelivery or a recovery adds.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { eventJson } from '../../../src/events/event.js';
import type { Store } from '../../../src/store/store.js';
import type { Subscription } from '../../../src/store/webhook-store.js';
import type { OpenStore } from '../webhook-store-suite.js';
import { deliveryFollowUpTests } from './delivery-follow-ups.js';
import {
  LONG_LEASE_MS,
  MINUTE_MS,
  allEvents,
  attemptResult,
  expectedAttemptJson,
  claimAll,
  createPet,
  recentMs,
  subscribe,
  withStore,
  deliveryFigures,
} from './fixtures.js';

const disable = (current: Subscription | undefined): Subscription => ({
  ...(current as Subscription),
  status: 'disabled',
  disabledReason: 'paused by its owner',
});
const enable = (current: Subscription | undefined): Subscription => ({
  ...(current as Subscription),
  status: 'enabled',
  disabledReason: null,
});

export function deliveryTests(open: OpenStore): void {
  test('an event is pending for every enabled subscription of its type, of any owner, and no other', () =>
    withStore(open, async ({ store }) => {
      const mine = await subscribe(store, 'key_a', ['pet.created']);
      const theirs = await subscribe(store, 'key_b', ['order.created', 'pet.created']);
      await subscribe(store, 'key_a', ['order.created', 'pet.updated']);
      await subscribe(store, 'key_a', ['pet.created'], { status: 'disabled', disabledReason: 'off' });
      const paused = await subscribe(store, 'key_a', ['pet.created']);
      await store.webhooks.updateSubscription(paused.id, disable);
      await createPet(store, recentMs());
      const claimed = await claimAll(store);
      assert.deepEqual(claimed.map((delivery) => delivery.subscriptionId).sort(), [mine.id, theirs.id].sort());
      const [event] = await allEvents(store);
      for (const delivery of claimed) assert.deepEqual(delivery.event, event);
      assert.equal(new Set(claimed.map((delivery) => delivery.deliveryId)).size, 2);
      assert.equal((await store.webhooks.stats()).pending, 2);
    }));

  test('a claimed delivery carries its event, subscription, owner, url, the secrets in force and no attempt yet', () =>
    withStore(open, async ({ store }) => {
      const subscription = await subscribe(store, 'key_a', ['pet.created'], {
        url: 'https://in.example/x',
        secrets: [
          { secret: 'whsec_bmV3', expiresAtMs: null },
          { secret: 'whsec_b2xk', expiresAtMs: Date.now() + 60 * MINUTE_MS },
          { secret: 'whsec_b2xkZXI=', expiresAtMs: Date.now() - 60 * MINUTE_MS },
        ],
      });
      await createPet(store, recentMs());
      const [delivery, ...none] = await claimAll(store);
      assert.deepEqual(none, []);
      assert.ok(delivery !== undefined);
      assert.equal(delivery.subscriptionId, subscription.id);
      assert.equal(delivery.ownerKeyId, 'key_a');
      assert.equal(delivery.url, 'https://in.example/x');
      assert.deepEqual(delivery.secrets, ['whsec_bmV3', 'whsec_b2xk']);
      assert.equal(delivery.attemptsMade, 0);
      assert.equal(delivery.failingSinceMs, null);
      assert.equal(delivery.event.type, 'pet.created');
    }));

  test('a delivery falls due at its event’s time: nothing is claimed before, and nextDueMs says when', () =>
    withStore(open, async ({ store }) => {
      assert.equal(await store.webhooks.nextDueMs(), undefined);
      await subscribe(store, 'key_a', ['pet.created']);
      const atMs = recentMs();
      await createPet(store, atMs);
      assert.equal(await store.webhooks.nextDueMs(), atMs);
      assert.deepEqual(await store.webhooks.claimDue(atMs - 1, 10, LONG_LEASE_MS, 10, new Map()), []);
      assert.equal((await store.webhooks.claimDue(atMs, 10, LONG_LEASE_MS, 10, new Map())).length, 1);
    }));

  test('a claim is a lease: the delivery is handed out again only once the lease has ended', () =>
    withStore(open, async ({ store }) => {
      await subscribe(store, 'key_a', ['pet.created']);
      const atMs = recentMs();
      await createPet(store, atMs);
      const [first] = await store.webhooks.claimDue(atMs, 10, 1000, 10, new Map());
      assert.ok(first !== undefined);
      assert.deepEqual(await store.webhooks.claimDue(atMs + 999, 10, 1000, 10, new Map()), []);
      assert.equal(await store.webhooks.nextDueMs(), atMs + 1000);
      const [again] = await store.webhooks.claimDue(atMs + 1000, 10, 1000, 10, new Map());
      assert.equal(again?.deliveryId, first.deliveryId);
      assert.equal(again?.attemptsMade, 0);
    }));

  test('claimDue takes at most max, and at most perSubscription of a subscription, counting those held', () =>
    withStore(open, async ({ store }) => {
      const one = await subscribe(store, 'key_a', ['pet.created']);
      const two = await subscribe(store, 'key_b', ['pet.created']);
      for (let index = 0; index < 3; index++) await createPet(store, recentMs());
      const nowMs = recentMs() + 1000;
      const count = (claimed: Array<{ subscriptionId: string }>, id: string): number =>
        claimed.filter((delivery) => delivery.subscriptionId === id).length;
      const first = await store.webhooks.claimDue(nowMs, 10, LONG_LEASE_MS, 2, new Map([[one.id, 1]]));
      assert.equal(count(first, one.id), 1);
      assert.equal(count(first, two.id), 2);
      const second = await store.webhooks.claimDue(nowMs, 2, LONG_LEASE_MS, 10, new Map());
      assert.equal(second.length, 2);
      const third = await store.webhooks.claimDue(nowMs, 10, LONG_LEASE_MS, 10, new Map());
      assert.equal(third.length, 1);
      const ids = [...first, ...second, ...third].map((delivery) => delivery.deliveryId);
      assert.equal(new Set(ids).size, 6, 'each delivery handed out once');
      assert.deepEqual(await store.webhooks.claimDue(nowMs, 10, LONG_LEASE_MS, 10, new Map()), []);
    }));

  test('a subscription whose receiver is failing gets perFailingSubscription; the others their full share', () =>
    withStore(open, async ({ store }) => {
      const failing = await subscribe(store, 'key_a', ['pet.created']);
      const atMs = recentMs();
      // Due first, so that the claim of one takes one of its deliveries (no tie to break).
      for (let index = 0; index < 4; index++) await createPet(store, atMs - 1000);
      const healthy = await subscribe(store, 'key_b', ['pet.created']);
      for (let index = 0; index < 4; index++) await createPet(store, atMs);
      const [first] = await store.webhooks.claimDue(atMs, 1, LONG_LEASE_MS, 8, new Map());
      assert.equal(first?.subscriptionId, failing.id);
      await store.webhooks.finishAttempt(attemptResult(first, atMs, { status: 503, nextAttemptAtMs: atMs }));
      const claimed = await store.webhooks.claimDue(atMs, 20, LONG_LEASE_MS, 8, new Map(), 2);
      const count = (id: string): number => claimed.filter((delivery) => delivery.subscriptionId === id).length;
      assert.equal(count(failing.id), 2);
      assert.equal(count(healthy.id), 4);
    }));

  test('the subscriptions held fewest are served first, whichever is due longest', () =>
    withStore(open, async ({ store }) => {
      const busy = await subscribe(store, 'key_a', ['pet.created']);
      const atMs = recentMs();
      for (let index = 0; index < 3; index++) await createPet(store, atMs - 60_000);
      const idle = await subscribe(store, 'key_b', ['pet.created']);
      for (let index = 0; index < 3; index++) await createPet(store, atMs);
      const claimed = await store.webhooks.claimDue(atMs, 2, LONG_LEASE_MS, 8, new Map([[busy.id, 1]]));
      assert.deepEqual(
        claimed.map((delivery) => delivery.subscriptionId),
        [idle.id, idle.id],
      );
    }));

  test('a failed attempt is recorded and its delivery rescheduled; attemptsMade counts the attempts', () =>
    withStore(open, async ({ store }) => {
      const subscription = await subscribe(store, 'key_a', ['pet.created']);
      const atMs = recentMs();
      await createPet(store, atMs);
      const [first] = await store.webhooks.claimDue(atMs, 10, LONG_LEASE_MS, 10, new Map());
      assert.ok(first !== undefined);
      await store.webhooks.finishAttempt(attemptResult(first, atMs, { status: 503, nextAttemptAtMs: atMs + 5000 }));
      assert.equal((await store.webhooks.getSubscription(subscription.id))?.failingSinceMs, atMs);
      assert.equal(await store.webhooks.nextDueMs(), atMs + 5000);
      assert.deepEqual(await store.webhooks.claimDue(atMs + 4999, 10, LONG_LEASE_MS, 10, new Map()), []);
      const [second] = await store.webhooks.claimDue(atMs + 5000, 10, LONG_LEASE_MS, 10, new Map());
      assert.equal(second?.attemptsMade, 1);
      assert.equal(second?.failingSinceMs, atMs);
      assert.deepEqual(second?.event, first.event);
      const attempts = await store.webhooks.pageAttempts(subscription.id, undefined, 10);
      assert.equal(attempts.total, 1);
      assert.equal(JSON.parse(attempts.items[0]?.json as string).status, 503);
      assert.equal(attempts.items[0]?.subscriptionId, subscription.id);
    }));

  test('a delivery ends when it is delivered or given up, and the subscription’s failing time follows', () =>
    withStore(open, async ({ store }) => {
      const subscription = await subscribe(store, 'key_a', ['pet.created']);
      const atMs = recentMs();
      await createPet(store, atMs);
      await createPet(store, atMs);
      const [first, second] = await store.webhooks.claimDue(atMs, 10, LONG_LEASE_MS, 10, new Map());
      assert.ok(first !== undefined && second !== undefined);
      await store.webhooks.finishAttempt(attemptResult(first, atMs, { status: 500, nextAttemptAtMs: null }));
      assert.equal((await store.webhooks.getSubscription(subscription.id))?.failingSinceMs, atMs);
      await store.webhooks.finishAttempt(attemptResult(second, atMs + 1, { status: 204 }));
      assert.equal((await store.webhooks.getSubscription(subscription.id))?.failingSinceMs, null);
      assert.deepEqual(await claimAll(store, atMs + 365 * 24 * 60 * MINUTE_MS), []);
      assert.equal(await store.webhooks.nextDueMs(), undefined);
      assert.deepEqual(await deliveryFigures(store), { pending: 0, oldestPendingMs: null, disabledSubscriptions: 0 });
      assert.equal((await store.webhooks.pageAttempts(subscription.id, undefined, 10)).total, 2);
    }));

  test('an attempt that disables its subscription drops the subscription’s other pending deliveries', () =>
    withStore(open, async ({ store }) => {
      const subscription = await subscribe(store, 'key_a', ['pet.created']);
      await createPet(store, recentMs());
      await createPet(store, recentMs());
      const [delivery] = await store.webhooks.claimDue(Date.now() + MINUTE_MS, 1, LONG_LEASE_MS, 10, new Map());
      assert.ok(delivery !== undefined);
      await store.webhooks.finishAttempt(
        attemptResult(delivery, recentMs(), { status: 410, disableReason: 'the receiver answered 410 Gone' }),
      );
      const disabled = await store.webhooks.getSubscription(subscription.id);
      assert.equal(disabled?.status, 'disabled');
      assert.equal(disabled?.disabledReason, 'the receiver answered 410 Gone');
      assert.deepEqual(await claimAll(store), []);
      assert.deepEqual(await deliveryFigures(store), { pending: 0, oldestPendingMs: null, disabledSubscriptions: 1 });
      assert.equal((await store.webhooks.pageAttempts(subscription.id, undefined, 10)).total, 1);
    }));

  test('disabling drops pending deliveries, and events recorded while disabled are not sent once enabled again', () =>
    withStore(open, async ({ store }) => {
      const subscription = await subscribe(store, 'key_a', ['pet.created']);
      await createPet(store, recentMs(), 'before');
      await store.webhooks.updateSubscription(subscription.id, disable);
      assert.equal((await store.webhooks.stats()).pending, 0);
      await createPet(store, recentMs(), 'while disabled');
      assert.deepEqual(await claimAll(store), []);
      await store.webhooks.updateSubscription(subscription.id, enable);
      await createPet(store, recentMs(), 'after');
      const claimed = await claimAll(store);
      assert.deepEqual(
        claimed.map((delivery) => JSON.parse(delivery.event.json).data.name),
        ['after'],
      );
    }));

  test('a disable takes back the retries it drops: each event’s newest attempt shows no next attempt, older ones keep theirs', async (t) => {
    for (const how of ['by its owner', 'by an attempt answered 410'] as const) {
      await t.test(how, () =>
        withStore(open, async (opened) => {
          const { store } = opened;
          const subscription = await subscribe(store, 'key_a', ['pet.created']);
          const atMs = recentMs();
          for (let index = 0; index < 3; index++) await createPet(store, atMs);
          const retryAt = new Date(atMs + 5000).toISOString();
          for (const delivery of await store.webhooks.claimDue(atMs, 10, LONG_LEASE_MS, 10, new Map()))
            await store.webhooks.finishAttempt(
              attemptResult(delivery, atMs, { status: 503, nextAttemptAtMs: atMs + 5000 }),
            );
          // All three are claimed again; a fails again (and waits), b and c are under way at the disable:
          // their lease runs past the store's clock (an hour after atMs), or their instance would be gone.
          const underWayLeaseMs = 3 * 60 * MINUTE_MS;
          const [a, b, c] = await store.webhooks.claimDue(atMs + 5000, 10, underWayLeaseMs, 10, new Map());
          assert.ok(a !== undefined && b !== undefined && c !== undefined);
          await store.webhooks.finishAttempt(
            attemptResult(a, atMs + 5000, { status: 503, nextAttemptAtMs: atMs + 60_000 }),
          );
          // c's second attempt, under way at the disable, was made: its first keeps announcing it.
          const expected = new Map([
            [a.event.id, ['503 null', `503 ${retryAt}`]],
            [c.event.id, ['503 null', `503 ${retryAt}`]],
          ]);
          if (how === 'by its owner') {
            await store.webhooks.updateSubscription(subscription.id, disable);
            await store.webhooks.finishAttempt(
              attemptResult(b, atMs + 5001, { status: 503, nextAttemptAtMs: atMs + 60_000 }),
            );
            expected.set(b.event.id, ['503 null', `503 ${retryAt}`]);
          } else {
            const gone = { status: 410, disableReason: 'the receiver answered 410 Gone' };
            await store.webhooks.finishAttempt(attemptResult(b, atMs + 5001, gone));
            expected.set(b.event.id, ['410 null', `503 ${retryAt}`]);
          }
          await store.webhooks.finishAttempt(
            attemptResult(c, atMs + 5002, { status: 503, nextAttemptAtMs: atMs + 60_000 }),
          );
          /** Each event's attempts as `status nextAttemptAt`, newest first. */
          const byEvent = async (webhooks: Store['webhooks']): Promise<Map<string, string[]>> => {
            const listed = new Map<string, string[]>();
            for (const item of (await webhooks.pageAttempts(subscription.id, undefined, 10)).items) {
              const attempt = JSON.parse(item.json) as {
                eventId: string;
                status: number;
                nextAttemptAt: string | null;
              };
              listed.set(attempt.eventId, [
                ...(listed.get(attempt.eventId) ?? []),
                `${attempt.status} ${attempt.nextAttemptAt}`,
              ]);
            }
            return listed;
          };
          assert.deepEqual(await byEvent(store.webhooks), expected);
          assert.deepEqual(await claimAll(store), []);
          if (opened.reopen !== undefined) assert.deepEqual(await byEvent((await opened.reopen()).webhooks), expected);
        }),
      );
    }
  });

  test('an attempt under way when its subscription is disabled is recorded without the retry it asked for', async (t) => {
    for (const how of ['alone', 'in a batch'] as const) {
      await t.test(how, () =>
        withStore(open, async ({ store }) => {
          const subscription = await subscribe(store, 'key_a', ['pet.created']);
          const atMs = recentMs();
          await createPet(store, atMs);
          await createPet(store, atMs);
          const [a, b] = await store.webhooks.claimDue(atMs, 10, LONG_LEASE_MS, 10, new Map());
          assert.ok(a !== undefined && b !== undefined);
          await store.webhooks.updateSubscription(subscription.id, disable);
          const results = [a, b].map((delivery) =>
            attemptResult(delivery, atMs + 100, { status: 503, nextAttemptAtMs: atMs + 5000 }),
          );
          if (how === 'alone') for (const result of results) await store.webhooks.finishAttempt(result);
          else await store.webhooks.finishAttempts(results);
          const { items } = await store.webhooks.pageAttempts(subscription.id, undefined, 10);
          assert.deepEqual(
            items.map((item) => JSON.parse(item.json).nextAttemptAt),
            [null, null],
          );
          assert.deepEqual(await claimAll(store), []);
        }),
      );
    }
  });

  test('finishAttempts records a batch as one by one: retries, ends, a disable among them, and the last failing time', () =>
    withStore(open, async ({ store }) => {
      const one = await subscribe(store, 'key_a', ['pet.created']);
      const two = await subscribe(store, 'key_b', ['pet.created']);
      const atMs = recentMs();
      for (let index = 0; index < 3; index++) await createPet(store, atMs);
      const claimed = await store.webhooks.claimDue(atMs, 10, LONG_LEASE_MS, 10, new Map());
      assert.equal(claimed.length, 6);
      const of = (id: string) => claimed.filter((delivery) => delivery.subscriptionId === id);
      const [a1, a2, a3] = of(one.id);
      const [b1, b2, b3] = of(two.id);
      assert.ok(a1 && a2 && a3 && b1 && b2 && b3);
      await store.webhooks.finishAttempts([
        attemptResult(a1, atMs, { status: 500, nextAttemptAtMs: atMs + 5000 }),
        attemptResult(b1, atMs, { status: 204 }),
        attemptResult(a2, atMs + 1, { status: 200 }),
        attemptResult(b2, atMs + 2, { status: 500, nextAttemptAtMs: null }),
        attemptResult(a3, atMs + 3, { status: 503, nextAttemptAtMs: atMs + 6000 }),
        attemptResult(b3, atMs + 4, { status: 410, disableReason: 'the endpoint answered 410 Gone' }),
      ]);
      const first = await store.webhooks.getSubscription(one.id);
      assert.equal(first?.status, 'enabled');
      // The failing time the subscription's last attempt of the batch carried.
      assert.equal(first?.failingSinceMs, atMs + 3);
      assert.equal((await store.webhooks.getSubscription(two.id))?.status, 'disabled');
      const attempts = await store.webhooks.pageAttempts(one.id, undefined, 10);
      assert.deepEqual(
        attempts.items.map((attempt) => JSON.parse(attempt.json).status),
        [503, 200, 500],
        'newest first, in the order of the batch',
      );
      assert.equal((await store.webhooks.pageAttempts(two.id, undefined, 10)).total, 3);
      assert.equal(await store.webhooks.nextDueMs(), atMs + 5000);
      const again = await claimAll(store, atMs + 6000);
      assert.deepEqual(
        again.map((delivery) => delivery.attemptsMade),
        [1, 1],
      );
      assert.deepEqual(again.map((delivery) => delivery.event.id).sort(), [a1.event.id, a3.event.id].sort());
    }));

  test('dropDelivery lets a delivery go without an attempt', () =>
    withStore(open, async ({ store }) => {
      const subscription = await subscribe(store, 'key_a', ['pet.created']);
      await createPet(store, recentMs());
      const [delivery] = await claimAll(store);
      assert.ok(delivery !== undefined);
      await store.webhooks.dropDelivery(delivery.deliveryId);
      assert.deepEqual(await claimAll(store, Date.now() + LONG_LEASE_MS + MINUTE_MS), []);
      assert.equal((await store.webhooks.stats()).pending, 0);
      assert.equal((await store.webhooks.pageAttempts(subscription.id, undefined, 10)).total, 0);
    }));

  test('attempts are listed newest first, page after page', () =>
    withStore(open, async ({ store }) => {
      const subscription = await subscribe(store, 'key_a', ['pet.created']);
      const atMs = recentMs();
      await createPet(store, atMs);
      const made: string[] = [];
      for (let index = 0; index < 3; index++) {
        const [delivery] = await store.webhooks.claimDue(atMs + index, 1, LONG_LEASE_MS, 10, new Map());
        assert.ok(delivery !== undefined, `attempt ${index}`);
        const result = attemptResult(delivery, atMs + index, { status: 500, nextAttemptAtMs: atMs + index + 1 });
        await store.webhooks.finishAttempt(result);
        made.push(expectedAttemptJson(result));
      }
      const first = await store.webhooks.pageAttempts(subscription.id, undefined, 2);
      assert.deepEqual(
        first.items.map((attempt) => attempt.json),
        [made[2], made[1]],
      );
      assert.equal(first.more, true);
      assert.equal(first.total, 3);
      const last = first.items[1];
      const rest = await store.webhooks.pageAttempts(subscription.id, last && { atMs: last.atMs, seq: last.seq }, 2);
      assert.deepEqual(
        rest.items.map((attempt) => attempt.json),
        [made[0]],
      );
      assert.equal(rest.more, false);
      assert.equal(rest.total, 3);
      assert.ok(first.items.every((attempt) => attempt.id.startsWith('att_')));
    }));

  test('attempts are listed by the time they were made, not the order their answers came in', () =>
    withStore(open, async ({ store }) => {
      const subscription = await subscribe(store, 'key_a', ['pet.created']);
      const atMs = recentMs();
      for (let index = 0; index < 4; index++) await createPet(store, atMs, `Pet ${index}`);
      const deliveries = await store.webhooks.claimDue(atMs, 4, LONG_LEASE_MS, 10, new Map());
      assert.equal(deliveries.length, 4);
      // Made at +30, +10, +20 and +20 ms, and recorded (answered) in this order: the one made last, first.
      const madeAt = [30, 10, 20, 20];
      const results = deliveries.map((delivery, index) =>
        attemptResult(delivery, atMs + (madeAt[index] as number), { status: 500, nextAttemptAtMs: atMs + 60_000 }),
      );
      const [at30, at10, at20, at20Later] = results.map(expectedAttemptJson);
      for (const result of results) await store.webhooks.finishAttempt(result);
      const all = await store.webhooks.pageAttempts(subscription.id, undefined, 10);
      // Newest first; of the two made in one millisecond, the one recorded last first.
      assert.deepEqual(
        all.items.map((attempt) => attempt.json),
        [at30, at20Later, at20, at10],
      );
      assert.deepEqual(
        all.items.map((attempt) => attempt.atMs),
        [30, 20, 20, 10].map((ms) => atMs + ms),
      );
      const first = await store.webhooks.pageAttempts(subscription.id, undefined, 2);
      const last = first.items[1];
      assert.ok(last !== undefined && first.more);
      const rest = await store.webhooks.pageAttempts(subscription.id, { atMs: last.atMs, seq: last.seq }, 2);
      assert.deepEqual(
        rest.items.map((attempt) => attempt.json),
        [at20, at10],
      );
      assert.equal(rest.more, false);
      // A position of an earlier release: the seq alone, whose time the store looks up.
      const fromSeq = await store.webhooks.pageAttempts(subscription.id, { atMs: undefined, seq: last.seq }, 2);
      assert.deepEqual(fromSeq.items, rest.items);
      const gone = await store.webhooks.pageAttempts(subscription.id, { atMs: undefined, seq: 1_000_000 }, 2);
      assert.deepEqual(gone.items, [], 'a position of an attempt no longer kept ends the listing');
    }));

  test('sendTest records a webhook.test event delivered to that one subscription, whatever its types', () =>
    withStore(open, async ({ store }) => {
      await subscribe(store, 'key_a', ['pet.created']);
      const target = await subscribe(store, 'key_a', ['order.updated']);
      const atMs = recentMs();
      let seen: Subscription | undefined;
      const event = await store.webhooks.sendTest(target.id, atMs, (current) => {
        seen = current;
      });
      assert.deepEqual(seen, target);
      assert.equal(event.type, 'webhook.test');
      assert.equal(event.timestampMs, atMs);
      assert.equal(event.json, eventJson(event.id, 'webhook.test', atMs, JSON.stringify({ webhookId: target.id })));
      const claimed = await claimAll(store);
      assert.equal(claimed.length, 1);
      assert.equal(claimed[0]?.subscriptionId, target.id);
      assert.deepEqual(claimed[0]?.event, event);
      assert.deepEqual(await allEvents(store), [], 'a test event is never listed');
      await assert.rejects(
        store.webhooks.sendTest(target.id, atMs, () => {
          throw new Error('refused');
        }),
        /refused/,
      );
      assert.equal((await store.webhooks.stats()).pending, 1, 'a refused test records nothing');
    }));

  deliveryFollowUpTests(open, { disable, enable });
}
