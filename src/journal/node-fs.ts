// The real file-system seam, on node:fs/promises.

import { constants, existsSync } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { mkdir, open, readFile, rename, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { OpenFlags, OpenOptions, StorageFile, StorageFs } from './storage-fs.js';

const FILE_MODE = 0o600;

/**
 * O_DSYNC appends: the kernel makes each write durable before it returns, so a write and its sync are
 * one call on one thread-pool thread, which finishes without waiting for the event loop to pass by
 * between the two. Undefined where the platform has no such flag (Windows).
 */
const SYNCED_APPEND =
  constants.O_DSYNC === undefined
    ? undefined
    : constants.O_WRONLY | constants.O_CREAT | constants.O_APPEND | constants.O_DSYNC;

class NodeFile implements StorageFile {
  readonly #handle: FileHandle;
  /** Writes must be followed by a datasync here: syncWrites was asked for where O_DSYNC is missing. */
  readonly #syncAfterWrite: boolean;

  constructor(handle: FileHandle, syncAfterWrite: boolean) {
    this.#handle = handle;
    this.#syncAfterWrite = syncAfterWrite;
  }

  async write(data: Uint8Array, offset: number, length: number): Promise<number> {
    const { bytesWritten } = await this.#handle.write(data, offset, length, null);
    if (this.#syncAfterWrite) await this.#handle.datasync();
    return bytesWritten;
  }

  datasync(): Promise<void> {
    return this.#handle.datasync();
  }

  sync(): Promise<void> {
    return this.#handle.sync();
  }

  truncate(length: number): Promise<void> {
    return this.#handle.truncate(length);
  }

  close(): Promise<void> {
    return this.#handle.close();
  }
}

/**
 * The handle of a file the storage layer writes, owner-only whatever it was before: open(2) gives a new
 * file FILE_MODE, but a file that was already there (a log copied in by hand, or written by a release
 * whose umask let others read it) keeps its mode, and the log holds webhook secrets.
 */
async function ownerOnly(handle: FileHandle): Promise<FileHandle> {
  if (process.platform === 'win32') return handle;
  try {
    if (((await handle.stat()).mode & 0o077) !== 0) await handle.chmod(FILE_MODE);
    return handle;
  } catch (error) {
    await handle.close().catch(() => {});
    throw error;
  }
}

/**
 * readFile, with the file's path on its error: a read's own failure (EISDIR when the path is a
 * directory, EIO) comes without one, and an operator must be told which file is at fault.
 */
export function readFileNamed(path: string): Promise<Buffer>;
export function readFileNamed(path: string, encoding: 'utf8'): Promise<string>;
export async function readFileNamed(path: string, encoding?: 'utf8'): Promise<Buffer | string> {
  try {
    return encoding === undefined ? await readFile(path) : await readFile(path, encoding);
  } catch (error) {
    const failure = error as NodeJS.ErrnoException;
    if (typeof failure === 'object' && failure !== null && failure.path === undefined) failure.path = path;
    throw failure;
  }
}

/** The real file system. One shared object, so the in-process lock registry can key on it. */
export const nodeFs: StorageFs = {
  async open(path: string, flags: OpenFlags, options: OpenOptions = {}): Promise<StorageFile> {
    if (options.syncWrites !== true) return new NodeFile(await ownerOnly(await open(path, flags, FILE_MODE)), false);
    if (flags !== 'a') throw new TypeError('syncWrites is only for appends');
    if (SYNCED_APPEND === undefined) return new NodeFile(await ownerOnly(await open(path, flags, FILE_MODE)), true);
    return new NodeFile(await ownerOnly(await open(path, SYNCED_APPEND, FILE_MODE)), false);
  },
  readFile: (path) => readFileNamed(path),
  rename: (from, to) => rename(from, to),
  unlink: (path) => unlink(path),
  async mkdir(path, mode) {
    // When the parent exists, a plain mkdir: a recursive one reports ENOENT instead of EROFS on a
    // read-only file system, and never returns under /proc on Node 20.
    if (!existsSync(dirname(path))) {
      await mkdir(path, { recursive: true, mode });
      return;
    }
    await mkdir(path, { mode }).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'EEXIST') throw error;
    });
  },
  async syncDir(path) {
    // A directory opened read-only can be fsynced on Linux and macOS; Windows cannot open one, and
    // makes renames durable without it.
    if (process.platform === 'win32') return;
    const handle = await open(path, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  },
};
