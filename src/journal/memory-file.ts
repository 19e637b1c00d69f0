// The files of MemoryFs (memory-fs.ts): an inode that keeps synced and unsynced bytes apart, and an
// open file that writes into it through the disk's fault injection and capacity.

import type { StorageFile } from './storage-fs.js';

/** A file-system call that faults can target. */
export type FsOp =
  | 'open'
  | 'write'
  | 'datasync'
  | 'sync'
  | 'truncate'
  | 'close'
  | 'readFile'
  | 'rename'
  | 'unlink'
  | 'mkdir'
  | 'syncDir';

/** What an open file needs from its disk. */
export interface MemoryDisk {
  /** Counts a call and applies the faults that match it: throws, or says to shorten a write. */
  enter(op: FsOp, path: string): { key: string; short: boolean };
  /** Bytes still free on the disk. */
  freeBytes(): number;
}

/** A file's bytes: what was written, and what of it was synced. */
export class Inode {
  buf = Buffer.alloc(0);
  size = 0;
  /** Length of the synced content; it is `buf[0, durableLength)` unless `durableCopy` holds it. */
  durableLength = 0;
  /** A copy of the synced content, taken before bytes below `durableLength` are changed. */
  durableCopy: Buffer | null = null;

  durable(): Buffer {
    return this.durableCopy ?? this.buf.subarray(0, this.durableLength);
  }

  /** Keeps the synced content safe before an operation changes bytes below `from`. */
  protectDurable(from: number): void {
    if (this.durableCopy === null && from < this.durableLength) {
      this.durableCopy = Buffer.from(this.buf.subarray(0, this.durableLength));
    }
  }

  resize(size: number): void {
    if (size > this.buf.length) {
      const grown = Buffer.alloc(Math.max(size, this.buf.length * 2, 64));
      this.buf.copy(grown, 0, 0, this.size);
      this.buf = grown;
    } else if (size > this.size) {
      this.buf.fill(0, this.size, size);
    }
    this.size = size;
  }

  sync(): void {
    this.durableCopy = null;
    this.durableLength = this.size;
  }
}

/** An Error shaped as Node's file-system errors are (`code`, `syscall`, `path`). */
export function fsError(code: string, op: string, path: string, why = ''): Error {
  const message = `${code}: ${op} '${path}'${why === '' ? '' : ` ${why}`} (MemoryFs)`;
  return Object.assign(new Error(message), { code, syscall: op, path });
}

/** An open file of a MemoryFs. */
export class MemoryFile implements StorageFile {
  readonly #fs: MemoryDisk;
  readonly #inode: Inode;
  readonly #path: string;
  readonly #append: boolean;
  /** Opened with syncWrites: each write is also a datasync, and can fail as one (after its bytes were written). */
  readonly #syncWrites: boolean;
  #position = 0;
  #closed = false;

  constructor(fs: MemoryDisk, inode: Inode, path: string, append: boolean, syncWrites = false) {
    this.#fs = fs;
    this.#inode = inode;
    this.#path = path;
    this.#append = append;
    this.#syncWrites = syncWrites;
  }

  async write(data: Uint8Array, offset: number, length: number): Promise<number> {
    const { short } = this.#enter('write');
    const inode = this.#inode;
    const at = this.#append ? inode.size : this.#position;
    let count = short ? Math.ceil(length / 2) : length;
    const growth = Math.max(0, at + count - inode.size);
    const free = this.#fs.freeBytes();
    if (growth > free) {
      // A real disk writes what fits and reports a short write; the next write gets ENOSPC.
      if (free === 0) throw fsError('ENOSPC', 'write', this.#path);
      count -= growth - free;
    }
    inode.protectDurable(at);
    if (at + count > inode.size) inode.resize(at + count);
    inode.buf.set(data.subarray(offset, offset + count), at);
    this.#position = at + count;
    if (this.#syncWrites) await this.datasync();
    return count;
  }

  async datasync(): Promise<void> {
    this.#enter('datasync');
    this.#inode.sync();
  }

  async sync(): Promise<void> {
    this.#enter('sync');
    this.#inode.sync();
  }

  async truncate(length: number): Promise<void> {
    this.#enter('truncate');
    if (length > this.#inode.size && length - this.#inode.size > this.#fs.freeBytes()) {
      throw fsError('ENOSPC', 'ftruncate', this.#path);
    }
    this.#inode.protectDurable(length);
    this.#inode.resize(length);
  }

  async close(): Promise<void> {
    this.#enter('close');
    this.#closed = true;
  }

  #enter(op: FsOp): { short: boolean } {
    if (this.#closed) throw fsError('EBADF', op, this.#path);
    return this.#fs.enter(op, this.#path);
  }
}
