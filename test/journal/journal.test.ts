import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { CorruptLogError, StorageUnavailableError } from '../../src/journal/errors.js';
import { DEFER_MS } from '../../src/journal/journal.js';
import { encodeRecord } from '../../src/journal/log-format.js';
import type { FsOp } from '../../src/journal/memory-fs.js';
import { MemoryFs } from '../../src/journal/memory-fs.js';
import { openJournal } from '../../src/journal/open-journal.js';
import { DATA_DIR, LOG_PATH, openTestJournal, payloadsOnFile, pet } from '../helpers/journal.js';

function countCalls(fs: MemoryFs): Map<FsOp, number> {
  const counts = new Map<FsOp, number>();
  fs.onCall = (op) => counts.set(op, (counts.get(op) ?? 0) + 1);
  return counts;
}

test('opening an empty directory creates it, the lock and an empty log', async () => {
  const { journal, replayed, fs } = await openTestJournal();
  assert.deepEqual(replayed, { payloads: [], records: 0 });
  assert.deepEqual(fs.list(DATA_DIR).sort(), ['LOCK', 'animals.log']);
  assert.equal(fs.peek(`${DATA_DIR}/LOCK`)?.toString(), `${process.pid}\n`);
  assert.equal(journal.writable, true);
  assert.deepEqual(journal.stats, { bytes: 0, records: 0 });
  await journal.close();
  assert.deepEqual(fs.list(DATA_DIR), ['animals.log']);
});

test('appended records are on file in order, and a reopened journal replays them', async () => {
  const { journal, fs } = await openTestJournal();
  await journal.append(pet(1));
  await journal.append(pet(2));
  assert.deepEqual(journal.stats, {
    bytes: Buffer.byteLength(encodeRecord(pet(1)) + encodeRecord(pet(2))),
    records: 2,
  });
  await journal.close();
  const again = await openTestJournal({ fs });
  assert.deepEqual(again.replayed.payloads, [pet(1), pet(2)]);
  assert.deepEqual(again.journal.stats, journal.stats);
  await again.journal.close();
});

test('an acknowledged append under always survives a power loss, even in a brand-new log', async () => {
  const { journal, fs } = await openTestJournal();
  await journal.append(pet(1));
  const after = fs.powerLoss();
  const reopened = await openTestJournal({ fs: after });
  assert.deepEqual(reopened.replayed.payloads, [pet(1)]);
  assert.ok(
    reopened.warnings.some((w) => /stale lock/.test(w)),
    'our own pid in a lock we do not hold is stale',
  );
  await reopened.journal.close();
});

test('concurrent appends share flushes: fewer datasyncs than appends, all resolved, file order = append order', async () => {
  const { journal, fs } = await openTestJournal();
  const counts = countCalls(fs);
  const ids = Array.from({ length: 100 }, (_, i) => i + 1);
  await Promise.all(ids.map((id) => journal.append(pet(id))));
  assert.ok((counts.get('datasync') ?? 0) < ids.length / 2, `datasyncs: ${counts.get('datasync')}`);
  assert.equal(counts.get('datasync'), counts.get('write'), 'one write per flush when no write is short');
  assert.deepEqual(payloadsOnFile(fs), ids.map(pet));
  await journal.close();
});

test("under 'always' each write is its own sync: the log is opened for synced writes", async () => {
  const { journal, fs } = await openTestJournal();
  const seen: FsOp[] = [];
  fs.onCall = (op) => seen.push(op);
  let durableAtResolve: string[] = [];
  await journal.append(pet(1)).then(() => {
    durableAtResolve = payloadsOnFile(fs.powerLossImage());
  });
  assert.deepEqual(seen, ['write', 'datasync'], 'the write carries the datasync; nothing else is called');
  assert.deepEqual(durableAtResolve, [pet(1)], 'durable before the append resolves');
  await journal.close();
});

test("the next batch's write starts before the batch before it resolves", async () => {
  const { journal, fs } = await openTestJournal({ durability: 'never' });
  const resolved: number[] = [];
  const appendTracked = (id: number) => journal.append(pet(id)).then(() => void resolved.push(id));
  const writes: Array<{ content: string[]; resolvedBefore: number[] }> = [];
  let second: Array<Promise<void>> = [];
  fs.onCall = (op) => {
    if (op !== 'write') return;
    writes.push({ content: payloadsOnFile(fs), resolvedBefore: [...resolved] });
    // Two appends arrive while the first batch is being written: as many as that batch, so no wait.
    if (writes.length === 1) second = [appendTracked(3), appendTracked(4)];
  };
  await Promise.all([appendTracked(1), appendTracked(2)]);
  await Promise.all(second);
  assert.equal(writes.length, 2);
  assert.deepEqual(writes[1]?.resolvedBefore, [], 'batch [1, 2] is still unresolved when [3, 4] is written');
  assert.deepEqual(writes[1]?.content, [pet(1), pet(2)]);
  assert.deepEqual(resolved, [1, 2, 3, 4]);
  assert.deepEqual(payloadsOnFile(fs), [1, 2, 3, 4].map(pet));
  await journal.close();
});

