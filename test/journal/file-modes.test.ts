// The journal holds webhook secrets, so every file the storage layer writes is owner-only (0600): the
// log when it is created, every compacted copy of it, a log that an operator left readable by others
// (narrowed when it is opened), and the small files replaced atomically (keys, limiter state, backups),
// whatever the umask and whatever a stale temporary file's mode was.
import { strict as assert } from 'node:assert';
import { chmod, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { writeFileAtomically } from '../../src/journal/atomic-file.js';
import { encodeRecord } from '../../src/journal/log-format.js';
import { openJournal } from '../../src/journal/open-journal.js';
import { pet } from '../helpers/journal.js';

const skip = process.platform === 'win32' ? 'file modes are POSIX' : false;
const modeOf = async (path: string): Promise<number> => (await stat(path)).mode & 0o777;

async function tempDir(t: { after: (fn: () => Promise<void>) => void }): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'animal-store-modes-'));
  t.after(() => rm(root, { recursive: true, force: true }));
  return root;
}

/** Runs `body` with the process's umask at `mask`, as a service started with a permissive one would run. */
async function withUmask(mask: number, body: () => Promise<void>): Promise<void> {
  const previous = process.umask(mask);
  try {
    await body();
  } finally {
    process.umask(previous);
  }
}

test('the log and each compacted copy of it are owner-only, under a umask that would let anyone read', { skip }, (t) =>
  withUmask(0, async () => {
    const dir = join(await tempDir(t), 'data');
    const { journal } = await openJournal({ dir });
    await journal.append(pet(1));
    const log = join(dir, 'animals.log');
    assert.equal(await modeOf(log), 0o600);
    assert.equal(await modeOf(dir), 0o700);
    const before = (await stat(log)).ino;
    await journal.compact(() => [pet(1)]);
    await journal.append(pet(2));
    assert.notEqual((await stat(log)).ino, before, 'a new file replaced the log');
    assert.equal(await modeOf(log), 0o600);
    await journal.close();
  }),
);

test('a log left readable by others is narrowed to owner-only when it is opened', { skip }, async (t) => {
  const dir = await tempDir(t);
  const log = join(dir, 'animals.log');
  await writeFile(log, encodeRecord(pet(1)));
  await chmod(log, 0o644);
  const { journal, replayed } = await openJournal({ dir });
  assert.equal(replayed.records, 1);
  assert.equal(await modeOf(log), 0o600);
  await journal.close();
});

test('a file replaced atomically is owner-only, even over a stale temporary file readable by others', { skip }, (t) =>
  withUmask(0, async () => {
    const path = join(await tempDir(t), 'keys.json');
    await writeFile(`${path}.${process.pid}.tmp`, 'stale', { mode: 0o666 });
    await chmod(`${path}.${process.pid}.tmp`, 0o666);
    await writeFileAtomically(path, '{}', 0o600);
    assert.equal(await modeOf(path), 0o600);
  }),
);
