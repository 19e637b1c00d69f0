// Opening a data directory: create it, take its lock, remove a temporary file an unfinished
// compaction left, replay the log (cutting off a torn last record with a warning; refusing to start,
// file untouched, on damage before it) and hand the file to the one writer, Journal.

import { basename, dirname, join, resolve } from 'node:path';
import { errorCode } from './errors.js';
import type { Durability } from './journal.js';
import { Journal } from './journal.js';
import { acquireLock } from './lock.js';
import { nodeFs } from './node-fs.js';
import { type RecordVisitor, replayRecords } from './replay.js';
import type { StorageFs } from './storage-fs.js';
import { defaultWarn } from './warn.js';

/** The log's file name unless told otherwise. */
export const DEFAULT_LOG_FILE = 'animals.log';
/** Fsync period under durability 'interval' unless told otherwise, as Redis's `appendfsync everysec`. */
export const DEFAULT_INTERVAL_MS = 1000;
/** The data directory is private to the service. */
export const DATA_DIR_MODE = 0o700;
const DURABILITIES: readonly Durability[] = ['always', 'interval', 'never'];

/** How to open a data directory. */
export interface JournalOptions {
  /** The data directory; created (mode 0o700) if missing. */
  dir: string;
  /** The log's file name in `dir`; default 'animals.log'. */
  fileName?: string;
  /** When an append resolves; default 'always'. */
  durability?: Durability;
  /** Fsync period under 'interval', in milliseconds; default 1000. */
  intervalMs?: number;
  /** The file-system seam; default the real one. */
  fs?: StorageFs;
  /** Where warnings go (torn tail cut, stale lock taken over, read-only); default one line on stderr. */
  warn?: (message: string) => void;
  /**
   * Receives every intact record's payload bytes, in file order, instead of `replayed.payloads`
   * (which then stays empty): no string per record unless the reader makes one.
   */
  onRecord?: RecordVisitor;
}

/** What the log held when it was opened. */
export interface ReplayedLog {
  /** The JSON payload text of every intact record, in file order; empty when `onRecord` read them. */
  payloads: string[];
  /** How many intact records the log held. */
  records: number;
  /** What was cut off the end (the torn bytes as UTF-8 with replacement), and where it started. */
  tornTail?: { offset: number; text: string };
}

/** Opens (creating if need be) the log of a data directory, replays it, and returns the writer and what it held. */
export async function openJournal(options: JournalOptions): Promise<{ journal: Journal; replayed: ReplayedLog }> {
  const { dir, fileName = DEFAULT_LOG_FILE, durability = 'always', intervalMs = DEFAULT_INTERVAL_MS } = options;
  if (typeof dir !== 'string' || dir.length === 0) throw new TypeError('options.dir must be a non-empty path');
  if (typeof fileName !== 'string' || fileName.length === 0 || basename(fileName) !== fileName || fileName === '..') {
    throw new TypeError('options.fileName must be a plain file name');
  }
  if (!DURABILITIES.includes(durability))
    throw new TypeError(`options.durability must be one of ${DURABILITIES.join(', ')}`);
  if (!Number.isFinite(intervalMs) || intervalMs <= 0)
    throw new TypeError('options.intervalMs must be a positive number');
  const fs = options.fs ?? nodeFs;
  const warn = options.warn ?? defaultWarn;
  const path = join(dir, fileName);
  const tempPath = join(dir, `${fileName}.compacting`);

  await fs.mkdir(dir, DATA_DIR_MODE);
  const releaseLock = await acquireLock(dir, fs, warn);
  try {
    if (await removeIfPresent(fs, tempPath))
      warn(`${tempPath}: removed the leftover of a compaction that did not finish.`);
    let content: Buffer;
    let created = false;
    try {
      content = await fs.readFile(path);
    } catch (error) {
      if (errorCode(error) !== 'ENOENT') throw error;
      content = Buffer.alloc(0);
      created = true;
    }
    const payloads: string[] = [];
    const found = replayRecords(
      content,
      path,
      options.onRecord ??
        ((bytes, start, end) => {
          payloads.push(bytes.toString('utf8', start, end));
        }),
    );
    const file = await fs.open(path, 'a', { syncWrites: durability === 'always' });
    try {
      if (found.tornTail !== undefined) {
        const cut = content.length - found.validBytes;
        warn(`${path}: cut off a torn last record at byte offset ${found.tornTail.offset} (${cut} bytes).`);
        await file.truncate(found.validBytes);
        await file.datasync();
      }
      // A new file's directory entry is durable only once the directory is synced; on a first start
      // the data directory may be new too, so its parent is synced as well (best effort: the parent
      // may not be ours to open).
      if (created) {
        await fs.syncDir(dir);
        await fs.syncDir(dirname(resolve(dir))).catch(() => {});
      }
    } catch (error) {
      await file.close().catch(() => {});
      throw error;
    }
    const journal = new Journal({
      fs,
      dir,
      path,
      tempPath,
      file,
      bytes: found.validBytes,
      records: found.records,
      durability,
      intervalMs,
      warn,
      releaseLock,
    });
    const replayed: ReplayedLog = { payloads, records: found.records };
    if (found.tornTail !== undefined) replayed.tornTail = found.tornTail;
    return { journal, replayed };
  } catch (error) {
    await releaseLock().catch(() => {});
    throw error;
  }
}

async function removeIfPresent(fs: StorageFs, path: string): Promise<boolean> {
  try {
    await fs.unlink(path);
    return true;
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return false;
    throw error;
  }
}
