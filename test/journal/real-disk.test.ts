// The journal on the real file system (node-fs.ts), in a temporary directory: the same promises as
// on MemoryFs, plus file modes, a real fsync count, and a process that is not kept alive by the timer.

import { strict as assert } from 'node:assert';
import { execFile } from 'node:child_process';
import { constants } from 'node:fs';
import {
  appendFile,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  readlink,
  realpath,
  rm,
  stat,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { CorruptLogError } from '../../src/journal/errors.js';
import { encodeRecord } from '../../src/journal/log-format.js';
import { nodeFs } from '../../src/journal/node-fs.js';
import { openJournal } from '../../src/journal/open-journal.js';
import { replay } from '../../src/journal/replay.js';
import type { StorageFs } from '../../src/journal/storage-fs.js';
import { pet } from '../helpers/journal.js';

async function tempDir(t: { after: (fn: () => Promise<void>) => void }): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'animal-store-storage-'));
  t.after(() => rm(root, { recursive: true, force: true }));
  return join(root, 'data');
}

/** The real file system, counting datasyncs. */
/** nodeFs, counting the syncs of written data: datasync calls, and writes to files opened for synced writes. */
function countingFs(): { fs: StorageFs; datasyncs: () => number } {
  let count = 0;
  const fs: StorageFs = {
    ...nodeFs,
    async open(path, flags, options) {
      const file = await nodeFs.open(path, flags, options);
      return {
        write: (data, offset, length) => {
          if (options?.syncWrites === true) count += 1;
          return file.write(data, offset, length);
        },
        datasync: () => {
          count += 1;
          return file.datasync();
        },
        sync: () => file.sync(),
        truncate: (length) => file.truncate(length),
        close: () => file.close(),
      };
    },
  };
  return { fs, datasyncs: () => count };
}

/** The open-file flags of this process's descriptors of `path`, from /proc (Linux). */
async function openFlagsOf(path: string): Promise<number[]> {
  const flags: number[] = [];
  for (const fd of await readdir('/proc/self/fd')) {
    const target = await readlink(`/proc/self/fd/${fd}`).catch(() => '');
    if (target !== path) continue;
    const info = await readFile(`/proc/self/fdinfo/${fd}`, 'utf8');
    const octal = /^flags:\s+([0-7]+)$/m.exec(info)?.[1];
    if (octal !== undefined) flags.push(Number.parseInt(octal, 8));
  }
  return flags;
}

test('on a real disk: under always the log is opened with O_DSYNC, under never without', async (t) => {
  if (process.platform !== 'linux') {
    t.skip('reads the open flags from /proc, which only Linux has');
    return;
  }
  for (const durability of ['always', 'never'] as const) {
    const dir = await tempDir(t);
    const { journal } = await openJournal({ dir, durability });
    await journal.append(pet(1));
    const flags = await openFlagsOf(await realpath(join(dir, 'animals.log')));
    await journal.close();
    assert.equal(flags.length, 1, `one descriptor of the log: ${flags.join(', ')}`);
    const dsync = ((flags[0] as number) & constants.O_DSYNC) !== 0;
    assert.equal(dsync, durability === 'always', `${durability}: flags ${(flags[0] as number).toString(8)}`);
    assert.notEqual((flags[0] as number) & constants.O_APPEND, 0);
  }
});

test('on a real disk: the data directory is private, records survive a reopen, the lock goes away', async (t) => {
  const dir = await tempDir(t);
  const { journal } = await openJournal({ dir });
  await Promise.all([1, 2, 3].map((id) => journal.append(pet(id))));
  if (process.platform !== 'win32') {
    assert.equal((await stat(dir)).mode & 0o777, 0o700);
    assert.equal((await stat(join(dir, 'animals.log'))).mode & 0o077, 0);
  }
  await journal.close();
  assert.deepEqual(await readdir(dir), ['animals.log']);
  const again = await openJournal({ dir });
  assert.deepEqual(again.replayed.payloads, [1, 2, 3].map(pet));
  await again.journal.close();
});

test('on a real disk: 200 concurrent appends share far fewer than 200 fsyncs', async (t) => {
  const dir = await tempDir(t);
  const { fs, datasyncs } = countingFs();
  const { journal } = await openJournal({ dir, fs });
  const ids = Array.from({ length: 200 }, (_, i) => i + 1);
  await Promise.all(ids.map((id) => journal.append(pet(id))));
  assert.ok(datasyncs() < 100, `${datasyncs()} fsyncs`);
  await journal.close();
  assert.deepEqual(replay(await readFile(join(dir, 'animals.log')), 'animals.log').payloads, ids.map(pet));
});

