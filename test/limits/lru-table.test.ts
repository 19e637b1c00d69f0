// The bounded least-recently-used table behind the per-address limit.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LruTable } from '../../src/limits/lru-table.js';

test('past its bound the table evicts the least recently used entry', () => {
  const table = new LruTable<number>(3);
  table.set('a', 1);
  table.set('b', 2);
  table.set('c', 3);
  table.touch('a');
  table.set('d', 4);
  assert.deepEqual([...table.keysOldestFirst()], ['c', 'a', 'd']);
  assert.equal(table.get('b'), undefined);
  assert.equal(table.size, 3);
});

test('setting an existing key updates it and makes it the most recent', () => {
  const table = new LruTable<number>(2);
  table.set('a', 1);
  table.set('b', 2);
  table.set('a', 10);
  table.set('c', 3);
  assert.equal(table.get('a'), 10);
  assert.equal(table.get('b'), undefined);
});

test('get does not change recency; delete and clear keep the list consistent', () => {
  const table = new LruTable<number>(3);
  for (const key of ['a', 'b', 'c']) table.set(key, 0);
  assert.equal(table.get('a'), 0);
  assert.deepEqual([...table.keysOldestFirst()], ['a', 'b', 'c']);
  assert.equal(table.delete('b'), true);
  assert.equal(table.delete('b'), false);
  assert.deepEqual([...table.keysOldestFirst()], ['a', 'c']);
  table.delete('a');
  table.delete('c');
  assert.deepEqual([...table.keysOldestFirst()], []);
  table.set('x', 1);
  table.touch('x');
  table.touch('missing');
  assert.deepEqual([...table.keysOldestFirst()], ['x']);
  table.delete('x');
  assert.equal(table.size, 0);
  table.set('y', 2);
  assert.deepEqual([...table.keysOldestFirst()], ['y']);
});

test('a table of bound 1 keeps only the latest entry', () => {
  const table = new LruTable<string>(1);
  table.set('a', 'A');
  table.set('b', 'B');
  assert.deepEqual([...table.keysOldestFirst()], ['b']);
});

test('a long mixed run keeps the size within the bound and the list in step with the map', () => {
  const table = new LruTable<number>(50);
  let seed = 7;
  for (let i = 0; i < 20_000; i += 1) {
    seed = (seed * 48_271) % 2_147_483_647; // MINSTD: exact in doubles
    const key = `k${seed % 200}`;
    const op = seed % 4;
    if (op === 0) table.delete(key);
    else if (op === 1) table.touch(key);
    else table.set(key, i);
  }
  const keys = [...table.keysOldestFirst()];
  assert.equal(keys.length, table.size);
  assert.ok(table.size <= 50);
  for (const key of keys) assert.notEqual(table.get(key), undefined);
});
