// The contract of subscriptions: what is kept, how an owner pages through them, the limit per owner
// checked with the insert, changes decided on the locked row, and Idempotency-Key answers kept with them.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Subscription } from '../../../src/store/webhook-store.js';
import type { OpenStore } from '../webhook-store-suite.js';
import {
  attemptResult,
  claimAll,
  createPet,
  newSubscription,
  recentMs,
  remembered,
  subscribe,
  withStore,
} from './fixtures.js';

export function subscriptionTests(open: OpenStore): void {
  test('addSubscription keeps every field, secrets in order, and gives it its place', () =>
    withStore(open, async ({ store }) => {
      const wanted = newSubscription('key_a', ['pet.created', 'order.updated'], {
        description: 'a "quoted" \u0000 description',
        secrets: [
          { secret: 'whsec_bmV3', expiresAtMs: null },
          { secret: 'whsec_b2xk', expiresAtMs: recentMs() + 1000 },
        ],
      });
      const added = await store.webhooks.addSubscription(wanted, 20);
      assert.ok(added !== undefined);
      assert.deepEqual({ ...added, seq: 0 }, { ...wanted, seq: 0 });
      assert.ok(Number.isSafeInteger(added.seq) && added.seq > 0);
      assert.deepEqual(await store.webhooks.getSubscription(added.id), added);
      assert.equal(await store.webhooks.getSubscription('wh_missing'), undefined);
    }));

  test('an owner pages through its subscriptions in creation order and sees no one else’s', () =>
    withStore(open, async ({ store }) => {
      const mine: Subscription[] = [];
      for (let index = 0; index < 3; index++) {
        mine.push(await subscribe(store, 'key_a', ['pet.created']));
        await subscribe(store, 'key_b', ['pet.created']);
      }
      const first = await store.webhooks.pageSubscriptions('key_a', 0, 2);
      assert.deepEqual(first.items, mine.slice(0, 2));
      assert.equal(first.more, true);
      assert.equal(first.total, 3);
      const rest = await store.webhooks.pageSubscriptions('key_a', first.items[1]?.seq as number, 2);
      assert.deepEqual(rest.items, mine.slice(2));
      assert.equal(rest.more, false);
      assert.equal(rest.total, 3);
      const nobody = await store.webhooks.pageSubscriptions('key_c', 0, 2);
      assert.deepEqual(nobody, { items: [], more: false, total: 0 });
    }));

  test('an owner gets at most maxPerOwner subscriptions, also when they are added at the same time', () =>
    withStore(open, async ({ store }) => {
      const results = await Promise.all(
        Array.from({ length: 6 }, () => store.webhooks.addSubscription(newSubscription('key_a', ['pet.created']), 4)),
      );
      assert.equal(results.filter((added) => added !== undefined).length, 4);
      assert.equal(await store.webhooks.addSubscription(newSubscription('key_a', ['pet.created']), 4), undefined);
      assert.equal((await store.webhooks.pageSubscriptions('key_a', 0, 100)).total, 4);
      assert.ok(await store.webhooks.addSubscription(newSubscription('key_b', ['pet.created']), 4), 'per owner');
      const [first] = (await store.webhooks.pageSubscriptions('key_a', 0, 1)).items;
      await store.webhooks.deleteSubscription(first?.id as string, () => {});
      assert.ok(await store.webhooks.addSubscription(newSubscription('key_a', ['pet.created']), 4), 'room again');
    }));

  test('the Idempotency-Key answer of addSubscription and updateSubscription is kept with the change', () =>
    withStore(open, async ({ store }) => {
      const created = remembered('create-1', 201, '{"secret":"whsec_shown_once"}');
      const added = await store.webhooks.addSubscription(newSubscription('key_a', ['pet.created']), 20, created);
      assert.ok(added !== undefined);
      const answer = await store.idempotency.find(created.scope, created.key, Date.now());
      assert.deepEqual(
        answer === undefined
          ? undefined
          : {
              fingerprint: answer.fingerprint,
              status: answer.status,
              body: answer.body,
              expiresAtMs: answer.expiresAtMs,
            },
        { fingerprint: created.fingerprint, status: 201, body: created.body, expiresAtMs: created.expiresAtMs },
      );
      const rotated = remembered('rotate-1', 200, '{"secret":"whsec_new"}');
      await store.webhooks.updateSubscription(added.id, (current) => current as Subscription, rotated);
      assert.equal((await store.idempotency.find(rotated.scope, rotated.key, Date.now()))?.status, 200);
      const full = remembered('create-2', 201, '{}');
      assert.equal(await store.webhooks.addSubscription(newSubscription('key_a', ['pet.created']), 1, full), undefined);
      assert.equal(await store.idempotency.find(full.scope, full.key, Date.now()), undefined, 'not kept when refused');
    }));

  test('updateSubscription writes what decide answers given the subscription as it is now', () =>
    withStore(open, async ({ store }) => {
      const added = await subscribe(store, 'key_a', ['pet.created']);
      let seen: Subscription | undefined;
      const changed = await store.webhooks.updateSubscription(added.id, (current) => {
        seen = current;
        return { ...(current as Subscription), url: 'https://other.example/in', events: ['order.created'] };
      });
      assert.deepEqual(seen, added);
      assert.equal(changed.url, 'https://other.example/in');
      assert.deepEqual(await store.webhooks.getSubscription(added.id), changed);
      const missing: Array<Subscription | undefined> = [];
      await assert.rejects(
        store.webhooks.updateSubscription('wh_missing', (current) => {
          missing.push(current);
          throw new Error('not found');
        }),
        /not found/,
      );
      assert.deepEqual(missing, [undefined]);
      await assert.rejects(
        store.webhooks.updateSubscription(added.id, () => {
          throw new Error('refused');
        }),
        /refused/,
      );
      assert.deepEqual(await store.webhooks.getSubscription(added.id), changed);
    }));

  test('updates of one subscription see each other: each decide gets the result of the one before', () =>
    withStore(open, async ({ store }) => {
      const added = await subscribe(store, 'key_a', ['pet.created']);
      await Promise.all(
        Array.from({ length: 5 }, () =>
          store.webhooks.updateSubscription(added.id, (current) => ({
            ...(current as Subscription),
            description: `${(current as Subscription).description ?? ''}x`,
          })),
        ),
      );
      assert.equal((await store.webhooks.getSubscription(added.id))?.description, 'xxxxx');
    }));

  test('deleteSubscription removes it with its pending deliveries and its attempts, once decide accepts', () =>
    withStore(open, async ({ store }) => {
      const kept = await subscribe(store, 'key_a', ['pet.created']);
      const gone = await subscribe(store, 'key_a', ['pet.created']);
      await createPet(store, recentMs());
      const claimed = await claimAll(store);
      const mine = claimed.find((delivery) => delivery.subscriptionId === gone.id);
      assert.ok(mine !== undefined);
      await store.webhooks.finishAttempt(attemptResult(mine, recentMs(), { status: 500, nextAttemptAtMs: recentMs() }));
      await createPet(store, recentMs());
      await assert.rejects(
        store.webhooks.deleteSubscription(gone.id, () => {
          throw new Error('refused');
        }),
        /refused/,
      );
      assert.ok(await store.webhooks.getSubscription(gone.id), 'a refused delete changes nothing');
      let seen: Subscription | undefined;
      await store.webhooks.deleteSubscription(gone.id, (current) => {
        seen = current;
      });
      assert.equal(seen?.id, gone.id);
      assert.equal(await store.webhooks.getSubscription(gone.id), undefined);
      assert.equal((await store.webhooks.pageSubscriptions('key_a', 0, 10)).total, 1);
      const attempts = await store.webhooks.pageAttempts(gone.id, undefined, 10);
      assert.deepEqual(attempts, { items: [], more: false, total: 0 });
      const later = await claimAll(store);
      assert.ok(later.every((delivery) => delivery.subscriptionId === kept.id));
      assert.equal((await store.webhooks.stats()).pending, 2, 'the other subscription’s two deliveries');
      const missing: Array<Subscription | undefined> = [];
      await assert.rejects(
        store.webhooks.deleteSubscription(gone.id, (current) => {
          missing.push(current);
          throw new Error('not found');
        }),
        /not found/,
      );
      assert.deepEqual(missing, [undefined]);
    }));

  test('after a reopen, subscriptions are as they were and new ones come after them', async (t) => {
    const opened = await open();
    try {
      if (opened.reopen === undefined) {
        t.skip('this store keeps nothing across opens');
        return;
      }
      const first = await subscribe(opened.store, 'key_a', ['pet.created']);
      const second = await subscribe(opened.store, 'key_a', ['order.created'], { description: 'second' });
      await opened.store.webhooks.updateSubscription(second.id, (current) => ({
        ...(current as Subscription),
        status: 'disabled',
        disabledReason: 'paused',
      }));
      await opened.store.webhooks.deleteSubscription(first.id, () => {});
      const before = await opened.store.webhooks.pageSubscriptions('key_a', 0, 10);
      const store = await opened.reopen();
      assert.deepEqual(await store.webhooks.pageSubscriptions('key_a', 0, 10), before);
      const third = await subscribe(store, 'key_a', ['pet.created']);
      assert.ok(third.seq > second.seq);
      assert.deepEqual(
        (await store.webhooks.pageSubscriptions('key_a', 0, 10)).items.map((item) => item.id),
        [second.id, third.id],
      );
    } finally {
      await opened.close();
    }
  });
}
