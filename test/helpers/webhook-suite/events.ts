// The contract of events: which changes record which events, with exactly which JSON, and how they are
// listed, read, kept for the retention period and forgotten.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { eventJson } from '../../../src/events/event.js';
import type { OrderMove } from '../../../src/store/store.js';
import type { OpenStore } from '../webhook-store-suite.js';
import { DAY_MS, allEvents, attemptResult, claimAll, createPet, recentMs, subscribe, withStore } from './fixtures.js';

const PLACE: OrderMove = { orderStatus: 'placed', petStatus: 'pending' };
const DELIVER: OrderMove = { orderStatus: 'delivered', petStatus: 'sold' };
const refuse = (): never => {
  throw new Error('refused by the rule');
};

export function eventTests(open: OpenStore): void {
  test('createPet records one pet.created event whose JSON is id, type, timestamp and the pet as data', () =>
    withStore(open, async ({ store }) => {
      const atMs = recentMs() + 123;
      const pet = await createPet(store, atMs);
      const [event, ...others] = await allEvents(store);
      assert.ok(event !== undefined);
      assert.deepEqual(others, []);
      assert.match(event.id, /^evt_[A-Za-z0-9_:-]+$/);
      assert.equal(event.type, 'pet.created');
      assert.equal(event.timestampMs, atMs);
      assert.equal(event.json, eventJson(event.id, 'pet.created', atMs, pet));
      assert.deepEqual(JSON.parse(event.json).data, JSON.parse(pet));
      assert.equal(new Date(JSON.parse(event.json).timestamp).getTime(), atMs);
      assert.deepEqual(await store.webhooks.getEvent(event.id, 0), event);
    }));

  test('placeOrder records order.created then pet.updated with the pet now pending, dated createdAt', () =>
    withStore(open, async ({ store }) => {
      await createPet(store, recentMs());
      const createdAt = new Date(recentMs() + 5000).toISOString();
      const order = await store.placeOrder(1, createdAt, () => PLACE);
      const events = (await allEvents(store)).slice(1);
      assert.deepEqual(
        events.map((event) => event.type),
        ['order.created', 'pet.updated'],
      );
      const [placed, moved] = events as [(typeof events)[0], (typeof events)[0]];
      const atMs = Date.parse(createdAt);
      assert.equal(placed.json, eventJson(placed.id, 'order.created', atMs, order.json));
      const pet = (await store.getPet(1))?.json as string;
      assert.equal(JSON.parse(pet).status, 'pending');
      assert.equal(moved.json, eventJson(moved.id, 'pet.updated', atMs, pet));
      assert.notEqual(placed.id, moved.id);
    }));

  test('moveOrder records order.updated then pet.updated, dated with the time it is given', () =>
    withStore(open, async ({ store }) => {
      await createPet(store, recentMs());
      await store.placeOrder(1, new Date(recentMs()).toISOString(), () => PLACE);
      const atMs = recentMs() + 7000;
      const order = await store.moveOrder(1, () => DELIVER, atMs);
      const events = (await allEvents(store)).slice(3);
      const pet = (await store.getPet(1))?.json as string;
      assert.deepEqual(
        events.map((event) => event.json),
        [
          eventJson(events[0]?.id as string, 'order.updated', atMs, order.json),
          eventJson(events[1]?.id as string, 'pet.updated', atMs, pet),
        ],
      );
      assert.equal(JSON.parse(pet).status, 'sold');
    }));

  test('a refused change records no event and no delivery', () =>
    withStore(open, async ({ store }) => {
      await subscribe(store, 'key_a', ['pet.created', 'pet.updated', 'order.created', 'order.updated']);
      await createPet(store, recentMs());
      await assert.rejects(store.placeOrder(1, new Date(recentMs()).toISOString(), refuse), /refused by the rule/);
      await assert.rejects(store.moveOrder(99, refuse, recentMs()), /refused by the rule/);
      await store.placeOrder(1, new Date(recentMs()).toISOString(), () => PLACE);
      await assert.rejects(store.moveOrder(1, refuse, recentMs()), /refused by the rule/);
      assert.deepEqual(
        (await allEvents(store)).map((event) => event.type),
        ['pet.created', 'order.created', 'pet.updated'],
      );
      assert.equal((await claimAll(store)).length, 3);
    }));

  test('events are listed in the order of recording, page after page from the last position', () =>
    withStore(open, async ({ store }) => {
      for (let index = 0; index < 5; index++) await createPet(store, recentMs() + index, `pet ${index}`);
      const first = await store.webhooks.pageEvents({ type: undefined, after: undefined, limit: 2, sinceMs: 0 });
      assert.equal(first.items.length, 2);
      assert.equal(first.more, true);
      assert.equal(first.total, 5);
      assert.ok(first.last !== undefined);
      const second = await store.webhooks.pageEvents({ type: undefined, after: first.last, limit: 2, sinceMs: 0 });
      const third = await store.webhooks.pageEvents({ type: undefined, after: second.last, limit: 2, sinceMs: 0 });
      assert.equal(second.more, true);
      assert.equal(third.more, false);
      assert.equal(third.total, 5);
      const names = [...first.items, ...second.items, ...third.items].map((event) => JSON.parse(event.json).data.name);
      assert.deepEqual(names, ['pet 0', 'pet 1', 'pet 2', 'pet 3', 'pet 4']);
      assert.equal(new Set([...first.items, ...second.items, ...third.items].map((event) => event.id)).size, 5);
    }));

  test('a reader that reached the last page and continues from its last position gets every event recorded since', () =>
    withStore(open, async ({ store }) => {
      await createPet(store, recentMs(), 'before');
      const end = await store.webhooks.pageEvents({ type: undefined, after: undefined, limit: 10, sinceMs: 0 });
      assert.equal(end.more, false);
      await createPet(store, recentMs(), 'after 1');
      await createPet(store, recentMs(), 'after 2');
      const next = await store.webhooks.pageEvents({ type: undefined, after: end.last, limit: 10, sinceMs: 0 });
      assert.deepEqual(
        next.items.map((event) => JSON.parse(event.json).data.name),
        ['after 1', 'after 2'],
      );
      assert.equal(next.more, false);
    }));

  test('the type filter lists the events of that type only, and counts them', () =>
    withStore(open, async ({ store }) => {
      await createPet(store, recentMs(), 'a');
      await createPet(store, recentMs(), 'b');
      await store.placeOrder(1, new Date(recentMs()).toISOString(), () => PLACE);
      await createPet(store, recentMs(), 'c');
      const created = await store.webhooks.pageEvents({ type: 'pet.created', after: undefined, limit: 2, sinceMs: 0 });
      assert.deepEqual(
        created.items.map((event) => JSON.parse(event.json).data.name),
        ['a', 'b'],
      );
      assert.equal(created.total, 3);
      assert.equal(created.more, true);
      const rest = await store.webhooks.pageEvents({ type: 'pet.created', after: created.last, limit: 2, sinceMs: 0 });
      assert.deepEqual(
        rest.items.map((event) => JSON.parse(event.json).data.name),
        ['c'],
      );
      assert.equal(rest.more, false);
      const orders = await store.webhooks.pageEvents({
        type: 'order.created',
        after: undefined,
        limit: 10,
        sinceMs: 0,
      });
      assert.deepEqual(
        orders.items.map((event) => event.type),
        ['order.created'],
      );
      assert.equal(orders.total, 1);
      const none = await store.webhooks.pageEvents({ type: 'order.updated', after: undefined, limit: 10, sinceMs: 0 });
      assert.deepEqual(none.items, []);
      assert.equal(none.total, 0);
      assert.equal(none.more, false);
    }));

  test('events recorded before the retention cut are neither listed nor read, nor counted', () =>
    withStore(open, async ({ store }) => {
      const nowMs = recentMs();
      await createPet(store, nowMs - 40 * DAY_MS, 'old');
      await createPet(store, nowMs, 'new');
      const sinceMs = nowMs - 30 * DAY_MS;
      const page = await store.webhooks.pageEvents({ type: undefined, after: undefined, limit: 10, sinceMs });
      assert.deepEqual(
        page.items.map((event) => JSON.parse(event.json).data.name),
        ['new'],
      );
      assert.equal(page.total, 1);
      const typed = await store.webhooks.pageEvents({ type: 'pet.created', after: undefined, limit: 10, sinceMs });
      assert.equal(typed.total, 1);
      const [old, recent] = await allEvents(store);
      assert.equal(await store.webhooks.getEvent(old?.id as string, sinceMs), undefined);
      assert.deepEqual(await store.webhooks.getEvent(recent?.id as string, sinceMs), recent);
      assert.deepEqual(await store.webhooks.getEvent(old?.id as string, 0), old, 'kept until purged');
    }));

  test('purge forgets the events recorded before the cut and the attempts made before it; ids are not reused', () =>
    withStore(open, async ({ store }) => {
      const nowMs = recentMs();
      const subscription = await subscribe(store, 'key_a', ['pet.created']);
      await createPet(store, nowMs - 40 * DAY_MS, 'old');
      const [delivery] = await claimAll(store);
      assert.ok(delivery !== undefined);
      await store.webhooks.finishAttempt(attemptResult(delivery, nowMs - 40 * DAY_MS + 1000, { status: 200 }));
      await createPet(store, nowMs, 'new');
      const [old, recent] = await allEvents(store);
      await store.webhooks.purge(nowMs - 30 * DAY_MS);
      assert.equal(await store.webhooks.getEvent(old?.id as string, 0), undefined);
      assert.deepEqual(await store.webhooks.getEvent(recent?.id as string, 0), recent);
      assert.deepEqual(
        (await allEvents(store)).map((event) => event.id),
        [recent?.id],
      );
      const attempts = await store.webhooks.pageAttempts(subscription.id, undefined, 10);
      assert.deepEqual(attempts.items, []);
      assert.equal(attempts.total, 0);
      await createPet(store, nowMs, 'newer');
      const ids = (await allEvents(store)).map((event) => event.id);
      assert.equal(ids.length, 2);
      assert.ok(!ids.includes(old?.id as string), 'a new event never takes the id of a purged one');
    }));

  test('getEvent answers nothing for an unknown id, an id of another form, or a test event', () =>
    withStore(open, async ({ store }) => {
      const subscription = await subscribe(store, 'key_a', ['pet.created']);
      await createPet(store, recentMs());
      const [event] = await allEvents(store);
      const id = event?.id as string;
      for (const unknown of ['evt_', 'evt_unknown', `${id}0`, id.slice(0, -1) + 'x', 'wh_1', '', `${id} `]) {
        assert.equal(await store.webhooks.getEvent(unknown, 0), undefined, unknown);
      }
      const test = await store.webhooks.sendTest(subscription.id, recentMs(), () => {});
      assert.equal(await store.webhooks.getEvent(test.id, 0), undefined);
    }));

  test('after a reopen, events keep their ids, JSON and positions, and new ones continue after them', async (t) => {
    const opened = await open();
    try {
      if (opened.reopen === undefined) {
        t.skip('this store keeps nothing across opens');
        return;
      }
      await createPet(opened.store, recentMs(), 'a');
      await createPet(opened.store, recentMs(), 'b');
      const before = await allEvents(opened.store);
      const first = await opened.store.webhooks.pageEvents({ type: undefined, after: undefined, limit: 1, sinceMs: 0 });
      const store = await opened.reopen();
      assert.deepEqual(await allEvents(store), before);
      await createPet(store, recentMs(), 'c');
      const rest = await store.webhooks.pageEvents({ type: undefined, after: first.last, limit: 10, sinceMs: 0 });
      assert.deepEqual(
        rest.items.map((event) => JSON.parse(event.json).data.name),
        ['b', 'c'],
      );
      assert.ok(!before.some((event) => event.id === rest.items[1]?.id));
    } finally {
      await opened.close();
    }
  });
}
