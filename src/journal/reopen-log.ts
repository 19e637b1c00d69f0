// Reopening the log after a failed fsync or a failed switch, before the journal takes writes again:
// the file must hold exactly the records written so far (a failed batch after them is cut off), and
// that cut is made durable. Anything else leaves the journal read-only.

import { replay } from './replay.js';
import type { OpenOptions, StorageFile, StorageFs } from './storage-fs.js';

/**
 * Opens `path` for append (with `options`, as the journal opens its log) and checks it holds `records`
 * intact records in its first `bytes` bytes; cuts anything after.
 */
export async function reopenVerified(
  fs: StorageFs,
  dir: string,
  path: string,
  bytes: number,
  records: number,
  options: OpenOptions,
): Promise<StorageFile> {
  const file = await fs.open(path, 'a', options);
  try {
    const content = await fs.readFile(path);
    if (content.length < bytes) throw new Error(`it holds ${content.length} bytes, fewer than the ${bytes} written`);
    const found = replay(content.subarray(0, bytes), path);
    if (found.tornTail !== undefined || found.payloads.length !== records) {
      throw new Error(`it does not hold the ${records} records written`);
    }
    if (content.length > bytes) await file.truncate(bytes);
    // Records acknowledged under 'always' were synced by an earlier datasync that succeeded; this one
    // only makes the cut (and, after a compaction, the new directory entry) durable.
    await file.datasync();
    await fs.syncDir(dir);
    return file;
  } catch (error) {
    await file.close().catch(() => {});
    throw error;
  }
}
