// Fault injection, SQLite style: for N = 1, 2, 3, ... fail the Nth call of an operation, once and from
// then on, with ENOSPC and EIO, and shorten writes. After each run: no unhandled rejection, every
// rejection is a StorageUnavailableError, a resolved append is always on file, a rejected one never.

import { strict as assert } from 'node:assert';
import { after, test } from 'node:test';
import { StorageUnavailableError } from '../../src/journal/errors.js';
import type { Durability, Journal } from '../../src/journal/journal.js';
import type { Fault, FsOp } from '../../src/journal/memory-fs.js';
import { MemoryFs } from '../../src/journal/memory-fs.js';
import { LOG_PATH, openTestJournal, payloadsOnFile, pet } from '../helpers/journal.js';
import { seededRandom } from '../helpers/seeded-random.js';

const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);
process.on('unhandledRejection', onUnhandled);
after(() => process.off('unhandledRejection', onUnhandled));

const ROUNDS = [1, 4, 2, 7, 1, 3, 5];

interface Outcome {
  resolved: string[];
  rejected: string[];
}

/** Rounds of concurrent appends, some issued a turn apart so that flushes overlap with new appends. */
async function drive(journal: Journal, seed: number): Promise<Outcome> {
  const random = seededRandom(seed);
  const outcome: Outcome = { resolved: [], rejected: [] };
  let id = 0;
  for (const size of ROUNDS) {
    const round: Array<Promise<void>> = [];
    for (let i = 0; i < size; i += 1) {
      if (random() < 0.3) await new Promise((resolve) => setImmediate(resolve));
      id += 1;
      const payload = pet(id);
      round.push(
        journal.append(payload).then(
          () => void outcome.resolved.push(payload),
          (error: unknown) => {
            assert.ok(error instanceof StorageUnavailableError, `rejected with ${String(error)}`);
            outcome.rejected.push(payload);
          },
        ),
      );
    }
    await Promise.all(round);
  }
  return outcome;
}

function inOrder(payloads: string[]): string[] {
  return [...payloads].sort((a, b) => (JSON.parse(a) as { id: number }).id - (JSON.parse(b) as { id: number }).id);
}

/** Calls of `op` a fault-free run makes after open, so that N can cover each of them and one more. */
async function callsOf(op: FsOp | 'any', durability: Durability): Promise<number> {
  const { journal, fs } = await openTestJournal({ durability, intervalMs: 60_000 });
  let count = 0;
  fs.onCall = (called) => {
    if (op === 'any' || called === op) count += 1;
  };
  await drive(journal, 1);
  await journal.close();
  return count;
}

async function runWithFault(fault: Fault, durability: Durability, strict: boolean): Promise<void> {
  const label = `${JSON.stringify(fault)} ${durability}`;
  const { journal, fs } = await openTestJournal({ durability, intervalMs: 60_000 });
  fs.inject(fault);
  const outcome = await drive(journal, fault.nth);
  await journal.idle();
  assert.equal(
    outcome.resolved.length + outcome.rejected.length,
    ROUNDS.reduce((a, b) => a + b),
    label,
  );
  if (fault.short === true) assert.deepEqual(outcome.rejected, [], label);
  if (fault.persistent !== true && fault.short !== true)
    assert.equal(journal.writable, true, `${label}: recovers after a single fault`);
  const expected = inOrder(outcome.resolved);
  if (strict) {
    assert.deepEqual(payloadsOnFile(fs), expected, `${label}: the file holds exactly the resolved appends`);
    assert.deepEqual(journal.stats.records, expected.length, label);
  } else {
    const live = new Set(payloadsOnFile(fs));
    for (const payload of expected) assert.ok(live.has(payload), `${label}: resolved ${payload} is on file`);
  }
  // What a restart after a power cut finds: acknowledged records (synced under 'always'), never rejected ones.
  const durable = payloadsOnFile(fs.powerLossImage());
  if (durability === 'always') assert.deepEqual(durable, expected, `${label}: after a power cut`);
  for (const payload of outcome.rejected)
    assert.ok(!durable.includes(payload), `${label}: rejected ${payload} is not durable`);
  // With the disk healthy again, the journal closes cleanly and a restart loads the log.
  fs.clearFaults();
  await journal.close();
  const restarted = await openTestJournal({ fs });
  if (strict) assert.deepEqual(restarted.replayed.payloads, expected, label);
  else for (const payload of expected) assert.ok(restarted.replayed.payloads.includes(payload), label);
  await restarted.journal.close();
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(unhandled, [], `${label}: no unhandled rejection`);
}

