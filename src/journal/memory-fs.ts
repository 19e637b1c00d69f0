// An in-memory twin of the file-system seam for tests, modelled on what a disk promises:
// - each file keeps its synced bytes apart from what was written since (the page cache);
// - directory entries (creations, renames, removals) become durable only when the directory is synced;
// - `powerLoss()` returns the disk as it comes back after a power cut, and kills this instance;
// - faults (ENOSPC, EIO, short writes) can be injected on the Nth call of an operation, once or from
//   then on, and a capacity makes the disk fill up as a real one does (a short write, then ENOSPC).
// Directories themselves are taken as durable once made.

import { dirname, normalize } from 'node:path';
import type { FsOp, MemoryDisk } from './memory-file.js';
import { fsError, Inode, MemoryFile } from './memory-file.js';
import type { OpenFlags, OpenOptions, StorageFile, StorageFs } from './storage-fs.js';

export type { FsOp } from './memory-file.js';

/** A fault to inject: fail (or shorten) the `nth` call of `op` counted from now, once or from then on. */
export interface Fault {
  op: FsOp | 'any';
  nth: number;
  /** The errno code to fail with; default EIO. Ignored when `short` is set. */
  code?: string;
  /** Fail that call and every later matching one. */
  persistent?: boolean;
  /** Writes only: write half the bytes asked for instead of failing. */
  short?: boolean;
}

interface ActiveFault extends Fault {
  seen: number;
}

/** An in-memory StorageFs that models synced and unsynced state, power loss and faults. */
export class MemoryFs implements StorageFs, MemoryDisk {
  /** Total bytes the disk holds (sum of file sizes); unlimited when undefined. */
  capacityBytes: number | undefined;
  /** Called at the start of every call, before faults are applied; a test can capture `powerLossImage()` here. */
  onCall: ((op: FsOp, path: string) => void) | undefined;
  #entries = new Map<string, Inode>();
  #durableEntries = new Map<string, Inode>();
  #dirs = new Set<string>(['/', '.']);
  #faults: ActiveFault[] = [];
  #calls = 0;
  #dead = false;

  constructor(options: { capacityBytes?: number } = {}) {
    this.capacityBytes = options.capacityBytes;
  }

  /** How many calls this instance has served (faulted ones included). */
  get calls(): number {
    return this.#calls;
  }

  /** Registers a fault; see `Fault`. */
  inject(fault: Fault): void {
    if (!Number.isInteger(fault.nth) || fault.nth < 1) throw new TypeError('fault.nth must be an integer from 1');
    this.#faults.push({ ...fault, seen: 0 });
  }

  /** Removes every fault, as when the disk gets room again or the device is replaced. */
  clearFaults(): void {
    this.#faults = [];
  }

  /** Writes a file and makes it and its directory entry durable at once; for setting up tests. */
  setFile(path: string, data: Uint8Array | string): void {
    const key = normalize(path);
    this.#mkdirs(dirname(key));
    const inode = new Inode();
    const bytes = Buffer.from(data);
    inode.resize(bytes.length);
    bytes.copy(inode.buf);
    inode.sync();
    this.#entries.set(key, inode);
    this.#durableEntries.set(key, inode);
  }

  /** The current content of a file (page cache included), or undefined. */
  peek(path: string): Buffer | undefined {
    const inode = this.#entries.get(normalize(path));
    return inode === undefined ? undefined : Buffer.from(inode.buf.subarray(0, inode.size));
  }

