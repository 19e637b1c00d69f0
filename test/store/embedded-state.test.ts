import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ManualClock } from '../../src/core/clock.js';
import { storedOrder } from '../../src/orders/stored-order.js';
import { storedPet, withStatus } from '../../src/pets/stored-pet.js';
import { type Change, decodeChange, decodeChangeAt, encodeChange } from '../../src/store/embedded/records.js';
import { type ChangeLog, EmbeddedState } from '../../src/store/embedded/state.js';

const clock = new ManualClock(Date.UTC(2027, 0, 1));
const tag = {
  scope: 'key_1 POST /pets',
  key: 'k1',
  fingerprint: 'f',
  status: 201,
  expiresAtMs: Date.UTC(2027, 0, 2),
};

test('every kind of change survives encode and decode unchanged', () => {
  const changes: Change[] = [
    { op: 'pet', pet: storedPet(1, 'Rex', 2, 'available') },
    { op: 'pet', pet: storedPet(1, 'Rex', 2, 'available'), idem: tag },
    {
      op: 'order',
      order: storedOrder(1, 1, 'placed', '2027-01-01T00:00:00.000Z'),
      pet: storedPet(1, 'Rex', 2, 'pending'),
      idem: { ...tag, key: 'k2' },
    },
    { op: 'order', order: storedOrder(1, 1, 'delivered', '2027-01-01T00:00:00.000Z') },
    { op: 'idem', entry: { ...tag, body: '{"id":1}' } },
  ];
  for (const change of changes) assert.deepEqual(decodeChange(encodeChange(change), 'test'), change);
});

test('records this service does not write are refused, naming where', () => {
  for (const payload of [
    'x',
    '[]',
    '{"op":"drop"}',
    '{"op":"pet","pet":{"id":0,"name":"a","categoryId":1,"status":"available"}}',
    '{"op":"pet","pet":{"id":1,"name":"a","categoryId":1,"status":"lost"}}',
    '{"op":"order","order":{"id":1}}',
    '{"op":"pet","pet":{"id":1,"name":"a","categoryId":1,"status":"sold"},"idem":{"key":1}}',
    '{"op":"idem","idem":{"scope":"s"}}',
    '{"op":"order","order":{"id":1,"petId":1,"status":"placed","createdAt":"x"},"pet":{}}',
  ]) {
    assert.throws(() => decodeChange(payload, 'animals.log record 7'), /animals\.log record 7/, payload);
  }
});

test('a change is applied only after the log accepted it, and not at all when it refused', async () => {
  let release: (() => void) | undefined;
  let refuse = false;
  const log: ChangeLog = {
    append: () =>
      refuse
        ? Promise.reject(new Error('disk full'))
        : new Promise<void>((resolve) => {
            release = resolve;
          }),
  };
  const state = new EmbeddedState(log, clock);
  const pending = state.commit({ op: 'pet', pet: storedPet(state.pets.takeId(), 'a', 1, 'available'), idem: tag });
  await Promise.resolve();
  assert.equal(state.pets.count(), 0);
  assert.equal(state.idempotency.size, 0);
  release?.();
  await pending;
  assert.equal(state.pets.get(1)?.json, '{"id":1,"name":"a","categoryId":1,"status":"available"}');
  assert.equal(state.idempotency.find(tag.scope, tag.key, clock.now())?.fingerprint, 'f');
  refuse = true;
  await assert.rejects(
    state.commit({ op: 'pet', pet: storedPet(state.pets.takeId(), 'b', 1, 'available') }),
    /disk full/,
  );
  assert.equal(state.pets.count(), 1);
  assert.equal(state.pets.takeId(), 3, 'the refused id 2 is never reused');
});

test('an order record moves its pet; the snapshot replays to the same state', async () => {
  const state = new EmbeddedState({ append: () => Promise.resolve() }, clock);
  await state.commit({ op: 'pet', pet: storedPet(1, 'a', 1, 'available') });
  await state.commit({ op: 'pet', pet: storedPet(2, 'b', 1, 'available'), idem: tag });
  await state.commit({ op: 'order', order: storedOrder(1, 1, 'placed', 'now'), pet: storedPet(1, 'a', 1, 'pending') });
  await state.commit({ op: 'order', order: storedOrder(1, 1, 'delivered', 'now'), pet: storedPet(1, 'a', 1, 'sold') });
  assert.equal(state.pets.get(1)?.status, 'sold');
  assert.equal(state.pets.count('available'), 1);
  assert.equal(state.liveRecords, 4);
  const copy = new EmbeddedState({ append: () => Promise.resolve() }, clock);
  for (const record of state.snapshot()) copy.apply(decodeChange(record, 'snapshot'));
  assert.deepEqual([...copy.pets.values()], [...state.pets.values()]);
  assert.deepEqual([...copy.orders.values()], [...state.orders.values()]);
  assert.deepEqual([...copy.idempotency.live(clock.now())], [...state.idempotency.live(clock.now())]);
});