for (const durability of ['always', 'interval', 'never'] as const) {
  for (const op of ['write', 'datasync'] as const) {
    test(`${durability}: ENOSPC and EIO on the Nth ${op}, once and from then on`, async () => {
      const calls = await callsOf(op, durability);
      for (let nth = 1; nth <= calls + 1; nth += 1) {
        for (const code of ['ENOSPC', 'EIO']) {
          for (const persistent of [false, true]) await runWithFault({ op, nth, code, persistent }, durability, true);
        }
      }
    });
  }

  test(`${durability}: short writes on the Nth write, once and from then on, lose nothing`, async () => {
    const calls = await callsOf('write', durability);
    for (let nth = 1; nth <= calls + 1; nth += 1) {
      for (const persistent of [false, true])
        await runWithFault({ op: 'write', nth, short: true, persistent }, durability, true);
    }
  });

  test(`${durability}: a fault on the Nth call of any kind never loses an acknowledged append`, async () => {
    const calls = await callsOf('any', durability);
    for (let nth = 1; nth <= calls + 1; nth += 1) {
      for (const code of ['ENOSPC', 'EIO']) {
        for (const persistent of [false, true])
          await runWithFault({ op: 'any', nth, code, persistent }, durability, false);
      }
    }
  });
}

test('while read-only after a failed fsync, appends are refused at once', async () => {
  const { journal, fs, warnings } = await openTestJournal();
  await journal.append(pet(1));
  fs.inject({ op: 'datasync', nth: 1, code: 'EIO', persistent: true });
  await assert.rejects(journal.append(pet(2)), { name: 'StorageUnavailableError', code: 'EIO' });
  assert.equal(journal.writable, false, 'read-only, since the log cannot be verified');
  assert.ok(
    warnings.some((w) => /stays read-only/.test(w)),
    warnings.join('\n'),
  );
  const calls = fs.calls;
  await assert.rejects(journal.append(pet(3)), { name: 'StorageUnavailableError', code: 'EIO' });
  assert.equal(fs.calls, calls, 'refused without touching the disk');
  assert.deepEqual(payloadsOnFile(fs), [pet(1)]);
  fs.clearFaults();
  await journal.close();
});

test('a failed fsync is not retried: the batch fails, the log is verified, writes resume', async () => {
  const { journal, fs, warnings } = await openTestJournal();
  fs.inject({ op: 'datasync', nth: 1, code: 'EIO' });
  const seen: FsOp[] = [];
  fs.onCall = (op) => {
    seen.push(op);
    if (op === 'readFile') assert.equal(journal.writable, false, 'read-only while the log is verified');
  };
  await assert.rejects(journal.append(pet(1)), { code: 'EIO' });
  assert.equal(journal.writable, true, 'the batch is refused after the log was verified');
  assert.deepEqual(seen, ['write', 'datasync', 'close', 'open', 'readFile', 'truncate', 'datasync', 'syncDir']);
  assert.equal(journal.writable, true);
  assert.ok(warnings.some((w) => /reopened and verified/.test(w)));
  await journal.append(pet(2));
  assert.deepEqual(payloadsOnFile(fs), [pet(2)]);
  await journal.close();
});

test('appends queued behind a flush whose fsync fails are refused too, none reaches the file', async () => {
  const { journal, fs } = await openTestJournal();
  fs.inject({ op: 'datasync', nth: 1, code: 'EIO', persistent: true });
  const settle = (p: Promise<void>) =>
    p.then(
      () => 'resolved',
      () => 'rejected',
    );
  let queued: Promise<string> | undefined;
  // Appended while the first flush writes: it waits for the next flush, which never comes.
  fs.onCall = (op) => {
    if (op === 'write' && queued === undefined) queued = settle(journal.append(pet(2)));
  };
  const first = settle(journal.append(pet(1)));
  assert.equal(await first, 'rejected');
  assert.equal(await queued, 'rejected');
  assert.equal(journal.writable, false, 'read-only: the log could not be verified');
  assert.deepEqual(payloadsOnFile(fs), []);
  fs.clearFaults();
  await journal.close();
});

test('a disk that fills up: the flush that does not fit fails and is cut back, later ones work once there is room', async () => {
  const fs = new MemoryFs({ capacityBytes: 1000 });
  fs.setFile('/data/filler', Buffer.alloc(600));
  const { journal } = await openTestJournal({ fs });
  const outcome = await drive(journal, 7);
  assert.ok(outcome.rejected.length > 0 && outcome.resolved.length > 0);
  assert.ok(outcome.rejected.every((p) => !payloadsOnFile(fs).includes(p)));
  assert.deepEqual(payloadsOnFile(fs), inOrder(outcome.resolved));
  assert.equal(journal.writable, true);
  await fs.unlink('/data/filler');
  await journal.append(pet(100));
  assert.deepEqual(payloadsOnFile(fs), [...inOrder(outcome.resolved), pet(100)]);
  await journal.close();
  assert.equal(fs.peek(LOG_PATH)?.length, journal.stats.bytes);
});
