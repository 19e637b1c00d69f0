// A disable racing an attempt's outcome on PostgreSQL, each holding the delivery's row while the other
// waits for it: whichever commits first, the attempts listing ends up announcing exactly the retries
// that will be made, as the embedded store's one writer decides it. The disable is its owner's, or an
// attempt's own (a 410 from the receiver).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { ManualClock } from '../../src/core/clock.js';
import type { PostgresStore } from '../../src/store/postgres/postgres-store.js';
import type { DueDelivery, Subscription } from '../../src/store/webhook-store.js';
import { type EventsServer, eventsServerSkipReason, openEventsServer } from '../helpers/postgres-events.js';
import {
  createPets,
  failedAttempt,
  openStore,
  subscribe,
  subscription,
  T0_MS,
} from '../helpers/postgres-webhook-store.js';

const skip = await eventsServerSkipReason();
let server: EventsServer;
before(async () => {
  if (skip === undefined) server = await openEventsServer();
});
after(() => server?.close());

const LEASE_MS = 60_000;
const RETRY_MS = 5000;

const disable = (current: Subscription | undefined): Subscription => ({
  ...(current as Subscription),
  status: 'disabled',
  disabledReason: 'paused by its owner',
});

/** A store with one subscription whose one delivery failed once at T0 and is claimed again (`again`). */
async function failedOnce(): Promise<{
  store: PostgresStore;
  client: pg.Client;
  again: DueDelivery;
  close(): Promise<void>;
}> {
  const url = await server.database();
  const store = await openStore(url, new ManualClock(T0_MS));
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await subscribe(store, subscription('wh_a', ['pet.created']));
  await createPets(store, 1);
  const [first] = await store.webhooks.claimDue(T0_MS, 10, LEASE_MS, 10, new Map());
  assert.ok(first !== undefined);
  await store.webhooks.finishAttempt(failedAttempt(first, T0_MS, T0_MS + RETRY_MS));
  const [again] = await store.webhooks.claimDue(T0_MS + RETRY_MS, 10, LEASE_MS, 10, new Map());
  assert.ok(again !== undefined);
  return { store, client, again, close: async () => void (await Promise.allSettled([client.end(), store.close()])) };
}

/** Resolves once a statement of another connection waits for a lock that `client`'s transaction holds. */
async function untilWaitingForLock(client: pg.Client): Promise<void> {
  for (;;) {
    // Within a transaction, the activity view is read once unless told to read it again.
    await client.query('SELECT pg_stat_clear_snapshot()');
    const { rows } = await client.query(
      "SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'",
    );
    if (rows.length > 0) return;
    await new Promise((done) => setTimeout(done, 10));
  }
}

/** Each attempt as `status nextAttemptAt`, newest first. */
async function listed(store: PostgresStore): Promise<string[]> {
  const { items } = await store.webhooks.pageAttempts('wh_a', undefined, 10);
  return items.map((item) => {
    const attempt = JSON.parse(item.json) as { status: number; nextAttemptAt: string | null };
    return `${attempt.status} ${attempt.nextAttemptAt}`;
  });
}

const RETRY_AT = new Date(T0_MS + RETRY_MS).toISOString();

test(
  'a disable that holds the delivery first: the attempt under way finds it gone, and announces no retry',
  { skip },
  async () => {
    const { store, client, again, close } = await failedOnce();
    try {
      // The disable's transaction, paused after it deleted the delivery: the outcome's update waits for it.
      await client.query('BEGIN');
      await client.query("UPDATE webhooks SET status = 'disabled' WHERE id = 'wh_a'");
      await client.query("DELETE FROM deliveries WHERE webhook_id = 'wh_a'");
      const outcome = store.webhooks.finishAttempt(failedAttempt(again, T0_MS + RETRY_MS, T0_MS + 2 * RETRY_MS));
      await untilWaitingForLock(client);
      await client.query('COMMIT');
      await outcome;
      assert.deepEqual(await listed(store), ['503 null', `503 ${RETRY_AT}`]);
    } finally {
      await close();
    }
  },
);

