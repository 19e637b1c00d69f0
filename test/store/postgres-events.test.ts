// Events on PostgreSQL: recorded in the statement of the change they describe (the transactional
// outbox) and fanned out there to the enabled subscriptions of their type; listed by /events in an
// order no later commit can add to in the past, so a client that paged to the end never misses an
// event whose transaction committed after a later one; and a client's text holding U+0000 (a pet's
// name, a webhook's description) kept exactly, although PostgreSQL's text cannot hold that character.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { ManualClock } from '../../src/core/clock.js';
import { ApiError } from '../../src/core/errors.js';
import { eventId, eventIdLetters } from '../../src/events/event-id.js';
import { eventJson } from '../../src/events/event.js';
import { COUNTED_EVENT_TYPES, eventCountColumn, SCHEMA_VERSION } from '../../src/store/postgres/schema.js';
import { type EventsServer, eventsServerSkipReason, openEventsServer } from '../helpers/postgres-events.js';
import { openStore, subscribe, subscription, T0_MS } from '../helpers/postgres-webhook-store.js';
import { migrateTo, queryRows } from '../helpers/postgres.js';
import { call, startServer } from '../helpers/server.js';

const skip = await eventsServerSkipReason();
let server: EventsServer;
before(async () => {
  if (skip === undefined) server = await openEventsServer();
});
after(() => server?.close());

const NUL_NAME = 'nul\u0000byte';
const clock = new ManualClock(T0_MS);
const all = { type: undefined, after: undefined, limit: 100, sinceMs: 0 };
const iso = (ms: number): string => new Date(ms).toISOString();

test(
  'each change records its events, as eventJson writes them, with a delivery to each enabled subscription of the type',
  { skip },
  async () => {
    const url = await server.database();
    const store = await openStore(url, clock);
    try {
      await subscribe(store, subscription('wh_pets', ['pet.created', 'pet.updated']));
      await subscribe(store, subscription('wh_orders', ['order.created', 'order.updated']));
      await subscribe(store, subscription('wh_off', ['pet.created'], { status: 'disabled', disabledReason: 'off' }));
      const pet = await store.createPet({ name: 'Rex', categoryId: 1, status: 'available' }, T0_MS);
      const order = await store.placeOrder(pet.id, iso(T0_MS + 1000), () => ({
        orderStatus: 'placed',
        petStatus: 'pending',
      }));
      await store.moveOrder(order.id, () => ({ orderStatus: 'delivered', petStatus: 'sold' }), T0_MS + 2000);

      const page = await store.webhooks.pageEvents(all);
      const petJson = (status: string): string => `{"id":${pet.id},"name":"Rex","categoryId":1,"status":"${status}"}`;
      const orderJson = (status: string): string =>
        `{"id":${order.id},"petId":${pet.id},"status":"${status}","createdAt":"${iso(T0_MS + 1000)}"}`;
      const letters = eventIdLetters(store.cursorSecret);
      const expected = [
        ['pet.created', T0_MS, petJson('available')],
        ['order.created', T0_MS + 1000, orderJson('placed')],
        ['pet.updated', T0_MS + 1000, petJson('pending')],
        ['order.updated', T0_MS + 2000, orderJson('delivered')],
        ['pet.updated', T0_MS + 2000, petJson('sold')],
      ] as const;
      assert.deepEqual(
        page.items.map((event) => event.json),
        expected.map(([type, atMs, data], index) => eventJson(eventId(letters, index + 1), type, atMs, data)),
      );
      assert.equal(page.total, 5);
      assert.equal(page.more, false);
      for (const event of page.items) assert.deepEqual(await store.webhooks.getEvent(event.id, 0), event);

      const deliveries = await queryRows<{ webhook_id: string; event_seq: string }>(
        url,
        'SELECT webhook_id, event_seq FROM deliveries ORDER BY event_seq, webhook_id',
      );
      assert.deepEqual(
        deliveries.map((row) => `${row.event_seq} ${row.webhook_id}`),
        ['1 wh_pets', '2 wh_orders', '3 wh_pets', '4 wh_orders', '5 wh_pets'],
      );
    } finally {
      await store.close();
    }
  },
);

