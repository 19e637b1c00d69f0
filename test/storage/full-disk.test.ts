// A real full disk: a 1 MiB tmpfs (Linux, root only; skipped elsewhere). Appends fill it until one is
// refused with ENOSPC; the log then holds exactly the acknowledged records, and once a filler file is
// removed, appends work again.

import { test } from 'node:test';
import { strict as assert } from 'node:assert';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, rmdir, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { StorageUnavailableError } from '../../src/storage/errors.js';
import type { Journal } from '../../src/storage/journal.js';
import { openJournal } from '../../src/storage/open-journal.js';
import { replay } from '../../src/storage/replay.js';

const run = promisify(execFile);
const TMPFS_SIZE = '1m';
const FILLER_BYTES = 256 * 1024;
const BATCH = 32;

/** Appends batches of concurrent records until one is refused; resolves to those acknowledged and the first refusal. */
async function fill(journal: Journal): Promise<{ acknowledged: string[]; refusal: unknown }> {
  const acknowledged: string[] = [];
  let refusal: unknown;
  const padding = 'x'.repeat(300);
  for (let id = 1; refusal === undefined; ) {
    const batch: Array<Promise<void>> = [];
    for (let i = 0; i < BATCH; i += 1, id += 1) {
      const payload = JSON.stringify({ id, padding });
      batch.push(
        journal.append(payload).then(
          () => void acknowledged.push(payload),
          (error: unknown) => void (refusal ??= error),
        ),
      );
    }
    await Promise.all(batch);
    if (id > 100_000) throw new Error('the disk never filled up');
  }
  return { acknowledged, refusal };
}

const byId = (a: string, b: string) => (JSON.parse(a) as { id: number }).id - (JSON.parse(b) as { id: number }).id;

test('a real full disk: ENOSPC is refused cleanly, the log holds exactly what was acknowledged, writes resume with room', async (t) => {
  if (process.platform !== 'linux') {
    t.skip('needs a Linux tmpfs');
    return;
  }
  const mountPoint = await mkdtemp(join(tmpdir(), 'animal-store-full-'));
  try {
    try {
      await run('mount', ['-t', 'tmpfs', '-o', `size=${TMPFS_SIZE}`, 'tmpfs', mountPoint]);
    } catch (error) {
      t.skip(`cannot mount a tmpfs here (needs root): ${(error as Error).message.split('\n')[0]}`);
      return;
    }
    let journal: Journal | undefined;
    try {
      const dir = join(mountPoint, 'data');
      const filler = join(mountPoint, 'filler');
      await writeFile(filler, Buffer.alloc(FILLER_BYTES));
      journal = (await openJournal({ dir })).journal;
      const { acknowledged, refusal } = await fill(journal);
      assert.ok(refusal instanceof StorageUnavailableError, String(refusal));
      assert.equal(refusal.code, 'ENOSPC');
      assert.ok(acknowledged.length > 100);
      const log = join(dir, 'animals.log');
      const onDisk = replay(await readFile(log), log);
      assert.equal(onDisk.tornTail, undefined, 'nothing half-written stays');
      assert.deepEqual(onDisk.payloads, [...acknowledged].sort(byId), 'exactly the acknowledged records');
      assert.equal(journal.writable, true, 'a full disk does not make the journal read-only');
      // Larger than anything a refused batch freed: still no room.
      await assert.rejects(journal.append(JSON.stringify({ id: 0, padding: 'y'.repeat(FILLER_BYTES / 2) })), { code: 'ENOSPC' });
      assert.deepEqual(replay(await readFile(log), log), onDisk);

      await unlink(filler);
      const later = JSON.stringify({ id: 1_000_000 });
      await journal.append(later);
      await journal.close();
      const reopened = await openJournal({ dir });
      assert.deepEqual(reopened.replayed.payloads, [...[...acknowledged].sort(byId), later]);
      await reopened.journal.close();
    } finally {
      await journal?.close();
      await run('umount', [mountPoint]);
    }
  } finally {
    await rmdir(mountPoint).catch(() => rm(mountPoint, { recursive: true, force: true }));
  }
});