test('on a real disk: a torn tail is cut off the file, damage before it leaves the file untouched', async (t) => {
  const dir = await tempDir(t);
  const { journal } = await openJournal({ dir });
  await journal.append(pet(1));
  await journal.close();
  const log = join(dir, 'animals.log');
  const good = await readFile(log);
  await appendFile(log, encodeRecord(pet(2)).slice(0, 15));
  const warnings: string[] = [];
  const reopened = await openJournal({ dir, warn: (m) => warnings.push(m) });
  assert.equal(reopened.replayed.tornTail?.offset, good.length);
  assert.match(
    warnings.join('\n'),
    new RegExp(`animals\\.log: cut off a torn last record at byte offset ${good.length}`),
  );
  await reopened.journal.close();
  assert.deepEqual(await readFile(log), good);

  const damaged = Buffer.concat([Buffer.from('garbage\n'), good, Buffer.from(encodeRecord(pet(3)))]);
  await writeFile(log, damaged);
  await assert.rejects(
    openJournal({ dir }),
    (e: unknown) => e instanceof CorruptLogError && e.line === 1 && e.file === log,
  );
  assert.deepEqual(await readFile(log), damaged);
  assert.deepEqual(await readdir(dir), ['animals.log'], 'no lock left behind');
});

test('on a real disk: compaction renames a complete new log into place', async (t) => {
  const dir = await tempDir(t);
  const { journal } = await openJournal({ dir });
  for (let version = 0; version < 50; version += 1) await journal.append(JSON.stringify({ id: 1, version }));
  await journal.compact(() => [JSON.stringify({ id: 1, version: 49 })]);
  await journal.append(JSON.stringify({ id: 2, version: 0 }));
  await journal.close();
  assert.deepEqual(await readdir(dir), ['animals.log']);
  const { journal: again, replayed } = await openJournal({ dir });
  assert.deepEqual(replayed.payloads, ['{"id":1,"version":49}', '{"id":2,"version":0}']);
  await again.close();
});

test("a journal left open under 'interval' does not keep its process alive", async (t) => {
  const dir = await tempDir(t);
  const openJournalModule = fileURLToPath(new URL('../../src/journal/open-journal.ts', import.meta.url));
  const script = `import { openJournal } from ${JSON.stringify(openJournalModule)};
const { journal } = await openJournal({ dir: process.argv[1], durability: 'interval', intervalMs: 5 });
await journal.append('{"id":1}');
console.log('appended');`;
  const { code, stdout } = await new Promise<{ code: number | null; stdout: string }>((resolve) => {
    const child = execFile(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', script, dir],
      { timeout: 120_000 },
      (error, out) => resolve({ code: error === null ? 0 : child.exitCode, stdout: out }),
    );
  });
  assert.equal(code, 0);
  assert.equal(stdout.trim(), 'appended');
  // The process ended without close(): the record is in the file (the kernel had it), the lock is stale.
  assert.deepEqual(replay(await readFile(join(dir, 'animals.log')), 'animals.log').payloads, ['{"id":1}']);
  const warnings: string[] = [];
  const { journal } = await openJournal({ dir, warn: (m) => warnings.push(m) });
  assert.match(warnings.join('\n'), /stale lock/);
  await journal.close();
});

test('processes that find the same stale lock at the same moment: exactly one takes it over', async (t) => {
  const dir = await tempDir(t);
  await mkdir(dir);
  const lock = fileURLToPath(new URL('../../src/journal/lock.ts', import.meta.url));
  // Each waits for the same instant, then takes the lock; an owner holds it a while, so the others see it alive.
  const script = `import { acquireLock } from ${JSON.stringify(lock)};
const [dir, at] = [process.argv[1], Number(process.argv[2])];
while (Date.now() < at) {}
try {
  const release = await acquireLock(dir, undefined, () => {});
  console.log('owner');
  await new Promise((done) => setTimeout(done, 1500));
  await release();
} catch (error) {
  console.log('refused: ' + error.message);
}`;
  await writeFile(join(dir, 'LOCK'), '999999\n'); // no such process: stale
  const at = Date.now() + 3_000;
  const outcomes = await Promise.all(
    Array.from(
      { length: 4 },
      () =>
        new Promise<string>((resolve) => {
          execFile(
            process.execPath,
            ['--import', 'tsx', '--input-type=module', '-e', script, dir, String(at)],
            { timeout: 120_000 },
            (_error, out) => resolve(out.trim()),
          );
        }),
    ),
  );
  assert.equal(outcomes.filter((outcome) => outcome === 'owner').length, 1, outcomes.join(' | '));
  for (const outcome of outcomes.filter((text) => text !== 'owner')) assert.match(outcome, /^refused: /);
  assert.deepEqual(
    (await readdir(dir)).filter((name) => name.startsWith('LOCK')),
    [],
    'the owner released the lock, and no takeover file is left',
  );
});
