// Idempotency-Key claims on PostgreSQL, shared by every instance: a claim keeps others out while its
// lease runs and its holder renews it; one that is not renewed (its instance died) lapses at the end of
// its lease; and a renewal that comes after the release does not take the key again.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ManualClock } from '../../src/core/clock.js';
import { CLAIM_LEASE_MS, CLAIM_RENEW_MS } from '../../src/idempotency/idempotency.js';
import { type EventsServer, eventsServerSkipReason, openEventsServer } from '../helpers/postgres-events.js';
import { openStore, T0_MS } from '../helpers/postgres-webhook-store.js';

const skip = await eventsServerSkipReason();
let server: EventsServer;
before(async () => {
  if (skip === undefined) server = await openEventsServer();
});
after(() => server?.close());

const SCOPE = 'key_1 POST /pets';

test(
  'a renewed claim keeps another instance out past its first lease; a released one is not taken again by a late renewal',
  { skip },
  async () => {
    const store = await openStore(await server.database(), new ManualClock(T0_MS));
    try {
      const table = store.idempotency;
      assert.equal(await table.claim(SCOPE, 'k', 'a-1', T0_MS, T0_MS + CLAIM_LEASE_MS), true);
      await table.renew?.(SCOPE, 'k', 'a-1', T0_MS + CLAIM_RENEW_MS + CLAIM_LEASE_MS);
      const pastFirstLease = T0_MS + CLAIM_LEASE_MS + 1;
      assert.equal(await table.claim(SCOPE, 'k', 'b-1', pastFirstLease, pastFirstLease + CLAIM_LEASE_MS), false);
      await table.release(SCOPE, 'k', 'a-1');
      await table.renew?.(SCOPE, 'k', 'a-1', pastFirstLease + CLAIM_LEASE_MS);
      assert.equal(await table.claim(SCOPE, 'k', 'b-1', pastFirstLease, pastFirstLease + CLAIM_LEASE_MS), true);
    } finally {
      await store.close();
    }
  },
);

test(
  'a claim its holder stopped renewing (an instance that died) lapses when its lease ends, and not before',
  { skip },
  async () => {
    const store = await openStore(await server.database(), new ManualClock(T0_MS));
    try {
      const table = store.idempotency;
      assert.equal(await table.claim(SCOPE, 'dead', 'a-1', T0_MS, T0_MS + CLAIM_LEASE_MS), true);
      const justBefore = T0_MS + CLAIM_LEASE_MS - 1;
      assert.equal(await table.claim(SCOPE, 'dead', 'b-1', justBefore, justBefore + CLAIM_LEASE_MS), false);
      const atEnd = T0_MS + CLAIM_LEASE_MS;
      assert.equal(await table.claim(SCOPE, 'dead', 'b-1', atEnd, atEnd + CLAIM_LEASE_MS), true);
    } finally {
      await store.close();
    }
  },
);
