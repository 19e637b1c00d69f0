// Every method of AnimalStoreClient against a real service on an ephemeral port.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { AnimalStoreClient, AnimalStoreError, type Pet } from '../../src/client/index.js';
import { startServer, TEST_KEY, type TestServer } from '../helpers/server.js';

let server: TestServer;
let client: AnimalStoreClient;

before(async () => {
  server = await startServer();
  client = new AnimalStoreClient({ baseUrl: `${server.url}/v1`, apiKey: TEST_KEY });
});

after(async () => {
  await client.close();
  await server.close();
});

async function rejectsWith(
  promise: Promise<unknown>,
  expected: { status: number; code: string },
): Promise<AnimalStoreError> {
  const error = await promise.then(
    () => assert.fail('expected a rejection'),
    (caught: unknown) => caught,
  );
  assert.ok(error instanceof AnimalStoreError, String(error));
  assert.equal(error.status, expected.status);
  assert.equal(error.code, expected.code);
  return error;
}

describe('pets', () => {
  test('createPet answers the created Pet, available by default', async () => {
    const pet = await client.createPet({ name: 'Rex', categoryId: 1 });
    assert.deepEqual(Object.keys(pet), ['id', 'name', 'categoryId', 'status']);
    assert.equal(pet.name, 'Rex');
    assert.equal(pet.status, 'available');
  });

  test('createPet with the same Idempotency-Key twice creates once', async () => {
    const first = await client.createPet({ name: 'Once', categoryId: 2 }, { idempotencyKey: 'client-test-once' });
    const again = await client.createPet({ name: 'Once', categoryId: 2 }, { idempotencyKey: 'client-test-once' });
    assert.deepEqual(again, first);
  });

  test('an invalid pet is an AnimalStoreError with the code, details and request id', async () => {
    const error = await rejectsWith(client.createPet({ name: '', categoryId: 1 }), {
      status: 400,
      code: 'invalid_body',
    });
    assert.ok(error.details !== undefined && error.details.length > 0);
    assert.match(error.requestId ?? '', /^[0-9a-f-]{36}$/);
    assert.equal(error.attempts, 1);
    assert.match(error.message, /name/);
  });

  test('getPet reads one animal; an unknown id is not_found', async () => {
    const created = await client.createPet({ name: 'Read me', categoryId: 3, status: 'pending' });
    assert.deepEqual(await client.getPet(created.id), created);
    await rejectsWith(client.getPet(9_007_199_254_740_991), { status: 404, code: 'not_found' });
  });

  test('an id that is not a positive safe integer is a TypeError, and nothing is sent', async () => {
    for (const id of [0, -1, 1.5, Number.NaN, 2 ** 53]) {
      await assert.rejects(client.getPet(id), TypeError);
      await assert.rejects(client.getOrder(id), TypeError);
    }
    await assert.rejects(client.placeOrder(0), TypeError);
  });

  test('listPets gives one page, the cursor of the next and the total; the cursor fetches the next page', async () => {
    const first = await client.listPets({ limit: 2 });
    assert.equal(first.pets.length, 2);
    assert.equal(typeof first.next, 'string');
    assert.ok(first.total >= 3);
    const second = await client.listPets({ limit: 2, cursor: first.next as string });
    assert.ok((second.pets[0] as Pet).id > (first.pets[1] as Pet).id);
  });

  test('listPets filters by status, and the last page has no next', async () => {
    const page = await client.listPets({ status: 'pending', limit: 100 });
    assert.ok(page.pets.length >= 1);
    assert.ok(page.pets.every((pet) => pet.status === 'pending'));
    assert.equal(page.next, undefined);
    assert.equal(page.total, page.pets.length);
  });

  test('a bad query is invalid_query', async () => {
    await rejectsWith(client.listPets({ limit: 101 }), { status: 400, code: 'invalid_query' });
  });
});

describe('paging through every animal', () => {
  let server2: TestServer;
  let client2: AnimalStoreClient;
  const created: Pet[] = [];

  before(async () => {
    server2 = await startServer();
    client2 = new AnimalStoreClient({ baseUrl: `${server2.url}/v1/`, apiKey: TEST_KEY, connections: 4 });
    for (let batch = 0; batch < 5; batch += 1) {
      const pets = await Promise.all(
        Array.from({ length: 50 }, (_, index) =>
          client2.createPet({
            name: `pet ${batch * 50 + index}`,
            categoryId: 1,
            status: index % 5 === 0 ? 'sold' : 'available',
          }),
        ),
      );
      created.push(...pets);
    }
    created.sort((a, b) => a.id - b.id);
  });

  after(async () => {
    await client2.close();
    await server2.close();
  });

  test('pets() yields all 250 animals in id order, following Link rel="next" over three pages', async () => {
    const seen: Pet[] = [];
    for await (const pet of client2.pets()) seen.push(pet);
    assert.deepEqual(seen, created);
  });

  test('pets() with a small page size and a status filter yields exactly the matching animals', async () => {
    const seen: Pet[] = [];
    for await (const pet of client2.pets({ status: 'sold', limit: 7 })) seen.push(pet);
    assert.deepEqual(
      seen,
      created.filter((pet) => pet.status === 'sold'),
    );
    assert.equal(seen.length, 50);
  });

  test('breaking out of pets() early fetches no further page', async () => {
    let count = 0;
    for await (const _pet of client2.pets({ limit: 10 })) {
      count += 1;
      if (count === 3) break;
    }
    assert.equal(count, 3);
  });
});

