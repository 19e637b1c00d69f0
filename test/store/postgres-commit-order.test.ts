// Listings page in ascending id, and a client paging through them while others create must never have
// an item skipped (README "How the API behaves"). On PostgreSQL the ids come from sequences, and two
// transactions can commit in the other order than they took their ids: a page read between the two
// commits would hold the higher id but not the lower one, its cursor would step over the lower one, and
// the client would never see it. The store takes each id under a lock held to the commit, so an id is
// visible only after every lower one: these tests hold a create open in its transaction, and race many
// creators on two instances against a reader that pages at the tail.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { ManualClock } from '../../src/core/clock.js';
import { decidePlacement } from '../../src/service/order-service.js';
import type { PostgresStore } from '../../src/store/postgres/postgres-store.js';
import { createPetsParams, createPetsStatement } from '../../src/store/postgres/store-statements.js';
import type { Page } from '../../src/store/store.js';
import { openStore, T0_MS } from '../helpers/postgres-webhook-store.js';
import { createTestDatabase, postgresSkipReason } from '../helpers/postgres.js';

const skip = await postgresSkipReason();
let url = '';
let stores: PostgresStore[] = [];
let drop: () => Promise<void> = async () => {};

before(async () => {
  if (skip !== undefined) return;
  const database = await createTestDatabase();
  ({ url, drop } = database);
  const clock = new ManualClock(T0_MS);
  stores = [await openStore(url, clock), await openStore(url, clock)];
});
after(async () => {
  if (skip !== undefined) return;
  for (const store of stores) await store.close();
  await drop();
});

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** The ids a client paging with `read` from `afterId` sees: page after page, until the last. */
async function pageToEnd(read: (afterId: number) => Promise<Page<{ id: number }>>, afterId: number): Promise<number[]> {
  const seen: number[] = [];
  let cursor = afterId;
  for (;;) {
    const page = await read(cursor);
    for (const item of page.items) seen.push(item.id);
    cursor = page.items.at(-1)?.id ?? cursor;
    if (!page.more) return seen;
  }
}

test('a create that commits late is never stepped over: a later id waits for it', { skip }, async () => {
  const [store] = stores as [PostgresStore];
  const first = await store.createPet({ name: 'First', categoryId: 1, status: 'available' }, T0_MS);
  const open = new pg.Client({ connectionString: url });
  await open.connect();
  try {
    // A create of another instance that took its id and has not committed yet.
    await open.query('BEGIN');
    const held = {
      categoryId: 1,
      status: 'available' as const,
      afterId: ',"name":"Held","categoryId":1,"status":"available"}',
    };
    const { rows } = await open.query<{ id: string }>(
      createPetsStatement(),
      createPetsParams([{ ...held, atMs: T0_MS, remember: undefined }], 0, 'evt_held'),
    );
    const heldId = Number(rows[0]?.id);
    assert.equal(heldId, first.id + 1);
    const later = store.createPet({ name: 'Later', categoryId: 1, status: 'available' }, T0_MS);
    const laterFirst = await Promise.race([later.then(() => 'created'), sleep(500).then(() => 'waiting')]);
    assert.equal(laterFirst, 'waiting', 'the later create waits for the one holding a lower id');
    // A client at the tail now: its page must not hold an id above one still to commit.
    const tail = await store.pagePets({ status: undefined, afterId: first.id, limit: 20 });
    assert.deepEqual(
      tail.items.map((pet) => pet.id),
      [],
    );
    await open.query('COMMIT');
    const created = await later;
    assert.equal(created.id, heldId + 1);
    assert.deepEqual(
      await pageToEnd((afterId) => store.pagePets({ status: undefined, afterId, limit: 20 }), first.id),
      [heldId, created.id],
    );
  } finally {
    await open.query('ROLLBACK').catch(() => {});
    await open.end();
  }
});

test('pets and orders created on two instances at once: a reader paging at the tail skips none', { skip }, async () => {
  const creating = { done: false };
  const createdPets: number[] = [];
  const placedOrders: number[] = [];
  const pets = await Promise.all(
    Array.from({ length: 240 }, (_, index) =>
      (stores[index % 2] as PostgresStore).createPet(
        { name: `Stock ${index}`, categoryId: 2, status: 'available' },
        T0_MS,
      ),
    ),
  );
  const stock = pets.map((pet) => pet.id);
  const petsAfter = Math.max(...stock);
  /** Creators: each makes pets, or places orders on the stock, one after the other, until told to stop. */
  const creator = async (store: PostgresStore, index: number): Promise<void> => {
    for (let round = 0; !creating.done; round++) {
      if (index % 2 === 0) {
        createdPets.push(
          (await store.createPet({ name: `Racer ${index}.${round}`, categoryId: 3, status: 'available' }, T0_MS)).id,
        );
      } else {
        const petId = stock.pop();
        if (petId === undefined) return;
        const createdAt = new Date(T0_MS).toISOString();
        placedOrders.push((await store.placeOrder(petId, createdAt, (pet) => decidePlacement(petId, pet))).id);
      }
    }
  };
  const creators = Array.from({ length: 24 }, (_, index) => creator(stores[index % 2] as PostgresStore, index));
  /** Readers: page at the tail again and again, keeping every id seen past where they started. */
  const seenPets = new Set<number>();
  const seenOrders = new Set<number>();
  const reader = async (): Promise<void> => {
    let petCursor = petsAfter;
    let orderCursor = 0;
    while (!creating.done) {
      const [store] = stores as [PostgresStore];
      const petPage = await store.pagePets({ status: undefined, afterId: petCursor, limit: 5 });
      for (const pet of petPage.items) seenPets.add(pet.id);
      petCursor = petPage.items.at(-1)?.id ?? petCursor;
      const orderPage = await store.pageOrders({ status: undefined, afterId: orderCursor, limit: 5 });
      for (const order of orderPage.items) seenOrders.add(order.id);
      orderCursor = orderPage.items.at(-1)?.id ?? orderCursor;
    }
    // Once the creators have stopped, the rest of each listing from the last cursor.
    await Promise.all(creators);
    for (const id of await pageToEnd(
      (afterId) => (stores[1] as PostgresStore).pagePets({ status: undefined, afterId, limit: 100 }),
      petCursor,
    ))
      seenPets.add(id);
    for (const id of await pageToEnd(
      (afterId) => (stores[1] as PostgresStore).pageOrders({ status: undefined, afterId, limit: 100 }),
      orderCursor,
    ))
      seenOrders.add(id);
  };
  const reading = reader();
  // Three seconds at least, and on until enough was made (a busy machine makes fewer a second).
  await sleep(3000);
  const deadline = Date.now() + 60_000;
  while ((createdPets.length <= 100 || placedOrders.length <= 50) && Date.now() < deadline) await sleep(100);
  creating.done = true;
  await reading;
  assert.ok(
    createdPets.length > 100 && placedOrders.length > 50,
    `${createdPets.length} pets, ${placedOrders.length} orders`,
  );
  assert.deepEqual(
    createdPets.filter((id) => !seenPets.has(id)),
    [],
    'pets created while the reader paged, which it stepped over',
  );
  assert.deepEqual(
    placedOrders.filter((id) => !seenOrders.has(id)),
    [],
    'orders placed while the reader paged, which it stepped over',
  );
});
