// The secret that signs paging cursors, kept in the data directory so cursors stay valid across restarts.
import { randomBytes } from 'node:crypto';
import { open } from 'node:fs/promises';
import { readFileNamed } from '../../journal/node-fs.js';

/** The file name of the cursor secret inside the data directory. */
export const CURSOR_SECRET_FILE = 'cursor.secret';

/** The secret at `path`, made on first start (32 random bytes as hex, mode 0600). */
export async function loadOrCreateSecret(path: string): Promise<Buffer> {
  try {
    const secret = Buffer.from((await readFileNamed(path, 'utf8')).trim(), 'hex');
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
