// README "Store orders (beta) and safe retries" against a real server: every transition, every 404 and 409, paging, and the
// pet's status and the listing filter following each change.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { call, createPet, startServer, type TestServer } from '../helpers/server.js';
import { undiciHttp2Cannot } from '../helpers/transport.js';

let server: TestServer;
before(async () => {
  server = await startServer();
});
after(() => server.close());

interface Order {
  id: number;
  petId: number;
  status: string;
  createdAt: string;
}

async function place(petId: number): Promise<{ status: number; order: Order; location: unknown; code: unknown }> {
  const reply = await call(server, 'POST', '/v1/store/orders', { json: { petId } });
  return {
    status: reply.status,
    order: reply.json as Order,
    location: reply.headers.location,
    code: (reply.json as { code?: string }).code,
  };
}

async function petStatus(id: number): Promise<string> {
  return ((await call(server, 'GET', `/v1/pets/${id}`)).json as { status: string }).status;
}

async function idsWithStatus(status: string): Promise<number[]> {
  return ((await call(server, 'GET', `/v1/pets?status=${status}&limit=100`)).json as Array<{ id: number }>).map(
    (pet) => pet.id,
  );
}

test('placing an order for an available animal answers 201 with Location and makes the animal pending', async () => {
  const pet = await createPet(server, { name: 'Rex', categoryId: 1 });
  const placed = await place(pet.id);
  assert.equal(placed.status, 201);
  assert.equal(placed.location, `/v1/store/orders/${placed.order.id}`);
  assert.deepEqual(Object.keys(placed.order), ['id', 'petId', 'status', 'createdAt']);
  assert.equal(placed.order.status, 'placed');
  assert.equal(placed.order.petId, pet.id);
  assert.match(placed.order.createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
  assert.equal(await petStatus(pet.id), 'pending');
  assert.ok((await idsWithStatus('pending')).includes(pet.id));
  assert.ok(!(await idsWithStatus('available')).includes(pet.id));
  const read = await call(server, 'GET', `/v1/store/orders/${placed.order.id}`);
  assert.deepEqual(read.json, placed.order);
});

test('delivering makes the animal sold; any later move is 409', async () => {
  const pet = await createPet(server, { name: 'Tom', categoryId: 1 });
  const { order } = await place(pet.id);
  const delivered = await call(server, 'PATCH', `/v1/store/orders/${order.id}`, { json: { status: 'delivered' } });
  assert.equal(delivered.status, 200);
  assert.deepEqual(delivered.json, { ...order, status: 'delivered' });
  assert.equal(await petStatus(pet.id), 'sold');
  for (const status of ['cancelled', 'delivered', 'placed']) {
    const reply = await call(server, 'PATCH', `/v1/store/orders/${order.id}`, { json: { status } });
    assert.equal(reply.status, 409, status);
    assert.equal((reply.json as { code: string }).code, 'conflict');
  }
  assert.equal((await call(server, 'DELETE', `/v1/store/orders/${order.id}`)).status, 409);
  assert.equal(await petStatus(pet.id), 'sold');
});

test('cancelling (PATCH or DELETE) makes the animal available again, and it can be ordered again', async () => {
  const pet = await createPet(server, { name: 'Kit', categoryId: 1 });
  const first = await place(pet.id);
  const cancelled = await call(server, 'PATCH', `/v1/store/orders/${first.order.id}`, {
    body: '{"status":"cancelled"}',
    headers: { 'content-type': 'application/merge-patch+json' },
  });
  assert.equal(cancelled.status, 200);
  assert.equal((cancelled.json as Order).status, 'cancelled');
  assert.equal(await petStatus(pet.id), 'available');
  const second = await place(pet.id);
  assert.equal(second.status, 201);
  const deleted = await call(server, 'DELETE', `/v1/store/orders/${second.order.id}`);
  assert.equal(deleted.status, 200);
  assert.equal((deleted.json as Order).status, 'cancelled');
  assert.equal(await petStatus(pet.id), 'available');
  assert.equal(
    (await call(server, 'PATCH', `/v1/store/orders/${second.order.id}`, { json: { status: 'placed' } })).status,
    409,
  );
});

test('an animal that is not available gives 409; an unknown one 404', async () => {
  const sold = await createPet(server, { name: 'Gone', categoryId: 1, status: 'sold' });
  const pending = await createPet(server, { name: 'Held', categoryId: 1, status: 'pending' });
  for (const id of [sold.id, pending.id]) {
    const reply = await place(id);
    assert.equal(reply.status, 409);
    assert.equal(reply.code, 'conflict');
  }
  const unknown = await place(999_999);
  assert.equal(unknown.status, 404);
  assert.equal(unknown.code, 'not_found');
});

test('two orders for the same animal at the same moment: exactly one 201, the other 409', async () => {
  for (let round = 0; round < 5; round++) {
    const pet = await createPet(server, { name: `race ${round}`, categoryId: 1 });
    const replies = await Promise.all([place(pet.id), place(pet.id), place(pet.id)]);
    assert.deepEqual(replies.map((reply) => reply.status).sort(), [201, 409, 409]);
  }
});

test('bad input is 400 before any 404: malformed ids, bodies and states', async () => {
  for (const path of ['/v1/store/orders/0', '/v1/store/orders/abc', '/v1/store/orders/01']) {
    const reply = await call(server, 'GET', path);
    assert.equal(reply.status, 400, path);
    assert.equal((reply.json as { code: string }).code, 'invalid_parameter');
  }
  assert.equal((await call(server, 'GET', '/v1/store/orders/999999')).status, 404);
  for (const body of [{}, { petId: '1' }, { petId: 1.5 }, { petId: 1, extra: true }]) {
    const reply = await call(server, 'POST', '/v1/store/orders', { json: body });
    assert.equal((reply.json as { code: string }).code, 'invalid_body', JSON.stringify(body));
  }
  for (const body of [{ status: 'lost' }, { status: 1 }, {}, { status: 'cancelled', petId: 1 }]) {
    const reply = await call(server, 'PATCH', '/v1/store/orders/999999', { json: body });
    assert.equal(reply.status, 400, JSON.stringify(body));
    assert.equal((reply.json as { code: string }).code, 'invalid_body');
  }
  assert.equal((await call(server, 'PATCH', '/v1/store/orders/999999', { json: { status: 'cancelled' } })).status, 404);
  const text = await call(server, 'PATCH', '/v1/store/orders/1', {
    body: '{"status":"cancelled"}',
    headers: { 'content-type': 'text/plain' },
  });
  assert.equal(text.status, 415);
  assert.equal(
    (await call(server, 'PUT', '/v1/store/orders/1', { json: {} })).headers.allow,
    'DELETE, GET, HEAD, PATCH',
  );
  assert.equal((await call(server, 'DELETE', '/v1/store/orders')).headers.allow, 'GET, HEAD, POST');
});

test('orders page like pets, with a status filter, Link, X-Next and X-Total-Count', async () => {
  for (let index = 0; index < 12; index++) {
    const pet = await createPet(server, { name: `paged ${index}`, categoryId: 1 });
    const { order } = await place(pet.id);
    if (index % 2 === 0) await call(server, 'DELETE', `/v1/store/orders/${order.id}`);
  }
  const seen: number[] = [];
  let path: string | undefined = '/v1/store/orders?status=cancelled&limit=3';
  while (path !== undefined) {
    const reply = await call(server, 'GET', path);
    assert.equal(reply.status, 200);
    for (const order of reply.json as Order[]) {
      assert.equal(order.status, 'cancelled');
      seen.push(order.id);
    }
    path = /^<([^>]+)>; rel="next"$/.exec(String(reply.headers.link ?? ''))?.[1];
    if (path !== undefined) {
      assert.match(path, /^\/v1\/store\/orders\?limit=3&status=cancelled&cursor=/);
      assert.equal(reply.headers['x-next'], path);
    }
  }
  const total = Number((await call(server, 'GET', '/v1/store/orders?status=cancelled')).headers['x-total-count']);
  assert.equal(seen.length, total);
  assert.deepEqual(
    seen,
    [...seen].sort((a, b) => a - b),
  );
  const petCursor = /cursor=([^>&]+)/.exec(String((await call(server, 'GET', '/v1/pets?limit=1')).headers.link))?.[1];
  const reused = await call(server, 'GET', `/v1/store/orders?cursor=${petCursor}`);
  assert.equal((reused.json as { code: string }).code, 'invalid_cursor', 'a pets cursor is not an orders cursor');
  assert.equal((await call(server, 'GET', '/v1/store/orders?status=sold')).status, 400);
});

test(
  'DELETE takes no body: none, an empty one or JSON is served (200); another media type 415, over 64 KiB 413, a repeated Content-Type 400',
  { skip: undiciHttp2Cannot('sends no body on DELETE') },
  async () => {
    const orderFor = async (name: string): Promise<Order> =>
      (await place((await createPet(server, { name, categoryId: 1 })).id)).order;
    const refused: Array<[{ body?: string; headers?: Record<string, string | string[]> }, number, string]> = [
      [{ body: 'cancel', headers: { 'content-type': 'text/plain' } }, 415, 'unsupported_media_type'],
      [{ body: '{}' }, 415, 'unsupported_media_type'],
      [
        { body: `{"a":"${'x'.repeat(70_000)}"}`, headers: { 'content-type': 'application/json' } },
        413,
        'payload_too_large',
      ],
      [{ body: '{}', headers: { 'content-type': ['application/json', 'application/json'] } }, 400, 'invalid_header'],
      [
        { body: '{}', headers: { 'content-type': 'application/json', 'idempotency-key': ['a', 'b'] } },
        400,
        'invalid_header',
      ],
    ];
    for (const [options, status, code] of refused) {
      const order = await orderFor('Kept');
      const reply = await call(server, 'DELETE', `/v1/store/orders/${order.id}`, options);
      assert.equal(reply.status, status, reply.text);
      assert.equal((reply.json as { code: string }).code, code);
      assert.equal(
        ((await call(server, 'GET', `/v1/store/orders/${order.id}`)).json as Order).status,
        'placed',
        'a refused DELETE changes nothing',
      );
      assert.equal(await petStatus(order.petId), 'pending');
    }
    for (const options of [
      {},
      { body: '', headers: { 'content-type': 'text/plain' } },
      { body: '{"status":"ignored"}', headers: { 'content-type': 'application/json' } },
    ]) {
      const order = await orderFor('Released');
      const reply = await call(server, 'DELETE', `/v1/store/orders/${order.id}`, options);
      assert.equal(reply.status, 200, reply.text);
      assert.equal((reply.json as Order).status, 'cancelled');
      assert.equal(await petStatus(order.petId), 'available');
    }
  },
);

test(
  'PATCH with a repeated Idempotency-Key is 400 invalid_header, and the order is unchanged',
  { skip: undiciHttp2Cannot('joins a repeated field into one') },
  async () => {
    const { order } = await place((await createPet(server, { name: 'Twice', categoryId: 1 })).id);
    const reply = await call(server, 'PATCH', `/v1/store/orders/${order.id}`, {
      json: { status: 'delivered' },
      headers: { 'idempotency-key': ['k1', 'k1'] },
    });
    assert.equal(reply.status, 400, reply.text);
    assert.match((reply.json as { code: string; message: string }).message, /Idempotency-Key/);
    assert.equal((reply.json as { code: string }).code, 'invalid_header');
    assert.equal(((await call(server, 'GET', `/v1/store/orders/${order.id}`)).json as Order).status, 'placed');
  },
);
