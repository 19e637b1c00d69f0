// The log is compacted while orders churn; creates and reads keep working, the log
// shrinks, and a restart replays to exactly the state that was served.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { call, createPet, startServer } from '../helpers/server.js';

test('order churn is compacted in the background while writes and reads go on', { timeout: 60_000 }, async () => {
  const server = await startServer({ onDisk: true, compactMinRecords: 50, durability: 'always' });
  const dataDir = server.dataDir as string;
  let writes = 0;
  try {
    const pets = [];
    for (let index = 0; index < 10; index++)
      pets.push(await createPet(server, { name: `churn ${index}`, categoryId: 1 }));
    writes += pets.length;
    await Promise.all(
      pets.map(async (pet) => {
        for (let round = 0; round < 30; round++) {
          const placed = await call(server, 'POST', '/v1/store/orders', { json: { petId: pet.id } });
          assert.equal(placed.status, 201);
          const cancelled = await call(server, 'DELETE', `/v1/store/orders/${(placed.json as { id: number }).id}`);
          assert.equal(cancelled.status, 200);
          assert.equal((await call(server, 'GET', `/v1/pets/${pet.id}`)).status, 200);
          writes += 2;
        }
      }),
    );
    const served = await call(server, 'GET', '/v1/store/orders?limit=100');
    assert.equal(served.headers['x-total-count'], '300');
    await server.app.close();
    const lines = (await readFile(join(dataDir, 'animals.log'), 'utf8'))
      .split('\n')
      .filter((line) => line.length > 0).length;
    assert.ok(lines < writes, `the log was compacted: ${lines} records for ${writes} writes`);
    assert.ok(lines >= 310, 'every pet and order is still there');

    const again = await startServer({ dataDir });
    try {
      const pets2 = await call(again, 'GET', '/v1/pets?status=available&limit=100');
      assert.equal(pets2.headers['x-total-count'], '10');
      const orders = await call(again, 'GET', '/v1/store/orders?status=cancelled&limit=1');
      assert.equal(orders.headers['x-total-count'], '300');
      assert.equal((await call(again, 'GET', `/v1/store/orders/${300}`)).status, 200);
    } finally {
      await again.close();
    }
  } finally {
    await server.close().catch(() => {});
  }
});
