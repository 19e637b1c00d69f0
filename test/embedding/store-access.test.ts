// Typed access for an embedding program: app.pets and app.orders run the API's own operations,
// so their validation, ids, durability and errors are the API's, and what they change HTTP sees.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { createAnimalStore } from '../../src/app/create-animal-store.js';
import { ApiError } from '../../src/core/errors.js';
import { QUIET_LOGGER } from '../../src/logging/logger.js';
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

test('the API and typed access refuse the same input with the same error: the service checks it, once', async () => {
  const server = await startServer();
  try {
    const { pets, orders } = server.app;
    /** The Error body typed access would have answered: its ApiError as the API writes it. */
    const refusal = async (attempt: Promise<unknown>): Promise<unknown> => {
      try {
        await attempt;
      } catch (error) {
        assert.ok(error instanceof ApiError, String(error));
        return { code: error.code, message: error.message, status: error.status, details: error.details };
      }
      throw new Error('accepted');
    };
    const viaHttp = async (...args: Parameters<typeof call>): Promise<unknown> => {
      const { code, message, status, details } = (await call(...args)).json as Record<string, unknown>;
      return { code, message, status, details };
    };
    const pet = await pets.create({ name: 'Tom', categoryId: 2 });
    const cases: Array<[string, Promise<unknown>, Promise<unknown>]> = [
      ['pet id 0', viaHttp(server, 'GET', '/v1/pets/0'), refusal(pets.get(0))],
      [
        'pet id past 2^53 − 1',
        viaHttp(server, 'GET', '/v1/pets/9007199254740992'),
        refusal(pets.get(9007199254740992)),
      ],
      ['order id 0', viaHttp(server, 'GET', '/v1/store/orders/0'), refusal(orders.get(0))],
      ['limit 500', viaHttp(server, 'GET', '/v1/pets?limit=500'), refusal(pets.list({ limit: 500 }))],
      ['forged cursor', viaHttp(server, 'GET', '/v1/pets?cursor=forged'), refusal(pets.list({ cursor: 'forged' }))],
      [
        'empty name',
        viaHttp(server, 'POST', '/v1/pets', { json: { name: '', categoryId: 1 } }),
        refusal(pets.create({ name: '', categoryId: 1 })),
      ],
      [
        'order for pet 0',
        viaHttp(server, 'POST', '/v1/store/orders', { json: { petId: 0 } }),
        refusal(orders.place(0)),
      ],
      [
        'an order moved to an unknown state',
        viaHttp(server, 'PATCH', `/v1/store/orders/1`, { json: { status: 'lost' } }),
        refusal(orders.update(1, 'lost' as never)),
      ],
    ];
    for (const [name, http, typed] of cases) {
      const [fromHttp, fromTyped] = await Promise.all([http, typed]);
      assert.deepEqual(fromTyped, fromHttp, name);
      assert.equal((fromHttp as { status: number }).status, 400, name);
    }
    assert.deepEqual(await pets.get(pet.id), pet, 'nothing changed');
  } finally {
    await server.close();
  }
});