test('remembered answers expire after their time and leave the snapshot', () => {
  const local = new ManualClock(Date.UTC(2027, 0, 1));
  const state = new EmbeddedState({ append: () => Promise.resolve() }, local);
  state.apply({ op: 'idem', entry: { ...tag, body: '{}' } });
  assert.equal(state.snapshot().length, 1);
  local.advance(24 * 60 * 60 * 1000);
  assert.equal(state.snapshot().length, 0);
  assert.equal(state.idempotency.find(tag.scope, tag.key, local.now()), undefined);
  state.apply({ op: 'idem', entry: { ...tag, body: '{}' } });
  assert.equal(state.idempotency.size, 0, 'an expired record is not even kept at replay');
});

test('the fast path of replay reads plain pet records exactly as the full parser would', () => {
  for (const name of ['Rex', 'x","status":"sold"}}', '\\"status\\":\\"pending\\"}', '😀 \u2028 "quoted"', 'a,b']) {
    for (const status of ['available', 'pending', 'sold'] as const) {
      const pet = storedPet(12345, name, 7, status);
      const record = encodeChange({ op: 'pet', pet });
      const decoded = decodeChange(record, 'test');
      assert.deepEqual(decoded, { op: 'pet', pet });
      assert.deepEqual(JSON.parse((decoded as { pet: { json: string } }).pet.json), {
        id: 12345,
        name,
        categoryId: 7,
        status,
      });
      // From the bytes, as replay hands records over, somewhere inside a larger buffer.
      const bytes = Buffer.from(`xx${record}yy`);
      assert.deepEqual(
        decodeChangeAt(bytes, 2, bytes.length - 2, () => 'test'),
        { op: 'pet', pet },
      );
    }
  }
});

test('records the byte path does not recognise are decoded as text, and damage is named', () => {
  const order = encodeChange({
    op: 'order',
    order: storedOrder(4, 9, 'placed', '2026-11-22T10:00:00.000Z'),
    pet: storedPet(9, 'Rex', 1, 'pending'),
  });
  for (const record of [
    order,
    '{"op":"pet","pet":{"id":0012,"name":"Rex","categoryId":1,"status":"sold"}}',
    '{"op":"pet","pet":{"id":1e3,"name":"Rex","categoryId":1,"status":"sold"}}',
    '{"op":"pet","pet":{"id":99999999999999999,"name":"Rex","categoryId":1,"status":"sold"}}',
    '{"op":"pet","pet":{"id":7,"name":"Rex","categoryId":1,"status":"lost"}}',
    '{"op":"pet","pet":{"id":7',
  ]) {
    const bytes = Buffer.from(record);
    let viaText: unknown;
    try {
      viaText = decodeChange(record, 'record 3');
    } catch (error) {
      viaText = error;
    }
    let viaBytes: unknown;
    try {
      viaBytes = decodeChangeAt(bytes, 0, bytes.length, () => 'record 3');
    } catch (error) {
      viaBytes = error;
    }
    assert.deepEqual(viaBytes, viaText, record);
  }
});

test('withStatus changes only the final member, whatever the name holds', () => {
  const pet = storedPet(3, 'ends with "status":"available"}', 2, 'available');
  const sold = withStatus(pet, 'sold');
  assert.equal(sold.status, 'sold');
  assert.deepEqual(JSON.parse(sold.json), {
    id: 3,
    name: 'ends with "status":"available"}',
    categoryId: 2,
    status: 'sold',
  });
  assert.deepEqual(withStatus(sold, 'available'), pet);
});

test('records of the first release, whose Idempotency-Key answers carry a Location, are read as they were written', () => {
  const written =
    '{"op":"pet","pet":{"id":1,"name":"Rex","categoryId":3,"status":"available"},' +
    '"idem":{"scope":"key_1 POST /pets","key":"k1","fingerprint":"f","status":201,"location":"/v1/pets/1","expiresAtMs":1798848000000}}';
  assert.deepEqual(decodeChange(written, 'test'), {
    op: 'pet',
    pet: storedPet(1, 'Rex', 3, 'available'),
    idem: { scope: 'key_1 POST /pets', key: 'k1', fingerprint: 'f', status: 201, expiresAtMs: 1798848000000 },
  });
  assert.throws(() => decodeChange(written.replace('"/v1/pets/1"', '17'), 'record 9'), /record 9/);
});
