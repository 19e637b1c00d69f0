// The PostgreSQL store asks the database once a turn of the event loop for each kind of request: the
// gets, the pages and the creates asked for in one turn go as one statement each, counted on the wire,
// and each answer is the one the request would get asked alone, in the order asked: ids and event
// positions in the order the creates were asked, a missing id missing, pages with their totals and
// filters, a read asked twice in one turn read once, names the JSON escapes (U+0000, a newline, commas, characters outside the BMP) passed through
// intact. A statement that fails fails each of its requests. A page's text is cut without a parse.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ManualClock } from '../../src/core/clock.js';
import { ApiError } from '../../src/core/errors.js';
import { PET_STATUSES, type PetStatus } from '../../src/pets/schemas.js';
import type { StoredPet } from '../../src/pets/stored-pet.js';
import { type ItemFields, pageOfText } from '../../src/store/postgres/page-of.js';
import type { PostgresStore } from '../../src/store/postgres/postgres-store.js';
import { MAX_BATCH } from '../../src/store/postgres/statement-batch.js';
import type { Page, PageRequest } from '../../src/store/store.js';
import { type CountingProxy, startCountingProxy } from '../helpers/pg-proxy.js';
import { openStore, T0_MS } from '../helpers/postgres-webhook-store.js';
import { ADMIN_URL, createTestDatabase, postgresSkipReason } from '../helpers/postgres.js';

const skip = await postgresSkipReason();
let proxy: CountingProxy;
let store: PostgresStore;
let drop: () => Promise<void> = async () => {};

before(async () => {
  if (skip !== undefined) return;
  const database = await createTestDatabase();
  drop = database.drop;
  proxy = await startCountingProxy(Number(new URL(ADMIN_URL).port || 5432));
  const url = new URL(database.url);
  url.port = String(proxy.port);
  store = await openStore(url.toString(), new ManualClock(T0_MS));
});
after(async () => {
  if (skip !== undefined) return;
  await store.close();
  await proxy.close();
  await drop();
});

/** The round trips `work` makes. */
async function roundTripsOf<T>(work: () => Promise<T>): Promise<{ result: T; roundTrips: number }> {
  const before = proxy.roundTrips();
  const result = await work();
  return { result, roundTrips: proxy.roundTrips() - before };
}

const STATUSES: readonly PetStatus[] = ['available', 'pending', 'sold'];
/** Names the JSON escapes or that a naive cut would split on. */
const NAMES = ['Rex', 'a\u0000b', 'line\nbreak', 'comma, "quoted"', 'emoji 😀 and \u00e9', 'back\\slash'];

test('the creates of one turn are one statement: ids and event positions in the order asked', { skip }, async () => {
  const { result: created, roundTrips } = await roundTripsOf(() =>
    Promise.all(
      Array.from({ length: 60 }, (_, index) =>
        store.createPet(
          { name: NAMES[index % NAMES.length] as string, categoryId: index, status: STATUSES[index % 3] as PetStatus },
          T0_MS + index,
        ),
      ),
    ),
  );
  assert.equal(roundTrips, 1, 'one statement for the turn');
  created.forEach((pet, index) => {
    assert.equal(pet.id, index + 1, 'ids in the order asked');
    assert.deepEqual(JSON.parse(pet.json), {
      id: index + 1,
      name: NAMES[index % NAMES.length],
      categoryId: index,
      status: STATUSES[index % 3],
    });
  });
  const events = await store.webhooks.pageEvents({ after: undefined, limit: 100, type: undefined, sinceMs: 0 });
  const data = events.items.map((event) => (JSON.parse(event.json) as { data: { id: number } }).data.id);
  assert.deepEqual(
    data,
    created.map((pet) => pet.id),
    'one pet.created each, positions in the same order',
  );
  // The counts follow: each status's total, and the whole.
  const totals = await Promise.all(
    [undefined, ...STATUSES].map((status) => store.pagePets({ status, afterId: 0, limit: 0 })),
  );
  assert.deepEqual(
    totals.map((page) => page.total),
    [60, 20, 20, 20],
  );
});

