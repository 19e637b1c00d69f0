import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PetStore, storedPet, type ChangeLog } from '../../src/pets/pet-store.js';
import { firstAfter, insertId, removeId } from '../../src/pets/sorted-ids.js';

test('firstAfter finds the first id above the cursor by binary search', () => {
  const ids = [2, 4, 6, 8];
  assert.equal(firstAfter(ids, 0), 0);
  assert.equal(firstAfter(ids, 4), 2);
  assert.equal(firstAfter(ids, 5), 2);
  assert.equal(firstAfter(ids, 8), 4);
  assert.equal(firstAfter([], 3), 0);
});

test('insertId and removeId keep the index ascending and free of duplicates', () => {
  const ids: number[] = [];
  for (const id of [5, 1, 9, 3, 5, 7]) insertId(ids, id);
  assert.deepEqual(ids, [1, 3, 5, 7, 9]);
  removeId(ids, 5);
  removeId(ids, 4);
  assert.deepEqual(ids, [1, 3, 7, 9]);
});

test('ids are assigned 1, 2, 3 and a pet serialises in the contract key order', async () => {
  const store = new PetStore();
  const first = await store.create({ name: 'Rex', categoryId: 3 });
  const second = await store.create({ name: 'Tom', categoryId: 1, status: 'sold' });
  assert.equal(first.json, '{"id":1,"name":"Rex","categoryId":3,"status":"available"}');
  assert.equal(second.id, 2);
  assert.deepEqual(JSON.parse(second.json), { id: 2, name: 'Tom', categoryId: 1, status: 'sold' });
});

test('pages follow the cursor in ascending id order, per status, with the total', async () => {
  const store = new PetStore();
  for (let index = 0; index < 25; index++) await store.create({ name: `p${index}`, categoryId: 1, status: index % 3 === 0 ? 'sold' : 'available' });
  const first = store.page(undefined, 0, 10);
  assert.deepEqual(first.pets.map((pet) => pet.id), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  assert.equal(first.more, true);
  assert.equal(first.total, 25);
  const last = store.page(undefined, 20, 10);
  assert.deepEqual(last.pets.map((pet) => pet.id), [21, 22, 23, 24, 25]);
  assert.equal(last.more, false);
  const sold = store.page('sold', 4, 3);
  assert.deepEqual(sold.pets.map((pet) => pet.id), [7, 10, 13]);
  assert.equal(sold.total, 9);
  assert.equal(store.page('pending', 0, 5).total, 0);
});

test('a pet becomes visible only after the log accepted it, and a failed write burns its id', async () => {
  let fail = true;
  let release: () => void = () => {};
  const log: ChangeLog = {
    append: () => fail ? Promise.reject(new Error('disk full')) : new Promise<void>((resolve) => { release = resolve; }),
  };
  const store = new PetStore(log);
  await assert.rejects(store.create({ name: 'a', categoryId: 1 }), /disk full/);
  assert.equal(store.count(), 0);
  fail = false;
  const pending = store.create({ name: 'b', categoryId: 1 });
  await Promise.resolve();
  assert.equal(store.count(), 0, 'not visible before the log accepted it');
  release();
  const pet = await pending;
  assert.equal(pet.id, 2, 'the failed id 1 is never reused');
  assert.equal(store.get(2)?.name, 'b');
});

test('put moves a pet between status indexes and noteId keeps ids ahead', () => {
  const store = new PetStore();
  store.put(storedPet(4, 'x', 1, 'available'));
  store.put(storedPet(4, 'x', 1, 'pending'));
  assert.equal(store.count('available'), 0);
  assert.equal(store.count('pending'), 1);
  assert.equal(store.count(), 1);
  assert.equal(store.nextId, 5);
  store.noteId(10);
  assert.equal(store.nextId, 11);
  assert.deepEqual([...store.records()], ['{"op":"pet","pet":{"id":4,"name":"x","categoryId":1,"status":"pending"}}']);
});
