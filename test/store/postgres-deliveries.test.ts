// Pending deliveries on PostgreSQL shared by many instances: two stores on one database race to claim
// the same due deliveries and each is claimed by exactly one while leases are live; an instance that
// dies mid-attempt leaves its delivery to be claimed again when the lease ends; a claim gives every
// subscription its share; and an instance hears of deliveries another one made, through LISTEN.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { ManualClock } from '../../src/core/clock.js';
import { ATTEMPTS_KEPT, TRIM_EVERY } from '../../src/store/postgres/attempt-statements.js';
import type { PostgresStore } from '../../src/store/postgres/postgres-store.js';
import { SCHEMA_VERSION } from '../../src/store/postgres/schema.js';
import { subscriptionParams } from '../../src/store/postgres/webhook-rows.js';
import type { DueDelivery } from '../../src/store/webhook-store.js';
import { type EventsServer, eventsServerSkipReason, openEventsServer } from '../helpers/postgres-events.js';
import {
  createPets,
  failedAttempt,
  openStore,
  subscribe,
  subscription,
  T0_MS,
} from '../helpers/postgres-webhook-store.js';
import { migrateTo, queryRows } from '../helpers/postgres.js';

const skip = await eventsServerSkipReason();
let server: EventsServer;
before(async () => {
  if (skip === undefined) server = await openEventsServer();
});
after(() => server?.close());

const LEASE_MS = 60_000;
const NONE_HELD = new Map<string, number>();

/** Two instances of the service on one new database. */
async function twoStores(): Promise<{ url: string; a: PostgresStore; b: PostgresStore; close(): Promise<void> }> {
  const url = await server.database();
  const clock = new ManualClock(T0_MS);
  const a = await openStore(url, clock);
  const b = await openStore(url, clock);
  // A store a test closed itself (an instance that died) is closed once only.
  return { url, a, b, close: async () => void (await Promise.allSettled([a.close(), b.close()])) };
}

test(
  'two instances racing to claim the same due deliveries: each is claimed by exactly one while leases are live',
  { skip },
  async () => {
    const { a, b, close } = await twoStores();
    try {
      await subscribe(a, subscription('wh_a', ['pet.created']));
      await subscribe(a, subscription('wh_b', ['pet.created']));
      await createPets(a, 30);
      let nowMs = T0_MS;
      for (let round = 0; round < 4; round++) {
        // Many small claims from both instances at once, until neither finds anything due.
        const claimed = new Map<string, { by: string; delivery: DueDelivery }>();
        for (;;) {
          const claims = await Promise.all(
            Array.from({ length: 6 }, async (_, index) => {
              const [by, store] = index % 2 === 0 ? ['a', a] : ['b', b];
              return { by, due: await store.webhooks.claimDue(nowMs, 4, LEASE_MS, 100, NONE_HELD) };
            }),
          );
          let found = 0;
          for (const { by, due } of claims) {
            for (const delivery of due) {
              const earlier = claimed.get(delivery.deliveryId);
              assert.equal(earlier, undefined, `delivery ${delivery.deliveryId} claimed by ${earlier?.by} and ${by}`);
              claimed.set(delivery.deliveryId, { by, delivery });
              assert.equal(delivery.attemptsMade, round);
              found++;
            }
          }
          if (found === 0) break;
        }
        assert.equal(claimed.size, 60, `round ${round}: every delivery claimed once`);
        assert.equal(new Set([...claimed.values()].map(({ by }) => by)).size, 2, 'both instances took a part');
        // Every attempt fails and is tried again a second later; meanwhile no lease has ended.
        for (const { by, delivery } of claimed.values())
          await (by === 'a' ? a : b).webhooks.finishAttempt(failedAttempt(delivery, nowMs, nowMs + 1000));
        assert.deepEqual(await a.webhooks.claimDue(nowMs + 999, 100, LEASE_MS, 100, NONE_HELD), []);
        assert.equal(await b.webhooks.nextDueMs(), nowMs + 1000);
        nowMs += 1000;
      }
    } finally {
      await close();
    }
  },
);

test(
  'an instance that dies mid-attempt leaves its delivery to be claimed again, by another, when the lease ends',
  { skip },
  async () => {
    const { a, b, close } = await twoStores();
    try {
      await subscribe(a, subscription('wh_a', ['pet.created']));
      await createPets(a, 1);
      const [taken] = await a.webhooks.claimDue(T0_MS, 10, LEASE_MS, 10, NONE_HELD);
      assert.ok(taken !== undefined);
      await a.close(); // It never finishes the attempt.
      assert.deepEqual(await b.webhooks.claimDue(T0_MS + LEASE_MS - 1, 10, LEASE_MS, 10, NONE_HELD), []);
      assert.equal(await b.webhooks.nextDueMs(), T0_MS + LEASE_MS, 'due again when the lease ends');
      const [again] = await b.webhooks.claimDue(T0_MS + LEASE_MS, 10, LEASE_MS, 10, NONE_HELD);
      assert.deepEqual(again, taken, 'the same delivery, no attempt counted');
      await b.webhooks.finishAttempt({
        ...failedAttempt(again, T0_MS + LEASE_MS, null),
        delivered: true,
        failingSinceMs: null,
      });
      assert.equal(await b.webhooks.nextDueMs(), undefined);
      assert.deepEqual(await b.webhooks.stats(), {
        events: 1,
        pending: 0,
        oldestPendingMs: null,
        disabledSubscriptions: 0,
      });
    } finally {
      await close();
    }
  },
);

