// Helpers for storage tests: a journal on a MemoryFs that collects its warnings, and a replay of what a file holds.

import type { Journal } from '../../src/journal/journal.js';
import { MemoryFs } from '../../src/journal/memory-fs.js';
import type { JournalOptions, ReplayedLog } from '../../src/journal/open-journal.js';
import { openJournal } from '../../src/journal/open-journal.js';
import { replay } from '../../src/journal/replay.js';

/** The data directory the in-memory tests use. */
export const DATA_DIR = '/data';
/** The log's path in it. */
export const LOG_PATH = '/data/animals.log';

/** A journal opened for a test, with its in-memory disk and the warnings it gave. */
export interface TestJournal {
  journal: Journal;
  replayed: ReplayedLog;
  fs: MemoryFs;
  warnings: string[];
}

/** Opens a journal on `fs` (a fresh MemoryFs by default) and records its warnings. */
export async function openTestJournal(
  options: Partial<Omit<JournalOptions, 'fs'>> & { fs?: MemoryFs } = {},
): Promise<TestJournal> {
  const fs = options.fs ?? new MemoryFs();
  const warnings: string[] = [];
  const opened = await openJournal({ dir: DATA_DIR, warn: (m) => warnings.push(m), ...options, fs });
  return { ...opened, fs, warnings };
}

/** The payloads a fresh start would find in the log, as it stands now (page cache included). */
export function payloadsOnFile(fs: MemoryFs, path = LOG_PATH): string[] {
  const bytes = fs.peek(path);
  return bytes === undefined ? [] : replay(bytes, path).payloads;
}

/** A distinct small JSON payload. */
export function pet(id: number): string {
  return JSON.stringify({ id, name: `pet ${id}`, categoryId: 1, status: 'available' });
}
