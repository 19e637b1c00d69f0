import { strict as assert } from 'node:assert';
import { execFile, spawn } from 'node:child_process';
import { access, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { DataDirLockedError } from '../../src/journal/errors.js';
import { acquireLock, isProcessAlive } from '../../src/journal/lock.js';
import { MemoryFs } from '../../src/journal/memory-fs.js';
import { openJournal } from '../../src/journal/open-journal.js';

/** The pid of a process that has exited (and been reaped). */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  await new Promise((resolve) => child.on('exit', resolve));
  assert.ok(child.pid !== undefined);
  return child.pid;
}

test('the lock file holds our pid and is removed on release; release is idempotent', async () => {
  const fs = new MemoryFs();
  await fs.mkdir('/d', 0o700);
  const release = await acquireLock('/d', fs);
  assert.equal(fs.peek('/d/LOCK')?.toString(), `${process.pid}\n`);
  await release();
  await release();
  assert.equal(fs.peek('/d/LOCK'), undefined);
});

test('a lock held by a live process refuses a second owner, naming that pid', async () => {
  const fs = new MemoryFs();
  fs.setFile('/d/LOCK', `${process.ppid}\n`);
  await assert.rejects(acquireLock('/d', fs), (error: unknown) => {
    assert.ok(error instanceof DataDirLockedError);
    assert.equal(error.pid, process.ppid);
    assert.match(
      error.message,
      new RegExp(`another process \\(pid ${process.ppid}\\) owns the data directory /d`, 'i'),
    );
    return true;
  });
  assert.equal(fs.peek('/d/LOCK')?.toString(), `${process.ppid}\n`, 'the owner keeps its lock');
});

test('a second journal in the same process is refused while the first is open', async () => {
  const fs = new MemoryFs();
  const first = await openJournal({ dir: '/d', fs });
  await assert.rejects(openJournal({ dir: '/d', fs }), /already open in this process/);
  await first.journal.close();
  const second = await openJournal({ dir: '/d', fs });
  await second.journal.close();
});

test('a stale lock from a dead pid is taken over with a warning', async () => {
  const fs = new MemoryFs();
  const pid = await deadPid();
  assert.equal(isProcessAlive(pid), false);
  fs.setFile('/d/LOCK', `${pid}\n`);
  const warnings: string[] = [];
  const release = await acquireLock('/d', fs, (m) => warnings.push(m));
  assert.equal(fs.peek('/d/LOCK')?.toString(), `${process.pid}\n`);
  assert.equal(warnings.length, 1);
  assert.match(warnings[0]!, new RegExp(`/d/LOCK: taking over a stale lock left by pid ${pid}`));
  await release();
});

test('a stale lock is taken over only under LOCK.takeover: a live taker refuses us, a dead one is cleared', async () => {
  const stale = await deadPid();
  const live = new MemoryFs();
  live.setFile('/d/LOCK', `${stale}\n`);
  live.setFile('/d/LOCK.takeover', `${process.ppid}\n`);
  await assert.rejects(
    acquireLock('/d', live, () => {}),
    (error: unknown) => {
      assert.ok(error instanceof DataDirLockedError);
      assert.match(error.message, new RegExp(`pid ${process.ppid}\\) is taking over the data directory /d`));
      return true;
    },
  );
  assert.equal(live.peek('/d/LOCK')?.toString(), `${stale}\n`, 'the taker in progress is left to finish');

  const crashed = new MemoryFs();
  crashed.setFile('/d/LOCK', `${stale}\n`);
  crashed.setFile('/d/LOCK.takeover', `${await deadPid()}\n`);
  const release = await acquireLock('/d', crashed, () => {});
  assert.equal(crashed.peek('/d/LOCK')?.toString(), `${process.pid}\n`);
  assert.equal(crashed.peek('/d/LOCK.takeover'), undefined, 'the takeover file is gone once the lock is ours');
  await release();
});

test('a lock file without a whole pid (a crash right after creating it, a torn write) is stale', async () => {
  for (const content of ['', 'garbage', '0\n', String(process.ppid)]) {
    const fs = new MemoryFs();
    fs.setFile('/d/LOCK', content);
    const warnings: string[] = [];
    const release = await acquireLock('/d', fs, (m) => warnings.push(m));
    assert.match(warnings[0]!, /unknown process/);
    await release();
  }
});

test('isProcessAlive: ours is, a reaped child is not', async () => {
  assert.equal(isProcessAlive(process.pid), true);
  assert.equal(isProcessAlive(await deadPid()), false);
});

test('on a real disk, another process cannot take a directory this one holds', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'animal-store-lock-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const release = await acquireLock(dir);
  assert.equal(await readFile(join(dir, 'LOCK'), 'utf8'), `${process.pid}\n`);
  const lockModule = fileURLToPath(new URL('../../src/journal/lock.ts', import.meta.url));
  const script = `import { acquireLock } from ${JSON.stringify(lockModule)};
try { await acquireLock(process.argv[1]); console.log('acquired'); } catch (e) { console.error(e.message); process.exit(3); }`;
  const result = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
    const child = execFile(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', script, dir],
      (error, _stdout, stderr) => {
        resolve({ code: error === null ? 0 : child.exitCode, stderr });
      },
    );
  });
  assert.equal(result.code, 3);
  assert.match(result.stderr, new RegExp(`Another process \\(pid ${process.pid}\\) owns the data directory`));
  await release();
  await assert.rejects(access(join(dir, 'LOCK')));
  // A lock left by a process that died is taken over.
  await writeFile(join(dir, 'LOCK'), `${await deadPid()}\n`);
  const warnings: string[] = [];
  const again = await acquireLock(dir, undefined, (m) => warnings.push(m));
  assert.equal(warnings.length, 1);
  await again();
});
