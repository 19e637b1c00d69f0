// Ids continue after the highest id ever written, also one in a torn last record: under
// durability "interval" or "never" that record's change may have been acknowledged. A torn order
// record holds back an order id, a torn pet record a pet id, and neither touches the other's sequence.
import assert from 'node:assert/strict';
import { appendFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { encodeRecord } from '../../src/journal/log-format.js';
import { storedOrder } from '../../src/orders/stored-order.js';
import { storedPet } from '../../src/pets/stored-pet.js';
import { encodeChange, idsInTornRecord } from '../../src/store/embedded/records.js';
import { call, startServer } from '../helpers/server.js';

const tornOrder = encodeRecord(
  encodeChange({
    op: 'order',
    order: storedOrder(7, 1, 'placed', '2027-01-01T00:00:00.000Z'),
    pet: storedPet(1, 'Rex', 1, 'pending'),
  }),
);
const tornPet = encodeRecord(encodeChange({ op: 'pet', pet: storedPet(9, 'Tom', 1, 'available') }));

test('the id a torn record may have assigned is read by its kind', () => {
  assert.deepEqual(idsInTornRecord(tornOrder.slice(0, -5)), { orderId: 7 });
  assert.deepEqual(idsInTornRecord(tornPet.slice(0, -5)), { petId: 9 });
  assert.deepEqual(idsInTornRecord(tornPet.slice(0, 20)), {}, 'cut before the id: nothing to hold back');
  assert.deepEqual(idsInTornRecord('\u0000\u0000\u0000'), {});
});

for (const [kind, record, expected] of [
  ['order', tornOrder, { pet: 2, order: 8 }],
  ['pet', tornPet, { pet: 10, order: 2 }],
] as const) {
  test(`after a torn ${kind} record, the next ${kind} id follows it and the other sequence is untouched`, async () => {
    const first = await startServer({ onDisk: true });
    const dataDir = first.dataDir as string;
    try {
      assert.equal((await call(first, 'POST', '/v1/pets', { json: { name: 'Rex', categoryId: 1 } })).status, 201);
      assert.equal((await call(first, 'POST', '/v1/store/orders', { json: { petId: 1 } })).status, 201);
      assert.equal((await call(first, 'PATCH', '/v1/store/orders/1', { json: { status: 'cancelled' } })).status, 200);
      await first.app.close();
      // The record is cut in its last bytes, as a power cut in the middle of the write would leave it.
      await appendFile(join(dataDir, 'animals.log'), record.slice(0, -5));
      const second = await startServer({ dataDir });
      try {
        const pet = await call(second, 'POST', '/v1/pets', { json: { name: 'Next', categoryId: 1 } });
        assert.equal((pet.json as { id: number }).id, expected.pet);
        const order = await call(second, 'POST', '/v1/store/orders', { json: { petId: 1 } });
        assert.equal(order.status, 201, order.text);
        assert.equal((order.json as { id: number }).id, expected.order);
      } finally {
        await second.close();
      }
    } finally {
      await first.close();
    }
  });
}

test('an id in torn bytes that no whole record could hold is noise: ids go on from the last whole record', async () => {
  const first = await startServer({ onDisk: true });
  const dataDir = first.dataDir as string;
  try {
    assert.equal((await call(first, 'POST', '/v1/pets', { json: { name: 'Rex', categoryId: 1 } })).status, 201);
    await first.app.close();
    const far = encodeRecord(encodeChange({ op: 'pet', pet: storedPet(2 ** 53 - 1, 'Far', 1, 'available') }));
    await appendFile(join(dataDir, 'animals.log'), far.slice(0, -5));
    const second = await startServer({ dataDir });
    try {
      const pet = await call(second, 'POST', '/v1/pets', { json: { name: 'Next', categoryId: 1 } });
      assert.equal(pet.status, 201, pet.text);
      assert.equal((pet.json as { id: number }).id, 2);
    } finally {
      await second.close();
    }
  } finally {
    await first.close();
  }
});