test('under load, a flush that leaves less than half a batch queued waits for the event loop to poll again, and the answered clients join', async () => {
  const { journal, fs } = await openTestJournal();
  // What was on file as each write began: one entry per flush.
  const batches: number[] = [];
  let late: Promise<void> | undefined;
  fs.onCall = (op) => {
    if (op !== 'write') return;
    batches.push(payloadsOnFile(fs).length);
    // A fifth write arrives while the first batch is on its way to the disk.
    late ??= journal.append(pet(5));
  };
  const rejoined: Array<Promise<void>> = [];
  // Four clients write at once.
  const first = [1, 2, 3, 4].map((id) =>
    journal.append(pet(id)).then(() => {
      // Each answered client sends its next write at once, as a client under load does; it arrives
      // as I/O does, in a later phase of the event loop.
      setImmediate(() => rejoined.push(journal.append(pet(id + 10))));
    }),
  );
  await Promise.all(first);
  await late;
  while (rejoined.length < 4) await new Promise((resolve) => setImmediate(resolve));
  await Promise.all(rejoined);
  // Without the wait, the fifth write would have gone alone, and the four that follow in a third flush.
  assert.equal(batches.length, 2, `flushes: ${batches.length}`);
  assert.deepEqual(
    payloadsOnFile(fs).map((p) => (JSON.parse(p) as { id: number }).id),
    [1, 2, 3, 4, 5, 11, 12, 13, 14],
  );
  assert.deepEqual(batches, [0, 4], 'the second write found the first batch alone on file');
  await journal.close();
});

test("a deferred append starts no write: it joins the next append's write, synced before either resolves", async (t) => {
  const { journal, fs } = await openTestJournal();
  // The DEFER_MS timer stands still, so that a machine that stalls the test past it cannot flush the
  // deferred append before the check: only another append can.
  t.mock.timers.enable({ apis: ['setTimeout'] });
  const seen: FsOp[] = [];
  fs.onCall = (op) => seen.push(op);
  let deferredDurable: string[] = [];
  const deferred = journal.appendDeferred(pet(1)).then(() => {
    deferredDurable = payloadsOnFile(fs.powerLossImage());
  });
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(seen, [], 'nothing written for the deferred append alone');
  await journal.append(pet(2));
  await deferred;
  assert.deepEqual(seen, ['write', 'datasync'], 'one synced write for both');
  assert.deepEqual(deferredDurable, [pet(1), pet(2)], 'durable before the deferred append resolves, in order');
  t.mock.timers.reset();
  await journal.close();
});

test('a deferred append with no company is written within DEFER_MS; one queued at close is written by close', async () => {
  const { journal, fs } = await openTestJournal();
  const startedMs = performance.now();
  await journal.appendDeferred(pet(1));
  const waitedMs = performance.now() - startedMs;
  // The upper bound only catches a timer never set: a busy machine may run it late.
  assert.ok(waitedMs >= DEFER_MS - 1 && waitedMs < DEFER_MS + 5000, `waited ${waitedMs} ms`);
  const last = journal.appendDeferred(pet(2));
  await journal.close();
  await last;
  assert.deepEqual(payloadsOnFile(fs), [pet(1), pet(2)]);
});

test("under 'never' appends resolve after the write; close fsyncs them", async () => {
  const { journal, fs } = await openTestJournal({ durability: 'never' });
  const counts = countCalls(fs);
  await Promise.all([1, 2, 3].map((id) => journal.append(pet(id))));
  assert.equal(counts.get('datasync') ?? 0, 0);
  assert.deepEqual(fs.powerLossImage().peek(LOG_PATH)?.length, 0);
  await journal.close();
  assert.equal(counts.get('datasync'), 1);
  assert.deepEqual(payloadsOnFile(fs.powerLossImage()), [1, 2, 3].map(pet));
});

test("under 'interval' a timer fsyncs what was written", async () => {
  const { journal, fs } = await openTestJournal({ durability: 'interval', intervalMs: 1 });
  const counts = countCalls(fs);
  await journal.append(pet(1));
  assert.equal(counts.get('datasync') ?? 0, 0);
  for (let i = 0; i < 1000 && (counts.get('datasync') ?? 0) === 0; i += 1) await new Promise((r) => setTimeout(r, 1));
  assert.equal(counts.get('datasync'), 1, 'synced once; idle ticks do not sync again');
  assert.deepEqual(payloadsOnFile(fs.powerLossImage()), [pet(1)]);
  await journal.close();
});

