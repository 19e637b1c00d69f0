// The log is compacted while orders churn; creates and reads keep working, the log shrinks, and a
// restart replays to exactly the state that was served. Every change records events, which the log
// keeps for the retention period: it can shrink only once they are forgotten. So the churn runs
// through the service layer on the embedded store, and the events are purged as it goes, as the
// retention job does once they are past retention (here: as if the retention were zero).
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { systemClock } from '../../src/core/clock.js';
import { createService } from '../../src/service/service.js';
import { openEmbeddedStore } from '../../src/store/embedded/open-embedded-store.js';

const open = (dataDir: string, compactMinRecords: number) =>
  openEmbeddedStore({
    dataDir,
    clock: systemClock,
    durability: 'always',
    fsyncIntervalMs: 1000,
    compactMinRecords,
    warn: (line) => assert.fail(`unexpected warning: ${line}`),
  });

test('order churn is compacted in the background while writes and reads go on', { timeout: 120_000 }, async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'animal-store-compaction-'));
  const store = await open(dataDir, 50);
  let compactions = 0;
  store.journalWatch?.listen({ synced: () => {}, compacted: () => compactions++ });
  const service = createService(store, systemClock);
  let writes = 0;
  try {
    const pets = [];
    for (let index = 0; index < 10; index++)
      pets.push(await service.pets.create({ name: `churn ${index}`, categoryId: 1 }));
    writes += pets.length;
    await Promise.all(
      pets.map(async (pet) => {
        for (let round = 0; round < 30; round++) {
          const placed = await service.orders.place({ petId: pet.id });
          const cancelled = await service.orders.cancel(placed.id);
          assert.equal(cancelled.status, 'cancelled');
          assert.equal((await service.pets.get(pet.id)).id, pet.id);
          await store.webhooks.purge(systemClock.now() + 1);
          writes += 3;
        }
      }),
    );
    const served = await service.orders.list({ status: undefined, limit: 100, cursor: undefined });
    assert.equal(served.total, 300);
    assert.ok(compactions > 0, 'compacted while the churn went on');
    await store.close();
    const lines = (await readFile(join(dataDir, 'animals.log'), 'utf8'))
      .split('\n')
      .filter((line) => line.length > 0).length;
    assert.ok(lines < writes, `the log was compacted: ${lines} records for ${writes} writes`);
    assert.ok(lines >= 310, 'every pet and order is still there');

    const again = await open(dataDir, 50);
    try {
      const reopened = createService(again, systemClock);
      assert.equal((await reopened.pets.list({ status: 'available', limit: 100, cursor: undefined })).total, 10);
      assert.equal((await reopened.orders.list({ status: 'cancelled', limit: 1, cursor: undefined })).total, 300);
      assert.equal((await reopened.orders.get(300)).id, 300);
      assert.deepEqual([...again.state.orders.values()], [...store.state.orders.values()]);
      assert.deepEqual([...again.state.pets.values()], [...store.state.pets.values()]);
    } finally {
      await again.close();
    }
  } finally {
    await store.close();
    await rm(dataDir, { recursive: true, force: true });
  }
});
