// `animal-store migrate` and the webhook half of a store: events, a subscription with its secret, a
// pending delivery with the attempts already made, and a pet whose name holds U+0000 move into
// PostgreSQL so that a service on the database answers as the embedded one did (the same event ids in
// the same order, the same subscription and attempts), deliveries go on where they stopped, and a new
// event gets a position after every old one.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { moveToPostgres } from '../../src/app/move-to-postgres.js';
import { ManualClock } from '../../src/core/clock.js';
import { openEmbeddedStore } from '../../src/store/embedded/open-embedded-store.js';
import type { Subscription } from '../../src/store/webhook-store.js';
import {
  type EventsServer,
  eventsServerSkipReason,
  openEventsServer,
  untilListable,
} from '../helpers/postgres-events.js';
import { openStore, T0_MS } from '../helpers/postgres-webhook-store.js';
import { call, type Reply, startServer, type TestServer } from '../helpers/server.js';

const skip = await eventsServerSkipReason();
let server: EventsServer;
let dataDir: string;
before(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'animal-store-migrate-events-'));
  if (skip === undefined) server = await openEventsServer();
});
after(async () => {
  await rm(dataDir, { recursive: true, force: true });
  await server?.close();
});

const NUL_NAME = 'nul\u0000byte';
const RETRY_AT_MS = T0_MS + 5000;

/** A service on `place` (a data directory or a database), delivering nothing: the test attempts by hand. */
const serve = (place: { dataDir: string } | { databaseUrl: string }, clock: ManualClock): Promise<TestServer> =>
  startServer({ ...place, clock, webhookDelivery: false });

/** What the tests compare before and after the move. */
type ReadBack = Record<'events' | 'firstEvents' | 'webhook' | 'attempts' | 'pet', Reply>;

async function readBack(service: TestServer, webhookId: string, petId: number): Promise<ReadBack> {
  return {
    events: await call(service, 'GET', '/v1/events?limit=100'),
    firstEvents: await call(service, 'GET', '/v1/events?limit=2'),
    webhook: await call(service, 'GET', `/v1/webhooks/${webhookId}`),
    attempts: await call(service, 'GET', `/v1/webhooks/${webhookId}/attempts`),
    pet: await call(service, 'GET', `/v1/pets/${petId}`),
  };
}

/** The position an event id ends with. */
const positionOf = (id: string): number => Number(/[0-9]+$/.exec(id)?.[0]);

