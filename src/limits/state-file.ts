// The in-memory limiter's state file: day buckets and bans saved on a graceful stop and restored at
// start-up. The file is removed once restored, so a later crash starts every bucket full rather than
// restoring counts that are out of date. Written atomically, so a crash while saving leaves the old
// file or the new one.
import { mkdir, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { writeFileAtomically } from '../journal/atomic-file.js';
import { readFileNamed } from '../journal/node-fs.js';
import type { SavedLimiterState } from './limiter-state.js';

/** What can be saved and restored. */
interface StatefulLimiter {
  exportState(): SavedLimiterState;
  importState(state: unknown): void;
}

/**
 * Restores day buckets and bans saved by the last graceful stop, then removes the file. A damaged file
 * is dropped with a warning: it only costs keys their saved day counts and bans, as a crash would.
 */
export async function restoreLimiterState(
  limiter: StatefulLimiter,
  path: string,
  warn: (line: string) => void = () => {},
): Promise<void> {
  let text: string;
  try {
    text = await readFileNamed(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  try {
    limiter.importState(JSON.parse(text));
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    warn(`${path} is damaged (${reason}), so the day buckets and bans it saved start afresh`);
  }
  await rm(path, { force: true });
}

/** Saves day buckets and bans, atomically. */
export async function saveLimiterState(limiter: StatefulLimiter, path: string): Promise<void> {
  // With a store elsewhere (PostgreSQL) nothing else makes the data directory: the save makes it, as the
  // embedded store would have, private to the service's user.
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  await writeFileAtomically(path, JSON.stringify(limiter.exportState()), 0o600);
}
