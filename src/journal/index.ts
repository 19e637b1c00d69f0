// The storage layer's public surface: an append-only, group-committed, crash-safe log of JSON records
// in a locked data directory (README "Storage and durability"), and the file-system seam with its in-memory twin.

export { CorruptLogError, DataDirLockedError, StorageUnavailableError } from './errors.js';
export type { Durability } from './journal.js';
export { Journal } from './journal.js';
export { acquireLock, isProcessAlive, LOCK_FILE } from './lock.js';
export { encodeRecord } from './log-format.js';
export type { Fault, FsOp } from './memory-fs.js';
export { MemoryFs } from './memory-fs.js';
export { nodeFs } from './node-fs.js';
export type { JournalOptions, ReplayedLog } from './open-journal.js';
export { DEFAULT_INTERVAL_MS, DEFAULT_LOG_FILE, openJournal } from './open-journal.js';
export type { ReplayResult } from './replay.js';
export { replay } from './replay.js';
export type { OpenFlags, OpenOptions, StorageFile, StorageFs } from './storage-fs.js';
export { writeAll } from './storage-fs.js';
