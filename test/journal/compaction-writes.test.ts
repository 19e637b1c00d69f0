// How a compaction writes its new log: the batches flushed while the snapshot was written are copied
// in one write, not one each, and the new log is synced before the writer pauses for the last
// batches, so that the pause (appends waiting, unanswered) has only those left to sync; and how long
// it rests between its slices.

import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { restIsOver } from '../../src/journal/log-rewrite.js';
import type { FsOp } from '../../src/journal/memory-fs.js';
import { LOG_PATH, openTestJournal, payloadsOnFile } from '../helpers/journal.js';

const TEMP_PATH = `${LOG_PATH}.compacting`;
const record = (id: number, version: number): string => JSON.stringify({ id, version });

test('the batches flushed during a compaction reach the new log in one write, synced before the last ones are copied', async () => {
  const { journal, fs } = await openTestJournal();
  const state = new Map<number, number>();
  const write = async (id: number, version: number): Promise<void> => {
    await journal.append(record(id, version));
    state.set(id, version);
  };
  for (let version = 0; version < 50; version++) await write(version % 5, version);
  const tempOps: FsOp[] = [];
  let logWrites = 0;
  fs.onCall = (op, path) => {
    if (path === TEMP_PATH) tempOps.push(op);
    else if (path === LOG_PATH && op === 'write') logWrites++;
  };
  const compaction = journal.compact(() => [...state].map(([id, version]) => record(id, version)));
  // Batches flushed one after the other while the compaction runs: each its own write to the old log.
  for (let version = 50; version < 90; version++) {
    await write(version % 5, version);
    await new Promise((resolve) => setImmediate(resolve));
  }
  await compaction;
  fs.onCall = undefined;
  assert.ok(logWrites >= 10, `batches flushed during the compaction: ${logWrites}`);
  const synced = tempOps.indexOf('datasync');
  assert.ok(synced > 0, `the new log is synced before its last batches: ${tempOps.join(' ')}`);
  assert.ok(tempOps.lastIndexOf('sync') > synced);
  const writes = tempOps.filter((op) => op === 'write').length;
  assert.ok(writes <= 3, `the snapshot, then the batches in one write, then the last few: ${tempOps.join(' ')}`);
  const onFile = new Map<number, number>();
  for (const payload of payloadsOnFile(fs)) {
    const { id, version } = JSON.parse(payload) as { id: number; version: number };
    onFile.set(id, version);
  }
  assert.deepEqual(onFile, state, 'the new log replays to every acknowledged change');
  await journal.close();
});

test('a rewrite rests three times as long as its slice worked, and on while the event loop stays busy, up to 20 ms', () => {
  // A 2 ms slice: not over before 6 ms, whatever the loop did.
  assert.equal(restIsOver(2, 5.9, 0), false);
  assert.equal(restIsOver(2, 6, 0.49), true, 'a loop with time to spare: over at three times the slice');
  assert.equal(restIsOver(2, 6, 0.5), false, 'a loop busy half the rest or more: the rest goes on');
  assert.equal(restIsOver(2, 19.9, 1), false);
  assert.equal(restIsOver(2, 20, 1), true, 'never past 20 ms');
  // A slice slowed by a garbage collection rests 20 ms at most too.
  assert.equal(restIsOver(15, 20, 0), true);
});
