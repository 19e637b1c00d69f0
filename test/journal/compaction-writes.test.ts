// How a compaction writes its new log: the batches flushed while the snapshot was written are copied
// in one write, not one each, and the new log is synced before the writer pauses for the last
// batches, so that the pause (appends waiting, unanswered) has only those left to sync.

import { strict as assert } from 'node:assert';
import { test } from 'node:test';
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
