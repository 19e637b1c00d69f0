// The real file-system seam, on node:fs/promises.

import { existsSync } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { mkdir, open, readFile, rename, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { OpenFlags, StorageFile, StorageFs } from './storage-fs.js';

const FILE_MODE = 0o600;

class NodeFile implements StorageFile {
  readonly #handle: FileHandle;

  constructor(handle: FileHandle) {
    this.#handle = handle;
  }

  async write(data: Uint8Array, offset: number, length: number): Promise<number> {
    const { bytesWritten } = await this.#handle.write(data, offset, length, null);
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

/** The real file system. One shared object, so the in-process lock registry can key on it. */
export const nodeFs: StorageFs = {
  async open(path: string, flags: OpenFlags): Promise<StorageFile> {
    return new NodeFile(await open(path, flags, FILE_MODE));
  },
  readFile: (path) => readFile(path),
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