test(
  'a change that fails, or is refused, records no event and no delivery: all of it commits or none',
  { skip },
  async () => {
    const url = await server.database();
    const store = await openStore(url, clock);
    try {
      await subscribe(store, subscription('wh_poison', ['pet.created']));
      // A delivery to this subscription cannot be written: the statement that creates the pet fails whole.
      await queryRows(url, "ALTER TABLE deliveries ADD CONSTRAINT poison CHECK (webhook_id <> 'wh_poison')");
      await assert.rejects(store.createPet({ name: 'Rex', categoryId: 1, status: 'available' }, T0_MS));
      assert.deepEqual(await store.pagePets({ status: undefined, afterId: 0, limit: 10 }), {
        items: [],
        more: false,
        total: 0,
      });
      await queryRows(url, 'ALTER TABLE deliveries DROP CONSTRAINT poison');
      const pet = await store.createPet({ name: 'Rex', categoryId: 1, status: 'sold' }, T0_MS);
      const refused = new ApiError('conflict', 'not available');
      await assert.rejects(
        store.placeOrder(pet.id, iso(T0_MS), () => {
          throw refused;
        }),
        refused,
      );
      const page = await store.webhooks.pageEvents(all);
      assert.deepEqual(
        page.items.map((event) => event.type),
        ['pet.created'],
      );
      assert.deepEqual(await queryRows(url, 'SELECT count(*)::int AS n FROM deliveries'), [{ n: 1 }]);
    } finally {
      await store.close();
    }
  },
);

test(
  '/events skips no event whose transaction commits after one with a later position was committed',
  { skip },
  async () => {
    const url = await server.database();
    const store = await openStore(url, clock);
    const first = new pg.Client({ connectionString: url });
    const second = new pg.Client({ connectionString: url });
    await first.connect();
    await second.connect();
    const letters = eventIdLetters(store.cursorSecret);
    /** Records an event of `client`'s transaction as a change would (counted too); its position. */
    const record = async (client: pg.Client, slot: number): Promise<number> => {
      const { rows } = await client.query<{ seq: string }>("SELECT nextval('event_seqs') AS seq");
      const seq = Number(rows[0]?.seq);
      const json = eventJson(eventId(letters, seq), 'pet.created', T0_MS, `{"id":${seq}}`);
      await client.query('INSERT INTO events (seq, type, at_ms, json) VALUES ($1, $2, $3, $4)', [
        seq,
        'pet.created',
        T0_MS,
        json,
      ]);
      // Each in a slot of its own, as changes mostly are: one waiting for the other's would never commit first.
      await client.query('UPDATE counts SET events_pet_created = events_pet_created + 1 WHERE slot = $1', [slot]);
      return seq;
    };
    try {
      await store.createPet({ name: 'Before', categoryId: 1, status: 'available' }, T0_MS);
      await first.query('BEGIN');
      const earlier = await record(first, 0);
      await second.query('BEGIN');
      const later = await record(second, 1);
      await second.query('COMMIT');
      assert.ok(earlier < later);

      // A client pages to the end while the earlier position is not committed yet.
      const seen = await store.webhooks.pageEvents(all);
      assert.deepEqual(
        seen.items.map((event) => event.seq),
        [1],
        'the committed later event is not listed while an earlier transaction may still commit',
      );
      assert.equal(seen.more, false);
      assert.equal(seen.total, 1);

      await first.query('COMMIT');
      const next = await store.webhooks.pageEvents({ ...all, after: seen.last });
      assert.deepEqual(
        next.items.map((event) => event.seq),
        [earlier, later],
      );
      assert.equal(next.total, 3);
    } finally {
      await first.end();
      await second.end();
      await store.close();
    }
  },
);

