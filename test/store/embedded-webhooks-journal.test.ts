// Events and webhooks on the embedded store's journal: a replay rebuilds exactly the state that was
// served (events, subscriptions, pending deliveries with their schedule, delivered events, attempts,
// counters), a compaction keeps exactly the live state and nothing else, a torn last record gives up
// the event positions it may have handed out, and a log of the first release replays with no events.
import assert from 'node:assert/strict';
import { appendFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { ManualClock } from '../../src/core/clock.js';
import { encodeRecord } from '../../src/journal/log-format.js';
import { storedPet } from '../../src/pets/stored-pet.js';
import type { EmbeddedStore } from '../../src/store/embedded/embedded-store.js';
import { openEmbeddedStore } from '../../src/store/embedded/open-embedded-store.js';
import { decodeChange, encodeChange } from '../../src/store/embedded/records.js';
import { EmbeddedState } from '../../src/store/embedded/state.js';
import type { Subscription } from '../../src/store/webhook-store.js';
import { attemptResult, DAY_MS, expectedAttemptJson, newSubscription } from '../helpers/webhook-suite/fixtures.js';

const START_MS = Date.UTC(2027, 0, 1);
const LEASE_MS = 60_000;

async function withDataDir(body: (dataDir: string) => Promise<void>): Promise<void> {
  const dataDir = await mkdtemp(join(tmpdir(), 'animal-store-webhook-journal-'));
  try {
    await body(dataDir);
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}

const open = (dataDir: string, clock: ManualClock, compactMinRecords = 1_000_000): Promise<EmbeddedStore> =>
  openEmbeddedStore({ dataDir, clock, durability: 'never', fsyncIntervalMs: 1000, compactMinRecords, warn: () => {} });

const rename = (description: string) => (current: Subscription | undefined) => ({
  ...(current as Subscription),
  description,
});

/**
 * A history with every kind of record: events of each type (some purged), subscriptions added,
 * rotated, disabled and deleted, deliveries delivered, retried, given up, dropped and claimed, a test,
 * a redelivery, a recovery and remembered answers.
 */
async function makeHistory(store: EmbeddedStore, clock: ManualClock): Promise<void> {
  const hooks = store.webhooks;
  const remembered = (key: string, status: number, body: string) => ({
    scope: 'key_a POST /v1/webhooks',
    key,
    fingerprint: key,
    status,
    body,
    expiresAtMs: clock.now() + DAY_MS,
  });
  const pets = await hooks.addSubscription(
    newSubscription('key_a', ['pet.created', 'pet.updated']),
    20,
    remembered('a', 201, '{}'),
  );
  const orders = await hooks.addSubscription(newSubscription('key_b', ['order.created', 'order.updated']), 20);
  const paused = await hooks.addSubscription(newSubscription('key_a', ['pet.created']), 20);
  const gone = await hooks.addSubscription(newSubscription('key_a', ['pet.created']), 20);
  assert.ok(pets && orders && paused && gone);
  await store.createPet({ name: 'old', categoryId: 1, status: 'available' }, clock.now() - 40 * DAY_MS);
  for (let index = 0; index < 6; index++)
    await store.createPet({ name: `pet ${index}`, categoryId: 2, status: 'available' }, clock.now() + index);
  await store.placeOrder(2, new Date(clock.now()).toISOString(), () => ({
    orderStatus: 'placed',
    petStatus: 'pending',
  }));
  await store.moveOrder(1, () => ({ orderStatus: 'delivered', petStatus: 'sold' }), clock.now() + 10);
  await store.placeOrder(3, new Date(clock.now()).toISOString(), () => ({
    orderStatus: 'placed',
    petStatus: 'pending',
  }));
  const claimed = await hooks.claimDue(clock.now() + 1000, 100, LEASE_MS, 100, new Map());
  for (const [index, delivery] of claimed.entries()) {
    if (delivery.subscriptionId === gone.id) {
      await hooks.finishAttempt(
        attemptResult(delivery, clock.now(), { status: 500, nextAttemptAtMs: clock.now() + 5 }),
      );
    } else if (index % 4 === 0) {
      await hooks.finishAttempt(attemptResult(delivery, clock.now(), { status: 200 }));
    } else if (index % 4 === 1) {
      await hooks.finishAttempt(
        attemptResult(delivery, clock.now(), { status: 503, nextAttemptAtMs: clock.now() + index }),
      );
    } else if (index % 4 === 2) {
      await hooks.finishAttempt(attemptResult(delivery, clock.now(), { status: 500, nextAttemptAtMs: null }));
    } else if (index % 8 === 3) {
      await hooks.dropDelivery(delivery.deliveryId);
    }
  }
  await hooks.updateSubscription(paused.id, (current) => ({
    ...(current as Subscription),
    status: 'disabled',
    disabledReason: 'paused',
  }));
  await hooks.updateSubscription(
    pets.id,
    (current) => ({
      ...(current as Subscription),
      secrets: [
        { secret: 'whsec_bmV3', expiresAtMs: null },
        { ...(current?.secrets[0] as Subscription['secrets'][0]), expiresAtMs: clock.now() + DAY_MS },
      ],
    }),
    () => remembered('rotate', 200, '{"secret":"whsec_bmV3"}'),
  );
  await hooks.sendTest(
    orders.id,
    clock.now(),
    () => {},
    (event) => remembered('test', 202, event.json),
  );
  const [first] = hooks.pageEvents({ type: 'pet.created', after: undefined, limit: 2, sinceMs: 0 }).items.slice(1);
  await hooks.redeliver(first?.id as string, [orders.id, pets.id], remembered('redeliver', 202, '{}'));
  await hooks.recover(
    pets.id,
    clock.now() - DAY_MS,
    () => {},
    (count) => remembered('recover', 202, `${count}`),
  );
  await hooks.deleteSubscription(gone.id, () => {});
  await hooks.purge(clock.now() - 30 * DAY_MS);
  await store.createPet({ name: 'last', categoryId: 3, status: 'sold' }, clock.now() + 100);
}

/** Everything the store holds, as plain data. */
function dump(store: EmbeddedStore, nowMs: number) {
  const { state } = store;
  const { events, subscriptions } = state.webhooks;
  return {
    pets: [...state.pets.values()],
    orders: [...state.orders.values()],
    answers: [...state.idempotency.live(nowMs)],
    events: [...events.values()],
    firstEvent: events.firstSeq,
    counters: state.webhooks.seqs(),
    subscriptions: subscriptions.values().map((entry) => ({
      subscription: entry.subscription,
      pending: [...entry.queue.values()],
      attempts: entry.attempts.values(),
      delivered: entry.delivered.ranges(),
    })),
    stats: store.webhooks.stats(),
    nextDueMs: store.webhooks.nextDueMs(),
  };
}

test('a replay rebuilds every event, subscription, pending delivery, attempt and counter as they were served', () =>
  withDataDir(async (dataDir) => {
    const clock = new ManualClock(START_MS);
    const store = await open(dataDir, clock);
    await makeHistory(store, clock);
    const before = dump(store, clock.now());
    assert.ok(before.events.length > 10 && before.subscriptions.length === 3);
    assert.ok(before.stats.pending > 0 && before.subscriptions.some((entry) => entry.attempts.length > 0));
    assert.equal(before.answers.length, 5);
    assert.ok(before.subscriptions.every((entry) => (entry.delivered[0]?.[0] ?? Infinity) >= before.firstEvent));
    await store.close();
    const again = await open(dataDir, clock);
    try {
      assert.deepEqual(dump(again, clock.now()), before);
      const [event] = again.webhooks.pageEvents({ type: undefined, after: undefined, limit: 1, sinceMs: 0 }).items;
      await again.createPet({ name: 'after', categoryId: 1, status: 'available' }, clock.now());
      const all = again.webhooks.pageEvents({ type: undefined, after: undefined, limit: 100, sinceMs: 0 }).items;
      assert.equal(all[0]?.id, event?.id);
      assert.equal(all.at(-1)?.seq, before.counters?.op === 'seqs' ? before.counters.nextEvent : 0);
    } finally {
      await again.close();
    }
  }));

test('a compacted log holds exactly the live state, and replays to it', () =>
  withDataDir(async (dataDir) => {
    const clock = new ManualClock(START_MS);
    const first = await open(dataDir, clock);
    await makeHistory(first, clock);
    // Changes of one subscription supersede each other: enough of them make the log worth compacting.
    const [subscription] = first.webhooks.pageSubscriptions('key_a', 0, 1).items;
    const id = subscription?.id as string;
    for (let index = 0; index < 60; index++) await first.webhooks.updateSubscription(id, rename(`${index}`));
    const written = first.journalWatch?.stats().records as number;
    await first.close();
    // Opened again with a low threshold, the next change starts a compaction with nothing after it.
    const store = await open(dataDir, clock, 20);
    const compacted = new Promise<void>((resolve) =>
      store.journalWatch?.listen({ synced: () => {}, compacted: () => resolve() }),
    );
    await store.webhooks.updateSubscription(id, rename('last'));
    await compacted;
    const before = dump(store, clock.now());
    const snapshot = store.state.snapshot();
    await store.close();
    const payloads = (await readFile(join(dataDir, 'animals.log'), 'utf8'))
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => line.slice(line.indexOf(':', line.indexOf(':') + 1) + 1));
    assert.deepEqual(payloads, snapshot);
    assert.ok(payloads.length < written, `${payloads.length} records of ${written}`);
    const old = payloads.filter((line) => line.includes('"name":"old"'));
    assert.equal(old.length, 1, 'the pet created before the retention cut is there');
    assert.ok(!(old[0] as string).includes('"at":'), 'and its purged event is not');
    assert.equal(payloads.filter((line) => line.includes(id) && line.startsWith('{"op":"sub"')).length, 1);

    const again = await open(dataDir, clock);
    try {
      assert.deepEqual(dump(again, clock.now()), before);
      const copy = new EmbeddedState({ append: () => Promise.resolve() }, clock);
      for (const record of snapshot) copy.apply(decodeChange(record, 'snapshot'));
      assert.deepEqual(copy.snapshot(), snapshot, 'a snapshot replays to the same snapshot');
    } finally {
      await again.close();
    }
  }));

test('a compacted log of unchanged new pets keeps one record a pet, each with its event', () => {
  const clock = new ManualClock(START_MS);
  const state = new EmbeddedState({ append: () => Promise.resolve() }, clock);
  for (let id = 1; id <= 5; id++)
    state.apply({ op: 'pet', atMs: START_MS + id, eventSeq: id, pet: storedPet(id, `p${id}`, 1, 'available') });
  state.apply({ op: 'pet', pet: storedPet(2, 'p2', 1, 'sold') });
  const snapshot = state.snapshot();
  // The counters, four pets with their events, pet 2 as it is now, and pet 2's event on its own.
  assert.equal(snapshot.length, 1 + 5 + 1);
  assert.equal(snapshot.filter((record) => record.includes('"ev":')).length, 4);
  assert.equal(state.liveRecords, snapshot.length - 1, 'the trigger counts pets and their creations as one');
  const copy = new EmbeddedState({ append: () => Promise.resolve() }, clock);
  for (const record of snapshot) copy.apply(decodeChange(record, 'snapshot'));
  assert.deepEqual([...copy.webhooks.events.values()], [...state.webhooks.events.values()]);
  assert.deepEqual([...copy.pets.values()], [...state.pets.values()]);
});

test('after a torn last record, new events never take the positions it may have handed out', () =>
  withDataDir(async (dataDir) => {
    const clock = new ManualClock(START_MS);
    const store = await open(dataDir, clock);
    await store.createPet({ name: 'kept', categoryId: 1, status: 'available' }, clock.now());
    await store.close();
    const torn = encodeRecord(
      encodeChange({
        op: 'order',
        atMs: clock.now(),
        eventSeq: 7,
        order: { id: 1, petId: 1, status: 'placed', createdAt: 'x', json: '{}' },
        pet: storedPet(1, 'kept', 1, 'pending'),
      }),
    );
    await appendFile(join(dataDir, 'animals.log'), torn.slice(0, -5));
    const again = await open(dataDir, clock);
    try {
      await again.createPet({ name: 'next', categoryId: 1, status: 'available' }, clock.now());
      const seqs = again.webhooks
        .pageEvents({ type: undefined, after: undefined, limit: 10, sinceMs: 0 })
        .items.map((event) => event.seq);
      assert.deepEqual(seqs, [1, 9]);
    } finally {
      await again.close();
    }
  }));

test('a log of the first release (no times in its records) replays with no events, and events start after it', () =>
  withDataDir(async (dataDir) => {
    const old = [
      '{"op":"pet","pet":{"id":1,"name":"Rex","categoryId":3,"status":"available"}}',
      '{"op":"order","order":{"id":1,"petId":1,"status":"placed","createdAt":"2026-01-01T00:00:00.000Z"},"pet":{"id":1,"name":"Rex","categoryId":3,"status":"pending"}}',
    ];
    await appendFile(join(dataDir, 'animals.log'), old.map(encodeRecord).join(''));
    const clock = new ManualClock(START_MS);
    const store = await open(dataDir, clock);
    try {
      assert.equal(store.state.webhooks.events.size, 0);
      assert.equal(store.state.pets.get(1)?.status, 'pending');
      await store.createPet({ name: 'Tom', categoryId: 1, status: 'available' }, clock.now());
      const [event] = store.webhooks.pageEvents({ type: undefined, after: undefined, limit: 10, sinceMs: 0 }).items;
      assert.equal(JSON.parse(event?.json as string).data.name, 'Tom');
      assert.equal(event?.seq, 1);
    } finally {
      await store.close();
    }
  }));

test('attempt records of an earlier release (their JSON) replay, list the same bytes beside new ones, and compact in their form', () =>
  withDataDir(async (dataDir) => {
    const clock = new ManualClock(START_MS);
    const first = await open(dataDir, clock);
    const subscription = await first.webhooks.addSubscription(newSubscription('key_a', ['pet.created']), 20);
    assert.ok(subscription !== undefined);
    for (const name of ['one', 'two', 'three'])
      await first.createPet({ name, categoryId: 1, status: 'available' }, clock.now());
    const events = first.webhooks.pageEvents({ type: undefined, after: undefined, limit: 3, sinceMs: 0 }).items;
    await first.close();
    const oldJson = (seq: number, status: number, nextMs: number | null): string =>
      JSON.stringify({
        id: `att_old${seq}`,
        eventId: events[seq - 1]?.id,
        type: 'pet.created',
        attemptedAt: new Date(START_MS).toISOString(),
        status,
        error: status === 200 ? null : `the receiver answered ${status}`,
        durationMs: 7,
        nextAttemptAt: nextMs === null ? null : new Date(nextMs).toISOString(),
        response: null,
      });
    const retryMs = START_MS + 1000;
    // As the release before wrote them: the JSON whole, and what follows it spelled out.
    const old = [
      { seq: 1, status: 200, next: null, delivered: true, failingSince: null },
      { seq: 2, status: 503, next: retryMs, delivered: false, failingSince: START_MS },
    ].map(({ seq, status, next, delivered, failingSince }) =>
      JSON.stringify({
        op: 'attempt',
        seq,
        sub: subscription.id,
        event: seq,
        id: `att_old${seq}`,
        json: oldJson(seq, status, next),
        current: true,
        next,
        delivered,
        failingSince,
      }),
    );
    await appendFile(join(dataDir, 'animals.log'), old.map(encodeRecord).join(''));

    const store = await open(dataDir, clock);
    let listed: string[];
    let snapshot: string[];
    try {
      const due = await store.webhooks.claimDue(retryMs, 10, LEASE_MS, 10, new Map());
      assert.deepEqual(
        due.map((delivery) => delivery.event.seq),
        [3, 2],
        'the first delivered, the second due again when the old record said (after the third)',
      );
      assert.equal(store.webhooks.getSubscription(subscription.id)?.failingSinceMs, START_MS);
      const made = due.map((delivery) => attemptResult(delivery, retryMs, { status: 200 }));
      await store.webhooks.finishAttempts(made);
      listed = store.webhooks.pageAttempts(subscription.id, undefined, 10).items.map((attempt) => attempt.json);
      assert.deepEqual(listed, [
        ...made.map(expectedAttemptJson).reverse(),
        oldJson(2, 503, retryMs),
        oldJson(1, 200, null),
      ]);
      snapshot = store.state.snapshot();
    } finally {
      await store.close();
    }
    const kept = snapshot.filter((record) => record.includes('"op":"kept-'));
    assert.deepEqual(
      kept.map((record) => (JSON.parse(record) as { op: string }).op),
      ['kept-attempt', 'kept-attempt', 'kept-att', 'kept-att'],
      'old attempts keep their JSON, new ones their facts',
    );
    await writeFile(join(dataDir, 'animals.log'), snapshot.map(encodeRecord).join(''));
    const compacted = await open(dataDir, clock);
    try {
      assert.deepEqual(
        compacted.webhooks.pageAttempts(subscription.id, undefined, 10).items.map((attempt) => attempt.json),
        listed,
      );
    } finally {
      await compacted.close();
    }
  }));