describe('orders', () => {
  test('placeOrder places an order and the animal becomes pending', async () => {
    const pet = await client.createPet({ name: 'Buy me', categoryId: 1 });
    const order = await client.placeOrder(pet.id);
    assert.deepEqual(Object.keys(order), ['id', 'petId', 'status', 'createdAt']);
    assert.equal(order.petId, pet.id);
    assert.equal(order.status, 'placed');
    assert.equal((await client.getPet(pet.id)).status, 'pending');
    assert.deepEqual(await client.getOrder(order.id), order);
  });

  test('ordering an animal that is not available is a conflict', async () => {
    const pet = await client.createPet({ name: 'Taken', categoryId: 1, status: 'sold' });
    await rejectsWith(client.placeOrder(pet.id), { status: 409, code: 'conflict' });
  });

  test('updateOrder to delivered sells the animal; a second move is a conflict', async () => {
    const pet = await client.createPet({ name: 'Deliver me', categoryId: 1 });
    const order = await client.placeOrder(pet.id, { idempotencyKey: 'deliver-me' });
    const delivered = await client.updateOrder(order.id, 'delivered');
    assert.equal(delivered.status, 'delivered');
    assert.equal((await client.getPet(pet.id)).status, 'sold');
    await rejectsWith(client.updateOrder(order.id, 'cancelled'), { status: 409, code: 'conflict' });
  });

  test('cancelOrder cancels and the animal is available again', async () => {
    const pet = await client.createPet({ name: 'Cancel me', categoryId: 1 });
    const order = await client.placeOrder(pet.id);
    const cancelled = await client.cancelOrder(order.id);
    assert.equal(cancelled.status, 'cancelled');
    assert.equal((await client.getPet(pet.id)).status, 'available');
    await rejectsWith(client.cancelOrder(order.id), { status: 409, code: 'conflict' });
  });

  test('an unknown order is not_found', async () => {
    await rejectsWith(client.getOrder(999_999), { status: 404, code: 'not_found' });
  });

  test('listOrders and orders() page through the orders, filtered by status', async () => {
    const page = await client.listOrders({ limit: 1 });
    assert.equal(page.orders.length, 1);
    assert.ok(page.total >= 3);
    assert.equal(typeof page.next, 'string');
    const all = [];
    for await (const order of client.orders({ limit: 1 })) all.push(order);
    assert.equal(all.length, page.total);
    assert.deepEqual(
      all.map((order) => order.id),
      [...all.map((order) => order.id)].sort((a, b) => a - b),
    );
    const cancelled = [];
    for await (const order of client.orders({ status: 'cancelled' })) cancelled.push(order);
    assert.ok(cancelled.length >= 1 && cancelled.every((order) => order.status === 'cancelled'));
    assert.equal((await client.listOrders({ status: 'cancelled' })).total, cancelled.length);
  });
});

describe('configuration', () => {
  test('a wrong key is unauthorized, not retried', async () => {
    const stranger = new AnimalStoreClient({ baseUrl: `${server.url}/v1`, apiKey: 'not-a-key-of-this-service' });
    try {
      const error = await rejectsWith(stranger.listPets(), { status: 401, code: 'unauthorized' });
      assert.equal(error.attempts, 1);
    } finally {
      await stranger.close();
    }
  });

  test('a bad baseUrl or an empty apiKey is a TypeError', () => {
    assert.throws(() => new AnimalStoreClient({ baseUrl: 'ftp://example.test/v1', apiKey: TEST_KEY }), /baseUrl/);
    assert.throws(() => new AnimalStoreClient({ baseUrl: 'not a url', apiKey: TEST_KEY }), TypeError);
    assert.throws(() => new AnimalStoreClient({ baseUrl: `${server.url}/v1`, apiKey: '' }), /apiKey/);
  });

  test('a dispatcher passed in is used, and close() leaves it open', async () => {
    const borrowed = new AnimalStoreClient({
      baseUrl: new URL(`${server.url}/v1`),
      apiKey: TEST_KEY,
      dispatcher: server.agent,
    });
    await borrowed.listPets({ limit: 1 });
    await borrowed.close();
    assert.equal((await borrowed.listPets({ limit: 1 })).pets.length, 1);
  });
});