test(
  'an outcome that holds the delivery first: the disable waits for it, then takes back the retry it recorded',
  { skip },
  async () => {
    const { store, client, again, close } = await failedOnce();
    try {
      // The outcome's transaction, paused after it moved the delivery on and recorded the attempt.
      await client.query('BEGIN');
      await client.query(
        'UPDATE deliveries SET attempts_made = attempts_made + 1, next_attempt_at_ms = $1, lease_until_ms = 0 WHERE id = $2',
        [T0_MS + 2 * RETRY_MS, again.deliveryId],
      );
      await client.query(
        `INSERT INTO attempts (id, webhook_id, event_seq, at_ms, delivered, json)
       SELECT 'att_second', webhook_id, event_seq, at_ms + $1, false, replace(json, id, 'att_second') FROM attempts`,
        [RETRY_MS],
      );
      const disabling = store.webhooks.updateSubscription('wh_a', disable);
      await untilWaitingForLock(client);
      await client.query('COMMIT');
      await disabling;
      // The second attempt, recorded with a retry, is the newest: the disable took that retry back.
      assert.deepEqual(await listed(store), ['503 null', `503 ${RETRY_AT}`]);
    } finally {
      await close();
    }
  },
);

test(
  "an attempt's 410 that disables while another delivery's retry holds its row: the disable takes that retry back",
  { skip },
  async () => {
    const url = await server.database();
    const store = await openStore(url, new ManualClock(T0_MS));
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await subscribe(store, subscription('wh_a', ['pet.created']));
      await createPets(store, 2);
      const first = await store.webhooks.claimDue(T0_MS, 10, LEASE_MS, 10, new Map());
      assert.equal(first.length, 2);
      for (const delivery of first)
        await store.webhooks.finishAttempt(failedAttempt(delivery, T0_MS, T0_MS + RETRY_MS));
      const [gone, retried] = await store.webhooks.claimDue(T0_MS + RETRY_MS, 10, LEASE_MS, 10, new Map());
      assert.ok(gone !== undefined && retried !== undefined);
      // The other delivery's outcome, paused after it moved its delivery on and recorded its attempt.
      await client.query('BEGIN');
      await client.query(
        'UPDATE deliveries SET attempts_made = attempts_made + 1, next_attempt_at_ms = $1, lease_until_ms = 0 WHERE id = $2',
        [T0_MS + 2 * RETRY_MS, retried.deliveryId],
      );
      const retriedAttempt = failedAttempt(retried, T0_MS + RETRY_MS + 1, T0_MS + 2 * RETRY_MS);
      await client.query(
        `INSERT INTO attempts (id, webhook_id, event_seq, at_ms, delivered, json) VALUES ($1, 'wh_a', $2, $3, false, $4)`,
        [
          retriedAttempt.attempt.id,
          retried.event.seq,
          T0_MS + RETRY_MS + 1,
          JSON.stringify({ id: retriedAttempt.attempt.id, status: 503, nextAttemptAt: new Date(T0_MS + 2 * RETRY_MS) }),
        ],
      );
      const goneAttempt = failedAttempt(gone, T0_MS + RETRY_MS, null);
      const disabling = store.webhooks.finishAttempt({
        ...goneAttempt,
        attempt: { ...goneAttempt.attempt, status: 410 },
        disableReason: 'the endpoint answered 410 Gone',
      });
      await untilWaitingForLock(client);
      await client.query('COMMIT');
      await disabling;
      // Nothing more will be tried: neither delivery's newest attempt announces a next one (the first
      // ones announce the second, which was made).
      const retry = new Date(T0_MS + RETRY_MS).toISOString();
      assert.deepEqual(await listed(store), ['503 null', '410 null', `503 ${retry}`, `503 ${retry}`]);
      assert.equal((await store.webhooks.getSubscription('wh_a'))?.status, 'disabled');
    } finally {
      await Promise.allSettled([client.end(), store.close()]);
    }
  },
);

test(
  "a disable after the lease of an attempt under way ran out (its instance was killed): that attempt's time is taken back",
  { skip },
  async () => {
    const url = await server.database();
    const clock = new ManualClock(T0_MS);
    const store = await openStore(url, clock);
    try {
      await subscribe(store, subscription('wh_a', ['pet.created']));
      await createPets(store, 1);
      const [first] = await store.webhooks.claimDue(T0_MS, 10, LEASE_MS, 10, new Map());
      assert.ok(first !== undefined);
      await store.webhooks.finishAttempt(failedAttempt(first, T0_MS, T0_MS + RETRY_MS));
      // Claimed again by an instance that is then killed: nobody records that attempt.
      assert.equal((await store.webhooks.claimDue(T0_MS + RETRY_MS, 10, LEASE_MS, 10, new Map())).length, 1);
      clock.advance(RETRY_MS + LEASE_MS + 1);
      await store.webhooks.updateSubscription('wh_a', disable);
      assert.deepEqual(await listed(store), ['503 null']);
    } finally {
      await store.close();
    }
  },
);
