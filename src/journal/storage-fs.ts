// The file-system seam of the storage layer: the few calls it makes, nothing more, so that an
// in-memory twin (memory-fs.ts) can model power loss and inject faults. node-fs.ts is the real one.

/** How a file is opened: `a` appends (creating it), `w` truncates (creating it), `wx` creates it exclusively. */
export type OpenFlags = 'a' | 'w' | 'wx';

/** How writes to an opened file behave. */
export interface OpenOptions {
  /**
   * Each write returns only once its bytes are durable, as a write followed by fdatasync(2) would, in
   * one call (O_DSYNC where the platform has it). A write that fails may then have left its bytes in
   * the page cache, unsynced: its error can come from either half.
   */
  syncWrites?: boolean;
}

/** An open file, written sequentially (at its end under `a`). */
export interface StorageFile {
  /** Writes `length` bytes of `data` from `offset`; may write fewer, and says how many. */
  write(data: Uint8Array, offset: number, length: number): Promise<number>;
  /** fdatasync(2): the data and the size are on disk once this resolves. */
  datasync(): Promise<void>;
  /** fsync(2): data and all metadata. */
  sync(): Promise<void>;
  /** Cuts (or extends with zeros) the file to `length` bytes. */
  truncate(length: number): Promise<void>;
  /** Closes the file; the handle is unusable afterwards. */
  close(): Promise<void>;
}

/** The file operations the storage layer needs. Paths are joined with node:path. */
export interface StorageFs {
  /** Opens a file for writing, owner-only (mode 0o600): new files get that mode, existing ones are narrowed to it. */
  open(path: string, flags: OpenFlags, options?: OpenOptions): Promise<StorageFile>;
  /** The whole content of a file; rejects with code ENOENT if it does not exist. */
  readFile(path: string): Promise<Buffer>;
  /** Atomically replaces `to` with `from`. */
  rename(from: string, to: string): Promise<void>;
  /** Removes a file; rejects with code ENOENT if it does not exist. */
  unlink(path: string): Promise<void>;
  /** Creates a directory and its parents, if missing, with `mode`. */
  mkdir(path: string, mode: number): Promise<void>;
  /** fsync(2) of a directory, making the creations, renames and removals in it durable. */
  syncDir(path: string): Promise<void>;
}

/** Writes every byte of `data`, looping because a write may be short (as Node's can). */
export async function writeAll(file: StorageFile, data: Uint8Array): Promise<void> {
  let offset = 0;
  while (offset < data.length) {
    const written = await file.write(data, offset, data.length - offset);
    if (!Number.isInteger(written) || written < 0 || written > data.length - offset) {
      throw Object.assign(new Error(`write reported ${written} bytes written`), { code: 'EIO' });
    }
    offset += written;
  }
}