test(
  'a subscription keeps its newest 1,000 attempts: the listing shows them, and older ones are deleted every few attempts',
  { skip },
  async () => {
    const { url, a, close } = await twoStores();
    try {
      await subscribe(a, subscription('wh_a', ['pet.created']));
      await createPets(a, 1);
      // 999 attempts made before, as the store writes them, then more through finishAttempt.
      await queryRows(
        url,
        `INSERT INTO attempts (id, webhook_id, event_seq, at_ms, delivered, json)
       SELECT 'att_old_' || n, 'wh_a', 1, $1, false, '{"id":"att_old_' || n || '"}' FROM generate_series(1, 999) AS n`,
        [T0_MS],
      );
      const attempt = async (nowMs: number): Promise<void> => {
        const [delivery] = await a.webhooks.claimDue(nowMs, 1, LEASE_MS, 1, NONE_HELD);
        assert.ok(delivery !== undefined);
        await a.webhooks.finishAttempt(failedAttempt(delivery, nowMs, nowMs + 1));
      };
      const oldIds = async (): Promise<string[]> =>
        (await queryRows<{ id: string }>(url, "SELECT id FROM attempts WHERE id LIKE 'att_old_%' ORDER BY seq")).map(
          (row) => row.id,
        );
      for (let n = 1; n <= 2; n++) await attempt(T0_MS + n * LEASE_MS);
      const page = await a.webhooks.pageAttempts('wh_a', undefined, 3);
      assert.equal(page.total, ATTEMPTS_KEPT);
      assert.equal(page.items[0]?.id, `att_1_${T0_MS + 2 * LEASE_MS}`, 'the newest first');
      const all = await a.webhooks.pageAttempts('wh_a', undefined, ATTEMPTS_KEPT + 10);
      assert.equal(all.items.length, ATTEMPTS_KEPT);
      assert.equal(all.items.at(-1)?.id, 'att_old_2', 'the oldest kept last, the one before it not listed');
      assert.equal((await oldIds()).length, 999, 'not deleted yet');
      for (let n = 3; n <= TRIM_EVERY; n++) await attempt(T0_MS + n * LEASE_MS);
      // Deleted with the TRIM_EVERY-th: all but the newest 999 before it, which is the 1,000th.
      const kept = await oldIds();
      assert.equal(kept.length, ATTEMPTS_KEPT - TRIM_EVERY);
      assert.equal(kept[0], `att_old_${TRIM_EVERY}`, 'the oldest forgotten');
      assert.equal(
        Number(
          (await queryRows<{ n: string }>(url, "SELECT count(*) AS n FROM attempts WHERE webhook_id = 'wh_a'"))[0]?.n,
        ),
        ATTEMPTS_KEPT,
      );
      assert.equal((await a.webhooks.pageAttempts('wh_a', undefined, 1)).total, ATTEMPTS_KEPT);
    } finally {
      await close();
    }
  },
);

test(
  'a claim gives each subscription its share, less what the worker holds, the earliest due first',
  { skip },
  async () => {
    const { a, close } = await twoStores();
    try {
      await subscribe(a, subscription('wh_busy', ['pet.created']));
      await createPets(a, 10, T0_MS);
      await subscribe(a, subscription('wh_quiet', ['pet.created']));
      await createPets(a, 2, T0_MS + 10);
      const due = await a.webhooks.claimDue(T0_MS + 10, 100, LEASE_MS, 3, new Map([['wh_busy', 1]]));
      const bySubscription = (id: string): number[] =>
        due.filter((delivery) => delivery.subscriptionId === id).map((delivery) => delivery.event.seq);
      assert.deepEqual(bySubscription('wh_busy'), [1, 2]);
      assert.deepEqual(bySubscription('wh_quiet').sort(), [11, 12]);
      const first = await a.webhooks.claimDue(T0_MS + 10, 1, LEASE_MS, 100, NONE_HELD);
      assert.deepEqual(
        first.map((delivery) => delivery.event.seq),
        [3],
        'the earliest due',
      );
    } finally {
      await close();
    }
  },
);

