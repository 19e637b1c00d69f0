// The small files of the data directory besides the log: the cursor secret, the saved limiter state,
// and the watch on the keys file. Each is read or written whole; losing one costs little (new cursors,
// full buckets), so none stops the service but a damaged cursor secret, which the operator must see.
import { randomBytes } from 'node:crypto';
import { type FSWatcher, watch } from 'node:fs';
import { open, readFile, rm } from 'node:fs/promises';
import { KEYS_FILE } from './auth/key-file.js';
import type { RateLimiter } from './limits/index.js';

/** How long a burst of file events is let settle before the keys file is read again. */
const KEYS_RELOAD_SETTLE_MS = 50;

/**
 * Calls `onChange` shortly after the keys file of `dir` changes. The directory is watched, not the
 * file: `keys create` replaces the file by rename, which a watch on the old inode would miss.
 */
export function watchKeyFile(dir: string, onChange: () => void, onWatchFailed: (reason: string) => void): () => void {
  let timer: NodeJS.Timeout | undefined;
  let watcher: FSWatcher;
  try {
    watcher = watch(dir, { persistent: false }, (_event, name) => {
      if (name !== KEYS_FILE) return;
      clearTimeout(timer);
      timer = setTimeout(onChange, KEYS_RELOAD_SETTLE_MS);
      timer.unref();
    });
  } catch {
    return () => {}; // No watch support here: SIGHUP still reloads.
  }
  // A watch can fail later (the directory removed, inotify limits): say so, since only SIGHUP reloads from then on.
  watcher.on('error', (error) => {
    watcher.close();
    onWatchFailed(`${error.message}; send SIGHUP to reload the keys file`);
  });
  return () => {
    clearTimeout(timer);
    watcher.close();
  };
}

/** The secret that signs paging cursors, made on first start (32 random bytes, mode 0600). */
export async function loadOrCreateSecret(path: string): Promise<Buffer> {
  try {
    const secret = Buffer.from((await readFile(path, 'utf8')).trim(), 'hex');
    if (secret.length >= 16) return secret;
    throw new Error(`${path} is damaged (expected at least 32 hex digits); remove it to issue new cursors`);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const secret = randomBytes(32);
  const file = await open(path, 'wx', 0o600);
  try {
    await file.writeFile(`${secret.toString('hex')}\n`);
    await file.sync();
  } finally {
    await file.close();
  }
  return secret;
}

/** Restores day buckets and bans saved by the last graceful stop, then removes the file. */
export async function restoreLimiterState(limiter: RateLimiter, path: string): Promise<void> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  try {
    limiter.importState(JSON.parse(text));
  } catch {
    // Damaged state only costs keys their saved day counts; it must not stop the service.
  }
  // CONTRACT.md section 5: the saved file is removed, so a later crash starts every bucket full.
  await rm(path, { force: true });
}

/** Saves day buckets and bans on a graceful stop. */
export async function saveLimiterState(limiter: RateLimiter, path: string): Promise<void> {
  const file = await open(path, 'w', 0o600);
  try {
    await file.writeFile(JSON.stringify(limiter.exportState()));
    await file.sync();
  } finally {
    await file.close();
  }
}