test(
  'the gets and the pages of one turn are one statement each, each answered as if asked alone',
  { skip },
  async () => {
    const ids = [5, 999_999, 5, 12, 0, 60];
    const requests: PageRequest<PetStatus>[] = [
      { status: undefined, afterId: 0, limit: 20 },
      { status: 'available', afterId: 0, limit: 5 },
      { status: 'sold', afterId: 10, limit: 3 },
      { status: undefined, afterId: 55, limit: 10 },
      { status: 'pending', afterId: 59, limit: 10 },
      { status: undefined, afterId: 0, limit: 0 },
      { status: undefined, afterId: 0, limit: 100 },
    ];
    const { result, roundTrips } = await roundTripsOf(() =>
      Promise.all([
        Promise.all(ids.map((id) => store.getPet(id))),
        Promise.all(requests.map((r) => store.pagePets(r))),
      ]),
    );
    assert.equal(roundTrips, 2, 'one statement for the gets, one for the pages');
    const [pets, pages] = result;
    // Each alone, in a turn of its own.
    for (const [index, id] of ids.entries()) assert.deepEqual(pets[index], await store.getPet(id), `get ${id}`);
    for (const [index, request] of requests.entries())
      assert.deepEqual(pages[index], await store.pagePets(request), JSON.stringify(request));
    assert.equal(pets[1], undefined, 'no pet 999999');
    assert.equal(pets[0], pets[2], 'the same id twice in one turn: read once, one answer for both');
    const expectPage = (page: Page<StoredPet> | undefined, items: number[], more: boolean, total: number): void => {
      assert.deepEqual(
        page?.items.map((pet) => pet.id),
        items,
      );
      assert.equal(page?.more, more);
      assert.equal(page?.total, total);
    };
    expectPage(
      pages[0],
      Array.from({ length: 20 }, (_, i) => i + 1),
      true,
      60,
    );
    expectPage(pages[1], [1, 4, 7, 10, 13], true, 20);
    expectPage(pages[2], [12, 15, 18], true, 20);
    expectPage(pages[3], [56, 57, 58, 59, 60], false, 60);
    expectPage(pages[4], [], false, 20);
    expectPage(pages[5], [], true, 60);
    expectPage(
      pages[6],
      Array.from({ length: 60 }, (_, i) => i + 1),
      false,
      60,
    );
    // Every name came back as it went in: the text was cut between items, never inside one.
    for (const pet of pages[6]?.items ?? []) {
      const parsed = JSON.parse(pet.json) as { id: number; name: string; status: string };
      assert.equal(parsed.name, NAMES[(pet.id - 1) % NAMES.length]);
      assert.equal(parsed.status, pet.status);
    }
  },
);

test('a turn of more than a batch is sent as several statements, answers still in order', { skip }, async () => {
  // Distinct ids (a repeated one would be read once): the pets there are, and ids beyond them.
  const ids = Array.from({ length: MAX_BATCH + 10 }, (_, index) => index + 1);
  const { result, roundTrips } = await roundTripsOf(() => Promise.all(ids.map((id) => store.getPet(id))));
  assert.equal(roundTrips, 2);
  result.forEach((pet, index) => assert.equal(pet?.id, (ids[index] as number) > 60 ? undefined : ids[index]));
});

test('a statement that fails fails each request of its batch, with the 503 of a database away', { skip }, async () => {
  const database = await createTestDatabase();
  const way = await startCountingProxy(Number(new URL(ADMIN_URL).port || 5432));
  const url = new URL(database.url);
  url.port = String(way.port);
  const doomed = await openStore(url.toString(), new ManualClock(T0_MS));
  try {
    await doomed.createPet({ name: 'Rex', categoryId: 1, status: 'available' }, T0_MS);
    // The database can no longer be reached: its connections are cut, and new ones refused.
    await way.close();
    const asked = [
      doomed.getPet(1),
      doomed.getPet(2),
      doomed.pagePets({ status: undefined, afterId: 0, limit: 20 }),
      doomed.createPet({ name: 'Max', categoryId: 1, status: 'available' }, T0_MS),
      doomed.createPet({ name: 'Bella', categoryId: 1, status: 'sold' }, T0_MS),
    ];
    for (const outcome of await Promise.allSettled(asked)) {
      assert.equal(outcome.status, 'rejected');
      const error = (outcome as PromiseRejectedResult).reason as ApiError;
      assert.ok(error instanceof ApiError, String(error));
      assert.equal(error.code, 'unavailable');
    }
  } finally {
    await doomed.close().catch(() => {});
    await database.drop();
  }
});

test('a page text is cut into its items without a parse: fields, then the JSON, up to the size', () => {
  const text = ['3,available,{"id":3,"name":"a,b"}', '17,sold,{"id":17,"name":"\\u0000😀"}', '9,pending,{"id":9}'].join(
    '\n',
  );
  const pet = (fields: ItemFields, end: number) => ({
    id: fields.number(),
    status: fields.status(),
    json: fields.json(end),
  });
  const page = pageOfText(['42', '3', text], 2, pet);
  assert.deepEqual(page, {
    items: [
      { id: 3, status: 'available', json: '{"id":3,"name":"a,b"}' },
      { id: 17, status: 'sold', json: '{"id":17,"name":"\\u0000😀"}' },
    ],
    more: true,
    total: 42,
  });
  assert.equal(page.items[0]?.status, PET_STATUSES[0], 'the status is the constant');
  assert.deepEqual(pageOfText(['5', '0', null], 20, pet), { items: [], more: false, total: 5 });
  assert.deepEqual(pageOfText(undefined, 20, pet), { items: [], more: false, total: 0 });
  const orders = pageOfText(['1', '1', '4,placed,2,2027-01-01T00:00:00.000Z,{"id":4}'], 20, (fields, end) => [
    fields.number(),
    fields.status(),
    fields.number(),
    fields.text(),
    fields.json(end),
  ]);
  assert.deepEqual(orders.items, [[4, 'placed', 2, '2027-01-01T00:00:00.000Z', '{"id":4}']]);
  assert.equal(orders.more, false);
});
