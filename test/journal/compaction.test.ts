// Compaction: the log is rewritten to a snapshot of the caller's state plus what was appended after it,
// while appends go on; a crash or power cut at any step leaves a log that loads with every acknowledged record.

import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { StorageUnavailableError } from '../../src/journal/errors.js';
import type { Journal } from '../../src/journal/journal.js';
import type { MemoryFs } from '../../src/journal/memory-fs.js';
import { DATA_DIR, LOG_PATH, openTestJournal, payloadsOnFile } from '../helpers/journal.js';
import { seededRandom } from '../helpers/seeded-random.js';

interface Change {
  id: number;
  version: number;
}

const change = (id: number, version: number) => JSON.stringify({ id, version });

/** The caller's side: a map applied from each record right after its append resolves, as the pet store does. */
class Store {
  readonly state = new Map<number, number>();
  readonly acknowledged: string[] = [];
  readonly #journal: Journal;

  constructor(journal: Journal) {
    this.#journal = journal;
  }

  async write(id: number, version: number): Promise<void> {
    const payload = change(id, version);
    await this.#journal.append(payload);
    this.state.set(id, version);
    this.acknowledged.push(payload);
  }

  snapshot = (): string[] => [...this.state].map(([id, version]) => change(id, version));
}

function stateOf(payloads: string[]): Map<number, number> {
  const state = new Map<number, number>();
  for (const payload of payloads) {
    const { id, version } = JSON.parse(payload) as Change;
    state.set(id, version);
  }
  return state;
}

/** Writes `count` changes to a few ids (so most records are superseded), some a turn apart. */
async function churn(store: Store, count: number, random: () => number, start = 0): Promise<void> {
  const writes: Array<Promise<void>> = [];
  for (let i = start; i < start + count; i += 1) {
    writes.push(store.write(1 + (i % 7), i).catch(() => {}));
    if (random() < 0.3) await new Promise((resolve) => setImmediate(resolve));
  }
  await Promise.all(writes);
}

test('compaction leaves exactly the snapshot, and the log still replays to the same state', async () => {
  const { journal, fs } = await openTestJournal();
  const store = new Store(journal);
  await churn(store, 100, seededRandom(1));
  const before = journal.stats;
  await journal.compact(store.snapshot);
  assert.deepEqual(payloadsOnFile(fs), store.snapshot());
  assert.deepEqual(journal.stats, { bytes: fs.peek(LOG_PATH)!.length, records: 7 });
  assert.ok(journal.stats.bytes < before.bytes);
  assert.deepEqual(fs.list(DATA_DIR).sort(), ['LOCK', 'animals.log']);
  await store.write(3, 1000);
  await journal.close();
  const reopened = await openTestJournal({ fs });
  assert.deepEqual(stateOf(reopened.replayed.payloads), store.state);
  await reopened.journal.close();
});

test('appends made during compaction are kept, each exactly once, after the snapshot', async () => {
  for (let seed = 1; seed <= 20; seed += 1) {
    const random = seededRandom(seed);
    const { journal, fs } = await openTestJournal();
    const store = new Store(journal);
    await churn(store, 50, random);
    let snapshotSize = 0;
    const compaction = journal.compact(() => {
      const payloads = store.snapshot();
      snapshotSize = payloads.length;
      return payloads;
    });
    await churn(store, 60, random, 50);
    await compaction;
    await churn(store, 10, random, 110);
    const onFile = payloadsOnFile(fs);
    assert.deepEqual(stateOf(onFile), store.state, `seed ${seed}`);
    const afterSnapshot = onFile.slice(snapshotSize);
    assert.deepEqual(new Set(afterSnapshot).size, afterSnapshot.length, `seed ${seed}: no record twice`);
    for (const payload of afterSnapshot) assert.ok(store.acknowledged.includes(payload));
    assert.equal(journal.stats.records, onFile.length);
    await journal.close();
  }
});

test('a crash or a power cut at every step of a compaction leaves a log with every acknowledged record', async () => {
  for (let seed = 1; seed <= 3; seed += 1) {
    const random = seededRandom(seed);
    const { journal, fs } = await openTestJournal();
    const store = new Store(journal);
    await churn(store, 40, random);
    const images: Array<{ image: MemoryFs; state: Map<number, number>; kind: string }> = [];
    fs.onCall = (op) => {
      const state = new Map(store.state);
      images.push({ image: fs.processCrashImage(), state, kind: `kill -9 before ${op}` });
      images.push({ image: fs.powerLossImage(), state, kind: `power cut before ${op}` });
      images.push({ image: fs.powerLossImage(random), state, kind: `torn power cut before ${op}` });
    };
    const compaction = journal.compact(store.snapshot);
    await churn(store, 30, random, 40);
    await compaction;
    fs.onCall = undefined;
    await journal.close();
    assert.ok(images.length > 30);
    for (const { image, state, kind } of images) {
      const { journal: restarted, replayed } = await openTestJournal({ fs: image });
      const found = stateOf(replayed.payloads);
      // Every acknowledged change is there, or a later one to the same id that was in flight.
      for (const [id, version] of state) assert.ok((found.get(id) ?? -1) >= version, `seed ${seed}, ${kind}: id ${id}`);
      assert.ok(!image.list(DATA_DIR).includes('animals.log.compacting'), kind);
      await restarted.close();
    }
  }
});

