// The cost of each operation on PostgreSQL, counted on the wire: a read is one round trip (the page and
// its total in one statement), creating a pet one (one statement, its own transaction), an order one
// transaction of four (BEGIN, the pet locked, the writes, COMMIT); their events and deliveries are
// written by those same statements, and only when a change added deliveries does one NOTIFY follow it,
// not waited for. Counted by a proxy that reads the protocol's messages, so nothing in the service is
// trusted to count itself.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { Agent } from 'undici';
import { createAnimalStore } from '../../src/app/create-animal-store.js';
import { QUIET_LOGGER } from '../../src/logging/logger.js';
import { DELIVERIES_CHANNEL, KEYS_CHANNEL } from '../../src/store/postgres/schema.js';
import { type CountingProxy, startCountingProxy } from '../helpers/pg-proxy.js';
import { ADMIN_URL, createTestDatabase, postgresSkipReason, queryRows } from '../helpers/postgres.js';
import { call, TEST_KEY, type TestServer } from '../helpers/server.js';

const skip = await postgresSkipReason();
let proxy: CountingProxy;
let server: TestServer;
let drop: () => Promise<void> = async () => {};
let databaseUrl = '';

before(async () => {
  if (skip !== undefined) return;
  const database = await createTestDatabase();
  drop = database.drop;
  databaseUrl = database.url;
  proxy = await startCountingProxy(Number(new URL(ADMIN_URL).port || 5432));
  const url = new URL(database.url);
  url.hostname = '127.0.0.1';
  url.port = String(proxy.port);
  const app = await createAnimalStore({
    databaseUrl: url.toString(),
    keys: [{ key: TEST_KEY, plan: 'enterprise', perMinute: 1_000_000, perDay: 100_000_000 }],
    logger: QUIET_LOGGER,
    // Only the requests' own round trips are counted: no worker claims deliveries meanwhile.
    webhookDelivery: false,
  });
  const { url: origin } = await app.listen({ port: 0, host: '127.0.0.1' });
  // The connection that listens for key changes says LISTEN once, on its own time: counted before the tests.
  // (The one that listens for new deliveries has said it before the store opened.)
  const listening = `SELECT 1 FROM pg_stat_activity WHERE datname = $1 AND query = 'LISTEN ${KEYS_CHANNEL}'`;
  while ((await queryRows(ADMIN_URL, listening, [database.name])).length === 0)
    await new Promise((resolve) => setTimeout(resolve, 10));
  const agent = new Agent();
  server = {
    app,
    url: origin,
    dataDir: undefined,
    agent,
    close: async () => {
      await agent.close();
      await app.close();
    },
  };
});
after(async () => {
  if (skip !== undefined) return;
  await server.close();
  await proxy.close();
  await drop();
});

/** The round trips `work` makes. */
async function roundTripsOf(work: () => Promise<unknown>): Promise<number> {
  const before = proxy.roundTrips();
  await work();
  return proxy.roundTrips() - before;
}

test('each operation takes the round trips its design says, counted on the wire', { skip }, async () => {
  const create = async (): Promise<void> => {
    const reply = await call(server, 'POST', '/v1/pets', { json: { name: 'Rex', categoryId: 1 } });
    assert.equal(reply.status, 201, reply.text);
  };
  assert.equal(await roundTripsOf(create), 1, 'create a pet: one statement');
  for (let i = 0; i < 30; i++) await create();
  assert.equal(await roundTripsOf(() => call(server, 'GET', '/v1/pets?limit=20')), 1, 'a page with its total');
  assert.equal(
    await roundTripsOf(() => call(server, 'GET', '/v1/pets?limit=5&status=available')),
    1,
    'a filtered page',
  );
  assert.equal(await roundTripsOf(() => call(server, 'GET', '/v1/pets/3')), 1, 'one pet');
  assert.equal(await roundTripsOf(() => call(server, 'GET', '/v1/pets/99999')), 1, 'a pet that is not there');
  const order = await roundTripsOf(async () => {
    const reply = await call(server, 'POST', '/v1/store/orders', { json: { petId: 3 } });
    assert.equal(reply.status, 201, reply.text);
  });
  assert.equal(order, 4, 'an order: BEGIN, the pet locked, the writes, COMMIT');
  const refused = await roundTripsOf(async () => {
    assert.equal((await call(server, 'POST', '/v1/store/orders', { json: { petId: 3 } })).status, 409);
  });
  assert.equal(refused, 3, 'a refused order: BEGIN, the pet locked, ROLLBACK');

  // A change's events and their deliveries are written by the statements of the change; then, not
  // waited for, one NOTIFY tells every instance (heard here directly, to count it in its operation).
  await queryRows(
    databaseUrl,
    `INSERT INTO webhooks (id, owner_key_id, status, events, json)
     VALUES ('wh_counted', 'key_1', 'enabled', ARRAY['pet.created', 'order.created', 'pet.updated'], '{}')`,
  );
  const listener = new pg.Client({ connectionString: databaseUrl });
  await listener.connect();
  try {
    await listener.query(`LISTEN ${DELIVERIES_CHANNEL}`);
    const announced = (): Promise<unknown> => once(listener, 'notification');
    const withEvent = await roundTripsOf(async () => {
      const heard = announced();
      await create();
      await heard;
    });
    assert.equal(withEvent, 2, 'create a pet with its event and delivery: one statement, then the NOTIFY');
    const orderWithEvents = await roundTripsOf(async () => {
      const heard = announced();
      const reply = await call(server, 'POST', '/v1/store/orders', { json: { petId: 4 } });
      assert.equal(reply.status, 201, reply.text);
      await heard;
    });
    assert.equal(
      orderWithEvents,
      5,
      'an order with its events and deliveries: BEGIN, lock, writes, COMMIT, then the NOTIFY',
    );
  } finally {
    await listener.end();
  }
  const [counted] = await queryRows<{ n: number }>(databaseUrl, 'SELECT count(*)::int AS n FROM deliveries');
  assert.equal(counted?.n, 3);
});