test(
  '/events lists in the order transactions began writing: a later position of an older transaction comes first',
  { skip },
  async () => {
    const url = await server.database();
    const store = await openStore(url, clock);
    const older = new pg.Client({ connectionString: url });
    await older.connect();
    try {
      await older.query('BEGIN');
      await older.query('SELECT pg_current_xact_id()');
      await store.createPet({ name: 'Newer transaction', categoryId: 1, status: 'available' }, T0_MS);
      assert.deepEqual((await store.webhooks.pageEvents(all)).items, []);
      const { rows } = await older.query<{ seq: string }>("SELECT nextval('event_seqs') AS seq");
      const json = eventJson(
        eventId(eventIdLetters(store.cursorSecret), Number(rows[0]?.seq)),
        'pet.created',
        T0_MS,
        '{}',
      );
      await older.query("INSERT INTO events (seq, type, at_ms, json) VALUES ($1, 'pet.created', $2, $3)", [
        rows[0]?.seq,
        T0_MS,
        json,
      ]);
      await older.query('UPDATE counts SET events_pet_created = events_pet_created + 1 WHERE slot = 0');
      await older.query('COMMIT');
      const page = await store.webhooks.pageEvents({ ...all, limit: 1 });
      assert.deepEqual(
        page.items.map((event) => event.seq),
        [2],
      );
      assert.equal(page.more, true);
      const rest = await store.webhooks.pageEvents({ ...all, after: page.last });
      assert.deepEqual(
        rest.items.map((event) => event.seq),
        [1],
      );
      // A position without its transaction (as a store moved from the embedded store issued) is read too.
      assert.deepEqual(await store.webhooks.pageEvents({ ...all, after: '2' }), rest);
    } finally {
      await older.end();
      await store.close();
    }
  },
);

test(
  'the total of /events counts the listable events of the retention period, before and after a purge',
  { skip },
  async () => {
    const url = await server.database();
    const store = await openStore(url, clock);
    try {
      const cutMs = T0_MS - 1000;
      for (let index = 0; index < 3; index++)
        await store.createPet({ name: `old ${index}`, categoryId: 1, status: 'available' }, cutMs - 1 - index);
      const pet = await store.createPet({ name: 'new', categoryId: 1, status: 'available' }, T0_MS);
      await store.placeOrder(pet.id, iso(T0_MS), () => ({ orderStatus: 'placed', petStatus: 'pending' }));
      await subscribe(store, subscription('wh_a', ['pet.created']));
      await store.webhooks.sendTest('wh_a', T0_MS, () => {});
      const totals = async (sinceMs: number): Promise<number[]> =>
        Promise.all(
          [undefined, 'pet.created', 'pet.updated', 'order.created', 'order.updated'].map(
            async (type) => (await store.webhooks.pageEvents({ ...all, type: type as typeof all.type, sinceMs })).total,
          ),
        );
      assert.deepEqual(await totals(0), [6, 4, 1, 1, 0]);
      assert.deepEqual(await totals(cutMs), [3, 1, 1, 1, 0], 'past retention, not purged yet');
      await store.webhooks.purge(cutMs);
      assert.deepEqual(await totals(0), [3, 1, 1, 1, 0], 'purged');
      assert.deepEqual(await totals(cutMs), [3, 1, 1, 1, 0]);
      // The counts, test events' included, stay those of the events kept.
      const sum = COUNTED_EVENT_TYPES.map(eventCountColumn).join(' + ');
      assert.deepEqual(
        await queryRows(
          url,
          `SELECT (SELECT count(*)::int FROM events) AS kept, (SELECT sum(${sum})::int FROM counts) AS counted`,
        ),
        [{ kept: 4, counted: 4 }],
      );
    } finally {
      await store.close();
    }
  },
);

