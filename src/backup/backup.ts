// Online backup and restore of an embedded store's data directory.
//
// A backup is taken while a service runs on the directory (it holds the lock; a backup only reads).
// Consistency comes from how the journal is written: records are only ever appended, and a
// compaction writes a new file and renames it over the old one. So the backup opens the journal
// once, takes its size, and reads that many bytes from the descriptor it opened: every record
// acknowledged before that moment is in them (an acknowledged record has been written to the file),
// records appended later are not, and a compaction that renames a new file meanwhile does not
// matter, since the descriptor still reads the file it opened, whose records up to that size do not
// change. A last record still being written is cut off, as a restart would cut it. The keys file and
// the cursor secret are replaced whole by rename, so reading each gives one whole version.
import { open, readdir, readFile, mkdir, rename, rm } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { writeFileAtomically, syncDirectory } from '../journal/atomic-file.js';
import { replayRecords } from '../journal/replay.js';
import { type Backup, BackupError, type BackupFile, decodeBackup, encodeBackup } from './backup-format.js';

const JOURNAL = 'animals.log';
/** Files that are copied whole when present. */
const WHOLE_FILES = ['keys.json', 'cursor.secret', 'limits.json'] as const;
/** A data directory is private to its owner, as the service makes it. */
const DIRECTORY_MODE = 0o700;
const FILE_MODE = 0o600;

/** What a backup holds, for people. */
export interface BackupSummary {
  records: number;
  bytes: number;
  files: string[];
  createdAt: string;
}

/** Reads a consistent snapshot of `dataDir` (see above); the service on it may keep running. */
export async function snapshotDataDir(dataDir: string, now: Date): Promise<Backup> {
  const files: BackupFile[] = [];
  let journal;
  try {
    journal = await open(join(dataDir, JOURNAL), 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT')
      throw new Error(
        `${resolve(dataDir)} holds no animal store (no ${JOURNAL}); pass the --data-dir the service uses`,
      );
    throw error;
  }
  try {
    const { size } = await journal.stat();
    const bytes = Buffer.alloc(size);
    let read = 0;
    while (read < size) {
      const { bytesRead } = await journal.read(bytes, read, size - read, read);
      if (bytesRead === 0) break;
      read += bytesRead;
    }
    const { validBytes } = replayRecords(bytes.subarray(0, read), join(dataDir, JOURNAL), () => {});
    files.push({ name: JOURNAL, bytes: bytes.subarray(0, validBytes) });
  } finally {
    await journal.close();
  }
  for (const name of WHOLE_FILES) {
    try {
      files.push({ name, bytes: await readFile(join(dataDir, name)) });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
  return { createdAt: now.toISOString(), files };
}

/** What an operator can do about the usual reasons a backup cannot be written (the temporary file beside it named by none). */
const WRITE_FAILURES: Readonly<Record<string, string>> = {
  ENOENT: 'its directory does not exist',
  ENOTDIR: 'its directory does not exist',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  ENOSPC: 'the disk is full',
  EDQUOT: 'the disk quota is used up',
  EROFS: 'the file system is read-only',
  EISDIR: 'it is a directory',
};

/** Writes a backup of `dataDir` to `out`, atomically (a temporary file, fsync, rename, fsync of the directory). */
export async function backupDataDir(dataDir: string, out: string, now = new Date()): Promise<BackupSummary> {
  const backup = await snapshotDataDir(dataDir, now);
  const bytes = encodeBackup(backup);
  await writeFileAtomically(out, bytes, FILE_MODE).catch((error: NodeJS.ErrnoException) => {
    throw new Error(`could not write the backup to ${out}: ${WRITE_FAILURES[error.code ?? ''] ?? error.message}`, {
      cause: error,
    });
  });
  return summaryOf(backup, bytes.length);
}

/** Reads and checks the backup at `path`; throws BackupError (or a file-system error) saying why not. */
export async function readBackup(path: string): Promise<{ backup: Backup; summary: BackupSummary }> {
  const bytes = await readFile(path);
  const backup = decodeBackup(bytes);
  const journal = backup.files.find((file) => file.name === JOURNAL);
  if (journal === undefined) throw new BackupError(`it holds no ${JOURNAL}`);
  // The journal must replay whole: no damaged and no torn record.
  const replayed = replayRecords(journal.bytes, `${JOURNAL} in the backup`, () => {});
  if (replayed.tornTail !== undefined) throw new BackupError(`its ${JOURNAL} ends in a torn record`);
  return { backup, summary: summaryOf(backup, bytes.length) };
}

/**
 * Restores the backup at `path` into `dataDir`, which must not exist or be empty. The files are written
 * into a temporary directory beside it, fsynced, and the directory renamed into place, so a crash
 * leaves either nothing or the whole restored directory.
 */
export async function restoreDataDir(path: string, dataDir: string): Promise<BackupSummary> {
  const { backup, summary } = await readBackup(path);
  const target = resolve(dataDir);
  const existing = await readdir(target).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [];
    throw error;
  });
  if (existing.length > 0)
    throw new Error(`${target} is not empty; restore into a new directory (nothing was changed)`);
  const temporary = join(dirname(target), `.${basename(target)}.restoring-${process.pid}`);
  await rm(temporary, { recursive: true, force: true });
  await mkdir(temporary, { recursive: true, mode: DIRECTORY_MODE });
  try {
    for (const file of backup.files) {
      const handle = await open(join(temporary, file.name), 'wx', FILE_MODE);
      try {
        await handle.writeFile(file.bytes);
        await handle.sync();
      } finally {
        await handle.close();
      }
    }
    await syncDirectory(temporary);
    // rename(2) replaces an empty directory; a missing one is simply created by it.
    await rename(temporary, target);
    await syncDirectory(dirname(target));
  } catch (error) {
    await rm(temporary, { recursive: true, force: true });
    throw error;
  }
  return summary;
}

function summaryOf(backup: Backup, bytes: number): BackupSummary {
  const journal = backup.files.find((file) => file.name === JOURNAL);
  let records = 0;
  if (journal !== undefined) records = replayRecords(journal.bytes, JOURNAL, () => {}).records;
  return { records, bytes, files: backup.files.map((file) => file.name), createdAt: backup.createdAt };
}