test(
  'events, a subscription with its secret, a pending delivery with its attempts and a U+0000 name move to PostgreSQL as they were',
  { skip, timeout: 120_000 },
  async () => {
    const clock = new ManualClock(T0_MS);
    // Made through the API of a service on the directory.
    const embedded = await serve({ dataDir }, clock);
    let webhookId: string;
    let secret: string;
    let nulPetId: number;
    try {
      const made = await call(embedded, 'POST', '/v1/webhooks', {
        json: { url: 'https://receiver.example/hook', events: ['pet.created', 'order.created'] },
      });
      assert.equal(made.status, 201, made.text);
      ({ id: webhookId, secret } = made.json as { id: string; secret: string });
      const nulPet = await call(embedded, 'POST', '/v1/pets', { json: { name: NUL_NAME, categoryId: 1 } });
      nulPetId = (nulPet.json as { id: number }).id;
      const other = await call(embedded, 'POST', '/v1/pets', { json: { name: 'Rex', categoryId: 2 } });
      const petId = (other.json as { id: number }).id;
      assert.equal((await call(embedded, 'POST', '/v1/store/orders', { json: { petId } })).status, 201);
      assert.equal((await call(embedded, 'POST', `/v1/webhooks/${webhookId}/test`)).status, 202);
    } finally {
      await embedded.close();
    }

    // Two attempts, as a worker would make them: the NUL pet's event delivered, the test event failed
    // with a retry due later; the other two deliveries stay pending, never attempted.
    const source = await openEmbeddedStore({
      dataDir,
      clock,
      durability: 'always',
      fsyncIntervalMs: 1000,
      compactMinRecords: 1000,
      warn() {},
    });
    let before: Subscription | undefined;
    try {
      const due = await source.webhooks.claimDue(T0_MS, 10, 60_000, 10, new Map());
      assert.deepEqual(
        due.map((delivery) => delivery.event.type),
        ['pet.created', 'pet.created', 'order.created', 'webhook.test'],
      );
      const [delivered, , , failed] = due as [(typeof due)[0], unknown, unknown, (typeof due)[0]];
      const attempt = (delivery: (typeof due)[0], id: string, status: number, nextAttemptAtMs: number | null) => ({
        deliveryId: delivery.deliveryId,
        subscriptionId: webhookId,
        attempt: { id, attemptedAtMs: T0_MS, status, error: null, durationMs: 12, response: null },
        event: delivery.event,
        nextAttemptAtMs,
        delivered: status === 200,
        failingSinceMs: status === 200 ? null : T0_MS,
      });
      await source.webhooks.finishAttempt(attempt(delivered, 'att_delivered', 200, null));
      await source.webhooks.finishAttempt(attempt(failed, 'att_failed', 503, RETRY_AT_MS));
      before = source.webhooks.getSubscription(webhookId);
    } finally {
      await source.close();
    }
    assert.equal(before?.secrets[0]?.secret, secret);

    const again = await serve({ dataDir }, clock);
    const expected = await readBack(again, webhookId, nulPetId).finally(() => again.close());
    assert.equal((expected.pet.json as { name: string }).name, NUL_NAME);
    assert.equal((expected.events.json as unknown[]).length, 4, 'four events listed (the test event is not)');
    assert.equal((expected.attempts.json as unknown[]).length, 2);

    const url = await server.database();
    const copied = await moveToPostgres({ dataDir, databaseUrl: url, clock, warn() {} });
    assert.deepEqual(
      { events: copied.events, subscriptions: copied.subscriptions, deliveries: copied.deliveries },
      { events: 5, subscriptions: 1, deliveries: 3 },
    );
    await untilListable(url);

    const moved = await serve({ databaseUrl: url }, clock);
    try {
      const found = await readBack(moved, webhookId, nulPetId);
      for (const name of Object.keys(expected) as (keyof ReadBack)[]) {
        assert.equal(found[name].status, 200, name);
        assert.equal(found[name].text, expected[name].text, `${name} reads the same`);
        assert.equal(found[name].headers['x-total-count'], expected[name].headers['x-total-count'], name);
      }
      const cursorPath = expected.firstEvents.headers['x-next'] as string;
      const rest = (await call(moved, 'GET', cursorPath)).json as { id: string }[];
      assert.deepEqual(
        rest.map((event) => event.id),
        (expected.events.json as { id: string }[]).slice(2).map((event) => event.id),
        "an embedded store's events cursor goes on from where it was",
      );
      const recovered = await call(moved, 'POST', `/v1/webhooks/${webhookId}/recover`, {
        json: { since: new Date(T0_MS).toISOString() },
      });
      assert.equal(
        (recovered.json as { events: number }).events,
        2,
        'the delivered event counts as delivered; the two pending are sent again',
      );

      clock.advance(1000);
      assert.equal((await call(moved, 'POST', '/v1/pets', { json: { name: 'After', categoryId: 3 } })).status, 201);
      await untilListable(url);
      const listed = (await call(moved, 'GET', '/v1/events?limit=100')).json as { id: string; type: string }[];
      const oldPositions = [...(expected.events.json as { id: string }[])].map((event) => positionOf(event.id));
      const newEvent = listed.at(-1) as { id: string; type: string };
      assert.equal(listed.length, 5);
      assert.equal(newEvent.type, 'pet.created');
      // The test event (not listed) took position 5: a new one must come after it too.
      assert.ok(positionOf(newEvent.id) > Math.max(...oldPositions) + 1, `${newEvent.id} reuses no position`);
    } finally {
      await moved.close();
    }

    const store = await openStore(url, clock);
    try {
      assert.deepEqual(
        await store.webhooks.getSubscription(webhookId),
        before,
        'the same subscription, secret included',
      );
      const due = await store.webhooks.claimDue(RETRY_AT_MS, 10, 60_000, 10, new Map());
      assert.deepEqual(
        due
          .toSorted((one, other) => one.event.seq - other.event.seq)
          .map((delivery) => [delivery.event.type, delivery.attemptsMade, delivery.secrets]),
        [
          ['pet.created', 0, [secret]],
          ['order.created', 0, [secret]],
          ['webhook.test', 1, [secret]],
          ['pet.created', 0, [secret]],
        ],
        'the pending deliveries are claimable, the failed one with its attempt counted, and the new pet fans out',
      );
    } finally {
      await store.close();
    }
  },
);