test(
  'a delivery of a disabled subscription is never claimed, nor one made while it was disabled once it is enabled again',
  { skip },
  async () => {
    const { url, a, close } = await twoStores();
    try {
      await subscribe(a, subscription('wh_a', ['pet.created']));
      await createPets(a, 2);
      const disable = (current: unknown) => ({
        ...(current as NonNullable<Awaited<ReturnType<typeof a.webhooks.getSubscription>>>),
        status: 'disabled' as const,
        disabledReason: 'disabled by its owner',
      });
      await a.webhooks.updateSubscription('wh_a', disable);
      assert.deepEqual(await queryRows(url, 'SELECT count(*)::int AS n FROM deliveries'), [{ n: 0 }]);
      // A change whose statement read the subscription as enabled just before the disable committed.
      await queryRows(
        url,
        "INSERT INTO deliveries (event_seq, webhook_id, next_attempt_at_ms) VALUES (1, 'wh_a', $1)",
        [T0_MS],
      );
      assert.deepEqual(await a.webhooks.claimDue(T0_MS, 10, LEASE_MS, 10, NONE_HELD), []);
      assert.equal(await a.webhooks.nextDueMs(), undefined);
      await a.webhooks.updateSubscription('wh_a', (current) => ({
        ...(current as NonNullable<typeof current>),
        status: 'enabled',
        disabledReason: null,
      }));
      assert.deepEqual(await a.webhooks.claimDue(T0_MS, 10, LEASE_MS, 10, NONE_HELD), []);
      await createPets(a, 1);
      assert.deepEqual(
        (await a.webhooks.claimDue(T0_MS, 10, LEASE_MS, 10, NONE_HELD)).map((delivery) => delivery.event.seq),
        [3],
      );
    } finally {
      await close();
    }
  },
);

test(
  'an instance hears through LISTEN of deliveries another made, of a disable and a delete, and again after losing its connection',
  { skip },
  async () => {
    const { url, a, b, close } = await twoStores();
    let wake: (() => void) | undefined;
    const stop = b.webhooks.watch(() => wake?.());
    /** Resolves the next time `b` is told. */
    const told = (): Promise<void> => new Promise((resolve) => (wake = resolve));
    try {
      await subscribe(a, subscription('wh_a', ['pet.created']));
      const created = told();
      await createPets(a, 1);
      await created;
      // Its listening connection is cut: it listens again, and tells its watchers it may have missed something.
      const relistened = told();
      await queryRows(
        url,
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN%'",
      );
      // A service's server keeps its process up meanwhile; here, a timer does (the store's own is unref'd).
      const keepUp = setInterval(() => {}, 1000);
      await relistened.finally(() => clearInterval(keepUp));
      const disabled = told();
      await a.webhooks.updateSubscription('wh_a', (current) => ({
        ...(current as NonNullable<typeof current>),
        status: 'disabled',
        disabledReason: 'disabled by its owner',
      }));
      await disabled;
      const deleted = told();
      await a.webhooks.deleteSubscription('wh_a', () => {});
      await deleted;
    } finally {
      stop();
      await close();
    }
  },
);

test(
  'migration 3 keeps the pending deliveries of a database at version 2, a running lease included',
  { skip },
  async () => {
    const url = await server.database();
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await migrateTo(client, 2);
      // As the release before wrote them: two subscriptions, an event, a delivery to each, one leased.
      for (const id of ['wh_a', 'wh_b']) {
        await client.query(
          'INSERT INTO webhooks (id, owner_key_id, status, disabled_reason, events, failing_since_ms, json) VALUES ($1, $2, $3, $4, $5, $6, $7)',
          [id, ...subscriptionParams(subscription(id, ['pet.created']))],
        );
      }
      await client.query(
        `INSERT INTO events (seq, type, at_ms, json) VALUES (1, 'pet.created', $1, '{"id":"evt_1","type":"pet.created"}')`,
        [T0_MS],
      );
      await client.query(
        `INSERT INTO deliveries (event_seq, webhook_id, next_attempt_at_ms, lease_until_ms)
         VALUES (1, 'wh_a', $1, $2), (1, 'wh_b', $1, 0)`,
        [T0_MS, T0_MS + LEASE_MS],
      );
    } finally {
      await client.end();
    }
    const store = await openStore(url, new ManualClock(T0_MS));
    try {
      assert.deepEqual(await queryRows(url, 'SELECT max(version) AS version FROM schema_migrations'), [
        { version: SCHEMA_VERSION },
      ]);
      assert.equal(await store.webhooks.nextDueMs(), T0_MS);
      const due = await store.webhooks.claimDue(T0_MS, 10, LEASE_MS, 10, NONE_HELD);
      assert.deepEqual(
        due.map((delivery) => delivery.subscriptionId),
        ['wh_b'],
        'the leased one is not due',
      );
      assert.equal(await store.webhooks.nextDueMs(), T0_MS + LEASE_MS, 'due again when the first lease ends');
      // Both leases end then: the one the release before took, and the one taken now.
      const again = await store.webhooks.claimDue(T0_MS + LEASE_MS, 10, LEASE_MS, 10, NONE_HELD);
      assert.deepEqual(again.map((delivery) => delivery.subscriptionId).sort(), ['wh_a', 'wh_b']);
    } finally {
      await store.close();
    }
  },
);
