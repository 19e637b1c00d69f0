// One owner per data directory: a file `LOCK` created exclusively, holding the owner's pid. A lock
// whose pid is alive refuses the newcomer; one whose pid is dead (a crash, a kill -9) is taken over
// with a warning. A lock holding our own pid that this process does not hold is stale too: after a
// container restart the new process often gets the same pid (1, say) as the one that crashed.

import { join, resolve } from 'node:path';
import { DataDirLockedError, errorCode } from './errors.js';
import { nodeFs } from './node-fs.js';
import type { StorageFile, StorageFs } from './storage-fs.js';
import { writeAll } from './storage-fs.js';
import { defaultWarn } from './warn.js';

/** The lock file's name inside the data directory. */
export const LOCK_FILE = 'LOCK';
/** A lock file found empty may be one another process has just created; look again this often... */
const EMPTY_LOCK_RETRY_MS = 10;
/** ...this many times before calling it stale. */
const EMPTY_LOCK_RETRIES = 3;

/** Data directories locked by this process, per file system: a second journal here must be refused too. */
const heldByThisProcess = new WeakMap<StorageFs, Set<string>>();

/** Whether a process with this pid exists (EPERM means it does, under another user). */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return errorCode(error) === 'EPERM';
  }
}

/** Takes the lock of data directory `dir`; resolves to the function that releases it. Throws DataDirLockedError if it is owned. */
export async function acquireLock(
  dir: string,
  fs: StorageFs = nodeFs,
  warn: (message: string) => void = defaultWarn,
): Promise<() => Promise<void>> {
  const key = resolve(dir);
  const path = join(dir, LOCK_FILE);
  let held = heldByThisProcess.get(fs);
  if (held === undefined) {
    held = new Set();
    heldByThisProcess.set(fs, held);
  }
  if (held.has(key)) {
    throw new DataDirLockedError(
      dir,
      process.pid,
      `The data directory ${dir} is already open in this process (pid ${process.pid}).`,
    );
  }
  if (!(await tryCreate(fs, path))) {
    assertStale(dir, path, await readOwner(fs, path));
    await takeOver(dir, path, fs, warn);
  }
  held.add(key);
  let released = false;
  return async () => {
    if (released) return;
    released = true;
    held.delete(key);
    await unlinkIfThere(fs, path);
  };
}

/** Throws DataDirLockedError when `pid` is a live process other than this one. */
function assertStale(dir: string, path: string, pid: number | undefined): void {
  if (pid !== undefined && pid !== process.pid && isProcessAlive(pid)) {
    throw new DataDirLockedError(
      dir,
      pid,
      `Another process (pid ${pid}) owns the data directory ${dir}; stop it first, or use another directory ` +
        `(if pid ${pid} is no animal-store process, as after a reboot, remove ${path}).`,
    );
  }
}

/**
 * Replaces a stale lock with ours. Two processes that both found it stale must not both remove it (the
 * second would remove the first one's new lock), so a takeover happens only while holding `LOCK.takeover`,
 * created exclusively, and the lock is looked at again under it. A takeover file whose process died
 * (a crash in this short window) is removed and the takeover tried once more.
 */
async function takeOver(dir: string, path: string, fs: StorageFs, warn: (message: string) => void): Promise<void> {
  const takeoverPath = `${path}.takeover`;
  for (let attempt = 0; !(await tryCreate(fs, takeoverPath, { evenWithoutPid: true })); attempt += 1) {
    const taker = await readOwner(fs, takeoverPath);
    if (taker !== undefined && taker !== process.pid && isProcessAlive(taker)) {
      throw new DataDirLockedError(
        dir,
        taker,
        `Another process (pid ${taker}) is taking over the data directory ${dir}; use another directory, or stop it first.`,
      );
    }
    if (attempt > 0)
      throw new DataDirLockedError(
        dir,
        taker ?? 0,
        `Could not take over the stale lock of ${dir}; remove ${takeoverPath} and ${path} if no animal-store runs on it.`,
      );
    await unlinkIfThere(fs, takeoverPath);
  }
  try {
    const pid = await readOwner(fs, path);
    assertStale(dir, path, pid);
    warn(
      `${path}: taking over a stale lock left by ${pid === undefined ? 'an unknown process' : `pid ${pid}, which is no longer running`}.`,
    );
    await unlinkIfThere(fs, path);
    if (!(await tryCreate(fs, path))) {
      throw new DataDirLockedError(
        dir,
        pid ?? 0,
        `Another process took the data directory ${dir} while this one was starting.`,
      );
    }
  } finally {
    await unlinkIfThere(fs, takeoverPath);
  }
}

async function unlinkIfThere(fs: StorageFs, path: string): Promise<void> {
  await fs.unlink(path).catch((error: unknown) => {
    if (errorCode(error) !== 'ENOENT') throw error;
  });
}

/**
 * Creates the lock file holding our pid; false if it exists. With `evenWithoutPid`, a file created
 * whose pid cannot be written for want of space is kept, empty: on a full disk a new file's name costs
 * nothing but its first byte needs a block, and a takeover must still be possible there (the stale
 * lock it removes gives back the block the new one needs). Others read an empty file as a process that
 * died creating it, after a few looks.
 */
async function tryCreate(fs: StorageFs, path: string, { evenWithoutPid = false } = {}): Promise<boolean> {
  let file: StorageFile;
  try {
    file = await fs.open(path, 'wx');
  } catch (error) {
    if (errorCode(error) === 'EEXIST') return false;
    throw error;
  }
  try {
    await writeAll(file, Buffer.from(`${process.pid}\n`));
    await file.close();
  } catch (error) {
    await file.close().catch(() => {});
    if (evenWithoutPid && errorCode(error) === 'ENOSPC') return true;
    await fs.unlink(path).catch(() => {});
    throw error;
  }
  return true;
}

/** The pid in the lock file, or undefined if it holds none (a crash between creating and writing it). */
async function readOwner(fs: StorageFs, path: string): Promise<number | undefined> {
  for (let attempt = 0; ; attempt += 1) {
    let text: string;
    try {
      text = (await fs.readFile(path)).toString('utf8');
    } catch (error) {
      if (errorCode(error) === 'ENOENT') return undefined;
      throw error;
    }
    // The newline is required: the lock is never fsynced, so after a power cut it may hold a torn pid.
    const match = /^(\d{1,10})\n$/.exec(text);
    // pid 0 would make process.kill signal our own process group: never a valid owner.
    if (match !== null) return Number(match[1]) > 0 ? Number(match[1]) : undefined;
    if (text.length > 0 || attempt >= EMPTY_LOCK_RETRIES) return undefined;
    await new Promise((done) => setTimeout(done, EMPTY_LOCK_RETRY_MS));
  }
}
