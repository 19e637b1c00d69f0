// Replacing a small file atomically: a temporary file beside it, fsync, rename over it, fsync of the
// directory. A crash at any moment leaves the old file or the new one, never a torn one.
import { open, rename, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';

/** Replaces `path` with `content` atomically, the new file having exactly `mode`. */
export async function writeFileAtomically(path: string, content: string | Uint8Array, mode: number): Promise<void> {
  const temporary = `${path}.${process.pid}.tmp`;
  const file = await open(temporary, 'w', mode);
  try {
    try {
      // A temporary file left by an earlier process of the same pid keeps its own mode: set it.
      if (process.platform !== 'win32') await file.chmod(mode);
      await file.writeFile(content);
      await file.sync();
    } finally {
      await file.close();
    }
    await rename(temporary, path);
  } catch (error) {
    // Whatever failed (a full disk, most often), no half-written temporary file stays behind.
    await unlink(temporary).catch(() => {});
    throw error;
  }
  await syncDirectory(dirname(path));
}

/** fsync of a directory, so a rename or a new file in it survives a power loss (POSIX leaves it unsaid otherwise). */
export async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