test('a compaction that fails before the rename changes nothing and appends go on', async () => {
  for (const op of ['open', 'write', 'sync', 'close', 'rename'] as const) {
    const { journal, fs } = await openTestJournal();
    const store = new Store(journal);
    await churn(store, 30, seededRandom(2));
    const before = fs.peek(LOG_PATH);
    fs.inject({ op, nth: 1, code: 'ENOSPC' });
    await assert.rejects(
      journal.compact(store.snapshot),
      (e: unknown) => e instanceof StorageUnavailableError && e.code === 'ENOSPC',
    );
    assert.deepEqual(fs.peek(LOG_PATH), before, op);
    assert.deepEqual(fs.list(DATA_DIR).sort(), ['LOCK', 'animals.log'], `${op}: the temporary file is removed`);
    assert.equal(journal.writable, true);
    await store.write(1, 999);
    assert.deepEqual(stateOf(payloadsOnFile(fs)), store.state);
    await journal.close();
  }
});

test('a failed directory fsync after the rename makes the journal verify the new log before writes resume', async () => {
  const { journal, fs, warnings } = await openTestJournal();
  const store = new Store(journal);
  await churn(store, 30, seededRandom(3));
  fs.inject({ op: 'syncDir', nth: 1, code: 'EIO' });
  await assert.rejects(journal.compact(store.snapshot), { name: 'StorageUnavailableError', code: 'EIO' });
  assert.equal(journal.writable, true);
  assert.ok(warnings.some((w) => /reopened and verified/.test(w)));
  assert.deepEqual(payloadsOnFile(fs), store.snapshot());
  await store.write(2, 1000);
  assert.deepEqual(stateOf(payloadsOnFile(fs)), store.state);
  await journal.close();
});

/** After a close stopped a compaction: its temporary log is gone, and the log replays to every acknowledged change. */
async function assertStoppedCompactionLeftLog(fs: MemoryFs, store: Store): Promise<void> {
  assert.equal(fs.peek(`${LOG_PATH}.compacting`), undefined, 'its temporary log is removed');
  const { journal: reopened, replayed } = await openTestJournal({ fs });
  assert.deepEqual(stateOf(replayed.payloads), store.state);
  await reopened.close();
}

test('close during a compaction stops it quietly (no failure to report); nothing acknowledged is lost', async () => {
  const { journal, fs } = await openTestJournal();
  const store = new Store(journal);
  await churn(store, 30, seededRandom(4));
  const compaction = journal.compact(store.snapshot).then(
    () => 'done',
    (e: unknown) => (e as Error).name,
  );
  const writes = churn(store, 10, seededRandom(5), 30);
  await journal.close();
  await writes;
  assert.equal(await compaction, 'done');
  await assertStoppedCompactionLeftLog(fs, store);
});

test('a close while a compaction is writing its new log stops it quietly, and removes that log', async () => {
  const { journal, fs } = await openTestJournal();
  const store = new Store(journal);
  await churn(store, 30, seededRandom(7));
  let writing!: () => void;
  const begun = new Promise<void>((resolve) => (writing = resolve));
  // A snapshot slow enough to be written in several slices (the rewrite rests between them).
  function* slowly(payloads: string[]): Generator<string> {
    for (let index = 0; index < 200; index++) {
      writing();
      const until = performance.now() + 0.05;
      while (performance.now() < until);
      yield payloads[index % payloads.length] as string;
    }
  }
  const compaction = journal.compact(() => slowly(store.snapshot()));
  await begun;
  await journal.close();
  assert.equal(await compaction, undefined, 'it resolves: the old log stays the log');
  await assertStoppedCompactionLeftLog(fs, store);
});

test('compactions asked for at once run one after the other', async () => {
  const { journal, fs } = await openTestJournal();
  const store = new Store(journal);
  await churn(store, 30, seededRandom(6));
  await Promise.all([journal.compact(store.snapshot), journal.compact(store.snapshot), store.write(1, 500)]);
  assert.deepEqual(stateOf(payloadsOnFile(fs)), store.state);
  await journal.close();
});

test('compaction is refused while the journal is read-only', async () => {
  const { journal, fs } = await openTestJournal();
  fs.inject({ op: 'datasync', nth: 1, code: 'EIO', persistent: true });
  await assert.rejects(journal.append(change(1, 1)));
  await assert.rejects(
    journal.compact(() => []),
    StorageUnavailableError,
  );
  fs.clearFaults();
  await journal.close();
});

test('compaction finishes under a stream of appends that never lets the writer idle', async () => {
  const { journal, fs } = await openTestJournal();
  const store = new Store(journal);
  let done = false;
  let version = 0;
  // Each producer appends again as soon as its last append resolved, all within microtasks.
  const producer = async (id: number) => {
    while (!done) {
      version += 1;
      await store.write(id, version);
    }
  };
  const producers = [1, 2, 3, 4].map(producer);
  await journal.compact(store.snapshot);
  done = true;
  await Promise.all(producers);
  assert.deepEqual(stateOf(payloadsOnFile(fs)), store.state);
  await journal.close();
});

test('a snapshot callback that throws fails the compaction with its own error; writes go on', async () => {
  const { journal, fs } = await openTestJournal();
  const store = new Store(journal);
  await store.write(1, 1);
  await assert.rejects(
    journal.compact(() => {
      throw new RangeError('bug in snapshot');
    }),
    RangeError,
  );
  await assert.rejects(
    journal.compact(() => ['{"a":\n1}']),
    TypeError,
  );
  await store.write(1, 2);
  assert.deepEqual(stateOf(payloadsOnFile(fs)), store.state);
  assert.deepEqual(fs.list(DATA_DIR).sort(), ['LOCK', 'animals.log']);
  await journal.close();
});