test("under 'interval' a steady stream of appends does not hold off the timer's fsync", async () => {
  const { journal, fs } = await openTestJournal({ durability: 'interval', intervalMs: 5 });
  const counts = countCalls(fs);
  let stop = false;
  // Four clients that each append again as soon as their last append resolves: the queue is never empty for long.
  const client = async (first: number): Promise<void> => {
    for (let id = first; !stop; id += 4) await journal.append(pet(id));
  };
  const clients = [1, 2, 3, 4].map(client);
  for (let i = 0; i < 2000 && (counts.get('datasync') ?? 0) === 0; i += 1) await new Promise((r) => setTimeout(r, 1));
  const syncedUnderLoad = counts.get('datasync') ?? 0;
  stop = true;
  await Promise.all(clients);
  assert.ok(syncedUnderLoad > 0, `no fsync in ${counts.get('write')} writes`);
  await journal.close();
});

test('a torn last record is cut off with a warning naming the file and the byte offset', async () => {
  const fs = new MemoryFs();
  const good = encodeRecord(pet(1));
  fs.setFile(LOG_PATH, good + encodeRecord(pet(2)).slice(0, 10));
  const { journal, replayed, warnings } = await openTestJournal({ fs });
  const offset = Buffer.byteLength(good);
  assert.deepEqual(replayed, {
    payloads: [pet(1)],
    records: 1,
    tornTail: { offset, text: encodeRecord(pet(2)).slice(0, 10) },
  });
  assert.ok(
    warnings.some((w) => w.includes(LOG_PATH) && w.includes(`byte offset ${offset}`)),
    warnings.join('\n'),
  );
  assert.equal(fs.powerLossImage().peek(LOG_PATH)?.toString(), good, 'the cut is durable');
  await journal.append(pet(3));
  await journal.close();
  assert.deepEqual(payloadsOnFile(fs), [pet(1), pet(3)]);
});

test('damage before the tail refuses to open, names file and line, and leaves the file and lock alone', async () => {
  const fs = new MemoryFs();
  const text = encodeRecord(pet(1)) + encodeRecord(pet(2)).replace('pet 2', 'pet X') + encodeRecord(pet(3));
  fs.setFile(LOG_PATH, text);
  await assert.rejects(openTestJournal({ fs }), (error: unknown) => {
    assert.ok(error instanceof CorruptLogError);
    assert.match(error.message, /\/data\/animals\.log: line 2 /);
    return true;
  });
  assert.equal(fs.peek(LOG_PATH)?.toString(), text);
  assert.deepEqual(fs.list(DATA_DIR), ['animals.log'], 'the lock was released');
});

test('a temporary file left by an unfinished compaction is removed at open', async () => {
  const fs = new MemoryFs();
  fs.setFile(LOG_PATH, encodeRecord(pet(1)));
  fs.setFile(`${LOG_PATH}.compacting`, encodeRecord(pet(9)));
  const { journal, replayed, warnings } = await openTestJournal({ fs });
  assert.deepEqual(replayed.payloads, [pet(1)]);
  assert.ok(!fs.list(DATA_DIR).includes('animals.log.compacting'));
  assert.ok(warnings.some((w) => w.includes('compaction')));
  await journal.close();
});

test('after close, appends are refused with StorageUnavailableError; close is idempotent', async () => {
  const { journal } = await openTestJournal();
  const pending = journal.append(pet(1));
  const closed = journal.close();
  assert.equal(journal.writable, false);
  await assert.rejects(
    journal.append(pet(2)),
    (e: unknown) => e instanceof StorageUnavailableError && e.code === 'ECLOSED',
  );
  await pending; // queued before close: flushed by it
  await closed;
  await journal.close();
  await assert.rejects(
    journal.compact(() => []),
    StorageUnavailableError,
  );
});

test('a payload that would break the framing is refused with TypeError', async () => {
  const { journal } = await openTestJournal();
  await assert.rejects(journal.append('{"a":\n1}'), TypeError);
  await assert.rejects(journal.append(''), TypeError);
  await journal.close();
});

test('bad options are TypeErrors naming the option', async () => {
  const fs = new MemoryFs();
  await assert.rejects(openJournal({ dir: '', fs }), /options\.dir/);
  await assert.rejects(openJournal({ dir: DATA_DIR, fs, fileName: '../x' }), /options\.fileName/);
  await assert.rejects(openJournal({ dir: DATA_DIR, fs, durability: 'sometimes' as 'never' }), /options\.durability/);
  await assert.rejects(openJournal({ dir: DATA_DIR, fs, intervalMs: 0 }), /options\.intervalMs/);
});

test('the log can have another name', async () => {
  const { journal, fs } = await openTestJournal({ fileName: 'orders.log' });
  await journal.append(pet(1));
  await journal.close();
  assert.deepEqual(payloadsOnFile(fs, `${DATA_DIR}/orders.log`), [pet(1)]);
});
