// Idempotency-Key claims on PostgreSQL, shared by instances (docs/scaling.md): a claim made by a live
// instance holds against every other until it is released or its lease ends; one left by an instance
// that died is free at once, since the server let go of the dead instance's life lock with its
// connection. A claim in the form of an earlier release (no instance named) waits for its lease.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ManualClock } from '../../src/core/clock.js';
import type { PostgresStore } from '../../src/store/postgres/postgres-store.js';
import { openStore, T0_MS } from '../helpers/postgres-webhook-store.js';
import { createTestDatabase, postgresSkipReason, queryRows } from '../helpers/postgres.js';

const skip = await postgresSkipReason();
let url = '';
let drop: () => Promise<void> = async () => {};
const LEASE_MS = 120_000;

before(async () => {
  if (skip !== undefined) return;
  ({ url, drop } = await createTestDatabase());
});
after(async () => {
  if (skip !== undefined) return;
  await drop();
});

test('a claim holds while its instance lives, and is free as soon as the instance is gone', { skip }, async () => {
  const clock = new ManualClock(T0_MS);
  const a = await openStore(url, clock);
  const b = await openStore(url, clock);
  let aOpen = true;
  try {
    assert.equal(await a.idempotency.claim('key_1 POST /pets', 'k1', 'a-1', T0_MS, T0_MS + LEASE_MS), true);
    assert.equal(await b.idempotency.claim('key_1 POST /pets', 'k1', 'b-1', T0_MS, T0_MS + LEASE_MS), false);
    // Released by its request: free for the next.
    await a.idempotency.release('key_1 POST /pets', 'k1', 'a-1');
    assert.equal(await b.idempotency.claim('key_1 POST /pets', 'k1', 'b-1', T0_MS, T0_MS + LEASE_MS), true);
    await b.idempotency.release('key_1 POST /pets', 'k1', 'b-1');

    assert.equal(await a.idempotency.claim('key_1 POST /pets', 'k2', 'a-2', T0_MS, T0_MS + LEASE_MS), true);
    // A dies with the claim in hand: nothing releases it, but its connections close.
    await a.close();
    aOpen = false;
    const [row] = await queryRows<{ claimant: string }>(
      url,
      "SELECT claimant FROM idempotency_claims WHERE key = 'k2'",
    );
    assert.match(row?.claimant ?? '', / a-2$/, 'the claim is still in the table');
    assert.equal(await b.idempotency.claim('key_1 POST /pets', 'k2', 'b-2', T0_MS, T0_MS + LEASE_MS), true);
  } finally {
    if (aOpen) await a.close();
    await b.close();
  }
});

test('a claim without an instance (an earlier release) waits for its lease', { skip }, async () => {
  const store: PostgresStore = await openStore(url, new ManualClock(T0_MS));
  try {
    await queryRows(
      url,
      `INSERT INTO idempotency_claims (scope, key, claimant, until_ms) VALUES ('key_1 POST /pets', 'old', 'oldclaimant-1', ${T0_MS + LEASE_MS})`,
    );
    assert.equal(await store.idempotency.claim('key_1 POST /pets', 'old', 'new-1', T0_MS, T0_MS + LEASE_MS), false);
    assert.equal(
      await store.idempotency.claim('key_1 POST /pets', 'old', 'new-1', T0_MS + LEASE_MS, T0_MS + 2 * LEASE_MS),
      true,
      'once its lease is over',
    );
  } finally {
    await store.close();
  }
});
