// The status an answer is remembered with is what its replay is answered with, on both stores: the
// embedded one (also after its journal is replayed at the next start) and PostgreSQL. Remembered here
// as 202, and replayed as 202 to a request that would be answered 201.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { ManualClock } from '../../src/core/clock.js';
import { Idempotency } from '../../src/idempotency/idempotency.js';
import { openEmbeddedStore } from '../../src/store/embedded/open-embedded-store.js';
import { openPostgresStore } from '../../src/store/postgres/open-postgres-store.js';
import type { Store } from '../../src/store/store.js';
import { createTestDatabase, postgresSkipReason } from '../helpers/postgres.js';

const clock = new ManualClock(Date.UTC(2027, 0, 1));
const SCOPE = 'key_1 POST /pets';
const NEW_PET = { name: 'Queued', categoryId: 1 };

/** Creates a pet under `key`, remembering its answer as `status`. */
async function rememberAs(store: Store, key: string, status: number): Promise<void> {
  const idempotency = new Idempotency(store.idempotency, clock);
  const arrival = await idempotency.arrive(SCOPE, key, status);
  await idempotency.run(arrival, NEW_PET, (record) =>
    store.createPet({ ...NEW_PET, status: 'available' }, clock.now(), record),
  );
  await arrival.leave();
}

/** The status a repeat under `key` (which would itself be answered 201) is replayed with. */
async function replayedStatus(store: Store, key: string): Promise<number | undefined> {
  const idempotency = new Idempotency(store.idempotency, clock);
  const arrival = await idempotency.arrive(SCOPE, key, 201);
  const outcome = await idempotency.run(arrival, NEW_PET, () => assert.fail('carried out twice'));
  await arrival.leave();
  assert.equal(outcome.replayed, true);
  return arrival.replayedStatus;
}

test('the embedded store replays the status it remembered, also from its journal after a restart', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'animal-store-status-'));
  const open = () =>
    openEmbeddedStore({
      dataDir,
      clock,
      durability: 'always',
      fsyncIntervalMs: 1000,
      compactMinRecords: 1000,
      warn: () => {},
    });
  try {
    const first = await open();
    await rememberAs(first, 'queued', 202);
    assert.equal(await replayedStatus(first, 'queued'), 202);
    await first.close();
    const reopened = await open();
    assert.equal(await replayedStatus(reopened, 'queued'), 202, 'read back from the journal');
    await reopened.close();
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
});

const skip = await postgresSkipReason();

test('the PostgreSQL store replays the status it remembered', { skip }, async () => {
  const database = await createTestDatabase();
  try {
    const store = await openPostgresStore({ databaseUrl: database.url, poolSize: 2, clock, warn: () => {} });
    try {
      await rememberAs(store, 'queued', 202);
      assert.equal(await replayedStatus(store, 'queued'), 202);
    } finally {
      await store.close();
    }
  } finally {
    await database.drop();
  }
});