  /** The names of the files directly in `dir`, as they stand now. */
  list(dir: string): string[] {
    const key = normalize(dir);
    return [...this.#entries.keys()]
      .filter((p) => dirname(p) === key)
      .map((p) => p.slice(key.length).replace(/^[/\\]/, ''));
  }

  /**
   * The disk as it would come back if the power were cut now: synced bytes and synced directory
   * entries only. With `random`, each file that was only appended to since its last sync also keeps a
   * random prefix of its unsynced bytes, as a disk that wrote some sectors does. This instance is left alone.
   */
  powerLossImage(random?: () => number): MemoryFs {
    const image = new MemoryFs({ capacityBytes: this.capacityBytes });
    image.#dirs = new Set(this.#dirs);
    const copies = new Map<Inode, Inode>();
    for (const [path, inode] of this.#durableEntries) {
      let copy = copies.get(inode);
      if (copy === undefined) {
        let bytes = inode.durable();
        if (random !== undefined && inode.durableCopy === null && inode.size > inode.durableLength) {
          const kept = Math.floor(random() * (inode.size - inode.durableLength + 1));
          bytes = inode.buf.subarray(0, inode.durableLength + kept);
        }
        copy = new Inode();
        copy.resize(bytes.length);
        bytes.copy(copy.buf);
        copy.sync();
        copies.set(inode, copy);
      }
      image.#entries.set(path, copy);
      image.#durableEntries.set(path, copy);
    }
    return image;
  }

  /** The disk as a restart finds it after this process is killed (kill -9): everything written, synced or not. */
  processCrashImage(): MemoryFs {
    const image = new MemoryFs({ capacityBytes: this.capacityBytes });
    image.#dirs = new Set(this.#dirs);
    const copies = new Map<Inode, Inode>();
    for (const [path, inode] of this.#entries) {
      let copy = copies.get(inode);
      if (copy === undefined) {
        copy = new Inode();
        copy.resize(inode.size);
        inode.buf.copy(copy.buf, 0, 0, inode.size);
        copy.sync();
        copies.set(inode, copy);
      }
      image.#entries.set(path, copy);
      image.#durableEntries.set(path, copy);
    }
    return image;
  }

  /** Cuts the power: returns `powerLossImage(random)`, and every later call on this instance fails with EIO. */
  powerLoss(random?: () => number): MemoryFs {
    const image = this.powerLossImage(random);
    this.#dead = true;
    return image;
  }

  async open(path: string, flags: OpenFlags, options: OpenOptions = {}): Promise<StorageFile> {
    const key = this.#enter('open', path);
    if (!this.#dirs.has(dirname(key))) throw fsError('ENOENT', 'open', path);
    let inode = this.#entries.get(key);
    if (inode !== undefined && flags === 'wx') throw fsError('EEXIST', 'open', path);
    if (inode === undefined) {
      inode = new Inode();
      this.#entries.set(key, inode);
    } else if (flags === 'w') {
      inode.protectDurable(0);
      inode.resize(0);
    }
    return new MemoryFile(this, inode, key, flags === 'a', options.syncWrites === true);
  }

  async readFile(path: string): Promise<Buffer> {
    const key = this.#enter('readFile', path);
    const inode = this.#entries.get(key);
    if (inode === undefined) throw fsError('ENOENT', 'open', path);
    return Buffer.from(inode.buf.subarray(0, inode.size));
  }

  async rename(from: string, to: string): Promise<void> {
    const source = this.#enter('rename', from);
    const inode = this.#entries.get(source);
    if (inode === undefined) throw fsError('ENOENT', 'rename', from);
    this.#entries.delete(source);
    this.#entries.set(normalize(to), inode);
  }

  async unlink(path: string): Promise<void> {
    const key = this.#enter('unlink', path);
    if (!this.#entries.delete(key)) throw fsError('ENOENT', 'unlink', path);
  }

  async mkdir(path: string, _mode: number): Promise<void> {
    this.#mkdirs(this.#enter('mkdir', path));
  }

  async syncDir(path: string): Promise<void> {
    const dir = this.#enter('syncDir', path);
    if (!this.#dirs.has(dir)) throw fsError('ENOENT', 'open', path);
    for (const p of [...this.#durableEntries.keys()]) {
      if (dirname(p) === dir && !this.#entries.has(p)) this.#durableEntries.delete(p);
    }
    for (const [p, inode] of this.#entries) {
      if (dirname(p) === dir) this.#durableEntries.set(p, inode);
    }
  }

  /** Counts a call, applies the faults that match it; returns the normalised path. For MemoryFile. */
  enter(op: FsOp, path: string): { key: string; short: boolean } {
    if (this.#dead) throw fsError('EIO', op, path, 'after a power loss');
    this.#calls += 1;
    this.onCall?.(op, path);
    // The hook may have cut the power.
    if (this.#dead) throw fsError('EIO', op, path, 'after a power loss');
    let short = false;
    for (const fault of this.#faults) {
      if (fault.op !== 'any' && fault.op !== op) continue;
      fault.seen += 1;
      const hit = fault.persistent === true ? fault.seen >= fault.nth : fault.seen === fault.nth;
      if (!hit) continue;
      if (fault.short === true) {
        if (op === 'write') short = true;
      } else {
        throw fsError(fault.code ?? 'EIO', op, path);
      }
    }
    return { key: normalize(path), short };
  }

  /** Bytes still free under `capacityBytes`. For MemoryFile. */
  freeBytes(): number {
    if (this.capacityBytes === undefined) return Number.POSITIVE_INFINITY;
    let used = 0;
    for (const inode of new Set(this.#entries.values())) used += inode.size;
    return Math.max(0, this.capacityBytes - used);
  }

  #enter(op: FsOp, path: string): string {
    return this.enter(op, path).key;
  }

  #mkdirs(dir: string): void {
    for (let d = dir; !this.#dirs.has(d); d = dirname(d)) this.#dirs.add(d);
  }
}
