// Typed access for an embedding program: app.pets and app.orders run the API's own operations,
// so their validation, ids, durability and errors are the API's, and what they change HTTP sees.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { ApiError } from '../../src/errors.js';
import { QUIET_LOGGER } from '../../src/logger.js';
import { createAnimalStore } from '../../src/app/create-animal-store.js';
import { call, startServer } from '../helpers/server.js';

test('pets: create, get and page through, the same store that HTTP serves', async () => {
  const server = await startServer();
  try {
    const { pets } = server.app;
    const rex = await pets.create({ name: 'Rex', categoryId: 3 });
    assert.deepEqual(rex, { id: 1, name: 'Rex', categoryId: 3, status: 'available' });
    for (let index = 0; index < 4; index++) await pets.create({ name: `Sold ${index}`, categoryId: 1, status: 'sold' });
    assert.deepEqual(await pets.get(1), rex);
    assert.equal(await pets.get(99), undefined);
    assert.deepEqual((await call(server, 'GET', '/v1/pets/1')).json, rex, 'HTTP sees what the program created');

    const first = await pets.list({ status: 'sold', limit: 3 });
    assert.deepEqual(
      first.pets.map((pet) => pet.id),
      [2, 3, 4],
    );
    assert.equal(first.total, 4);
    assert.ok(first.next !== undefined);
    const second = await pets.list({ status: 'sold', limit: 3, cursor: first.next });
    assert.deepEqual(
      second.pets.map((pet) => pet.id),
      [5],
    );
    assert.equal(second.next, undefined);
    assert.equal((await pets.list()).pets.length, 5);
  } finally {
    await server.close();
  }
});

test('pets: input is checked as the API checks it, with the same ApiError codes', async () => {
  const app = await createAnimalStore({ logger: QUIET_LOGGER });
  try {
    for (const bad of [
      { name: '', categoryId: 1 },
      { name: 'x', categoryId: 1.5 },
      { name: 'x', categoryId: 1, id: 7 },
    ]) {
      await assert.rejects(
        app.pets.create(bad as never),
        (error: unknown) => error instanceof ApiError && error.code === 'invalid_body',
        JSON.stringify(bad),
      );
    }
    await assert.rejects(
      app.pets.list({ limit: 101 }),
      (error: unknown) => error instanceof ApiError && error.code === 'invalid_query',
    );
    await assert.rejects(
      app.pets.list({ cursor: 'forged' }),
      (error: unknown) => error instanceof ApiError && error.code === 'invalid_cursor',
    );
    await assert.rejects(
      app.pets.get(0),
      (error: unknown) => error instanceof ApiError && error.code === 'invalid_parameter',
    );
    assert.equal((await app.pets.list()).total, 0, 'nothing was created');
  } finally {
    await app.close();
  }
});

test('orders: place, conflict, deliver, and the pet follows; all of it durable across a restart', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'animal-store-access-'));
  try {
    const app = await createAnimalStore({ dataDir, logger: QUIET_LOGGER, createFirstKey: false });
    const pet = await app.pets.create({ name: 'Tom', categoryId: 2 });
    const order = await app.orders.place(pet.id);
    assert.equal(order.status, 'placed');
    assert.equal((await app.pets.get(pet.id))?.status, 'pending');
    await assert.rejects(
      app.orders.place(pet.id),
      (error: unknown) => error instanceof ApiError && error.code === 'conflict',
    );
    await assert.rejects(
      app.orders.place(999),
      (error: unknown) => error instanceof ApiError && error.code === 'not_found',
    );
    const delivered = await app.orders.update(order.id, 'delivered');
    assert.equal(delivered.status, 'delivered');
    await assert.rejects(
      app.orders.update(order.id, 'cancelled'),
      (error: unknown) => error instanceof ApiError && error.code === 'conflict',
    );
    assert.equal(await app.orders.get(404), undefined);
    await app.close();

    const again = await createAnimalStore({ dataDir, logger: QUIET_LOGGER, createFirstKey: false });
    try {
      assert.deepEqual(await again.orders.get(order.id), delivered);
      assert.equal((await again.pets.get(pet.id))?.status, 'sold');
      assert.deepEqual(await again.orders.list({ status: 'delivered' }), {
        orders: [delivered],
        next: undefined,
        total: 1,
      });
    } finally {
      await again.close();
    }
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
});
