import assert from 'node:assert/strict';
import { test } from 'node:test';
import { storedPet } from '../../src/pets/stored-pet.js';
import { PetCollection } from '../../src/store/embedded/indexed-collection.js';
import { firstAfter, insertId, removeId } from '../../src/store/embedded/sorted-ids.js';

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

test('a pet serialises in the contract key order', () => {
  assert.equal(
    storedPet(1, 'Rex "the" dog', 3, 'available').json,
    '{"id":1,"name":"Rex \\"the\\" dog","categoryId":3,"status":"available"}',
  );
});

test('pages follow the cursor in ascending id order, per status, with the total', () => {
  const store = new PetCollection();
  for (let id = 1; id <= 25; id++)
    store.put(storedPet(store.takeId(), `p${id}`, 1, id % 3 === 1 ? 'sold' : 'available'));
  const first = store.page(undefined, 0, 10);
  assert.deepEqual(
    first.items.map((pet) => pet.id),
    [1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
  );
  assert.equal(first.more, true);
  assert.equal(first.total, 25);
  const last = store.page(undefined, 20, 10);
  assert.deepEqual(
    last.items.map((pet) => pet.id),
    [21, 22, 23, 24, 25],
  );
  assert.equal(last.more, false);
  const sold = store.page('sold', 4, 3);
  assert.deepEqual(
    sold.items.map((pet) => pet.id),
    [7, 10, 13],
  );
  assert.equal(sold.total, 9);
  assert.equal(store.page('pending', 0, 5).total, 0);
});

test('a page deep into a million items is found without a scan', () => {
  const store = new PetCollection();
  for (let id = 1; id <= 1_000_000; id++) store.put(storedPet(id, 'x', 1, 'available'));
  const page = store.page('available', 999_990, 20);
  assert.deepEqual(
    page.items.map((pet) => pet.id),
    [999_991, 999_992, 999_993, 999_994, 999_995, 999_996, 999_997, 999_998, 999_999, 1_000_000],
  );
  assert.equal(page.more, false);
});

test('put moves an item between status indexes; ids continue after the highest seen', () => {
  const store = new PetCollection();
  store.put(storedPet(4, 'x', 1, 'available'));
  store.put(storedPet(4, 'x', 1, 'pending'));
  assert.equal(store.count('available'), 0);
  assert.equal(store.count('pending'), 1);
  assert.equal(store.count(), 1);
  assert.equal(store.takeId(), 5);
  store.noteId(10);
  assert.equal(store.nextId, 11);
  assert.deepEqual(
    [...store.values()].map((pet) => pet.status),
    ['pending'],
  );
  assert.throws(() => store.page('lost' as 'sold', 0, 1), TypeError);
});

test('ids that were never stored (failed writes) leave holes that paging steps over', () => {
  const store = new PetCollection();
  for (const id of [1, 2, 5, 6, 9]) store.put(storedPet(id, 'x', 1, 'available'));
  assert.deepEqual(
    store.page(undefined, 0, 2).items.map((pet) => pet.id),
    [1, 2],
  );
  assert.equal(store.page(undefined, 0, 2).more, true);
  assert.deepEqual(
    store.page(undefined, 2, 2).items.map((pet) => pet.id),
    [5, 6],
  );
  const last = store.page(undefined, 6, 2);
  assert.deepEqual(
    last.items.map((pet) => pet.id),
    [9],
  );
  assert.equal(last.more, false);
  assert.equal(store.page(undefined, 5, 3).more, false);
  assert.equal(store.page(undefined, 100, 3).items.length, 0);
  assert.equal(store.count(), 5);
  assert.equal(store.get(3), undefined);
  assert.equal(store.get(1000), undefined);
});