test(
  'a pet whose name holds U+0000 is kept exactly, read by getPet and pagePets and in its event',
  { skip },
  async () => {
    const store = await openStore(await server.database(), clock);
    try {
      const pet = await store.createPet({ name: NUL_NAME, categoryId: 1, status: 'available' }, T0_MS);
      const json = `{"id":${pet.id},"name":"nul\\u0000byte","categoryId":1,"status":"available"}`;
      assert.equal(pet.json, json);
      assert.equal(JSON.parse(pet.json).name, NUL_NAME);
      assert.deepEqual(await store.getPet(pet.id), pet);
      assert.deepEqual((await store.pagePets({ status: undefined, afterId: 0, limit: 10 })).items, [pet]);
      assert.equal(JSON.parse((await store.webhooks.pageEvents(all)).items[0]?.json ?? '').data.name, NUL_NAME);
      const order = await store.placeOrder(pet.id, iso(T0_MS), () => ({ orderStatus: 'placed', petStatus: 'pending' }));
      assert.equal(JSON.parse((await store.getPet(order.petId))?.json ?? '').name, NUL_NAME);
    } finally {
      await store.close();
    }
  },
);

test(
  'POST /v1/pets with a name holding U+0000 answers 201 on PostgreSQL, and the pet reads back exactly',
  { skip },
  async () => {
    const service = await startServer({ databaseUrl: await server.database() });
    try {
      const created = await call(service, 'POST', '/v1/pets', { json: { name: NUL_NAME, categoryId: 1 } });
      assert.equal(created.status, 201, created.text);
      const { id } = created.json as { id: number };
      const read = await call(service, 'GET', `/v1/pets/${id}`);
      assert.deepEqual(read.json, { id, name: NUL_NAME, categoryId: 1, status: 'available' });
      assert.deepEqual((await call(service, 'GET', '/v1/pets')).json, [read.json]);
    } finally {
      await service.close();
    }
  },
);

test('a webhook whose description holds U+0000 is kept exactly; an id holding it is no webhook', { skip }, async () => {
  const store = await openStore(await server.database(), clock);
  try {
    const added = await subscribe(store, subscription('wh_nul', ['pet.created'], { description: 'a\u0000b' }));
    assert.equal(added.description, 'a\u0000b');
    assert.deepEqual(await store.webhooks.getSubscription('wh_nul'), added);
    assert.deepEqual((await store.webhooks.pageSubscriptions('key_1', 0, 10)).items, [added]);
    const changed = await store.webhooks.updateSubscription('wh_nul', (current) => ({
      ...(current as typeof added),
      description: '\u0000',
    }));
    assert.deepEqual(await store.webhooks.getSubscription('wh_nul'), changed);
    assert.equal(changed.description, '\u0000');

    assert.equal(await store.webhooks.getSubscription('wh_\u0000'), undefined);
    const missing = new ApiError('not_found', 'no such webhook');
    const refuse = (current: unknown): never => {
      assert.equal(current, undefined);
      throw missing;
    };
    await assert.rejects(store.webhooks.updateSubscription('wh_\u0000', refuse), missing);
    await assert.rejects(store.webhooks.deleteSubscription('wh_\u0000', refuse), missing);
    await assert.rejects(store.webhooks.recover('wh_\u0000', 0, refuse), missing);
    assert.deepEqual(await store.webhooks.pageAttempts('wh_\u0000', undefined, 10), {
      items: [],
      more: false,
      total: 0,
    });
  } finally {
    await store.close();
  }
});

test(
  'migration 2 on a database of the first release keeps its pets and takes names holding U+0000',
  { skip },
  async () => {
    const url = await server.database();
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await migrateTo(client, 1);
      await client.query(
        `INSERT INTO pets (id, name, category_id, status, json) VALUES (1, 'Old', 1, 'available', '{"id":1,"name":"Old","categoryId":1,"status":"available"}')`,
      );
      await client.query("SELECT setval('pet_ids', 1)");
    } finally {
      await client.end();
    }
    const store = await openStore(url, clock);
    try {
      assert.equal((await store.getPet(1))?.json, '{"id":1,"name":"Old","categoryId":1,"status":"available"}');
      const pet = await store.createPet({ name: NUL_NAME, categoryId: 1, status: 'available' }, T0_MS);
      assert.equal(pet.id, 2);
      assert.deepEqual(await queryRows(url, 'SELECT max(version) AS version FROM schema_migrations'), [
        { version: SCHEMA_VERSION },
      ]);
    } finally {
      await store.close();
    }
  },
);
